/// One dispatched server-sent event.
public struct SSEEvent: Sendable, Equatable {
    public var type: String
    public var data: [UInt8]
    public var id: String?
    public var retry: Int?

    public init(type: String = "message", data: [UInt8], id: String? = nil, retry: Int? = nil) {
        self.type = type
        self.data = data
        self.id = id
        self.retry = retry
    }

    public var text: String { String(decoding: data, as: UTF8.self) }
}

/// An incremental `text/event-stream` parser following the WHATWG rules: one leading BOM
/// dropped; lines end at CRLF, LF or a lone CR, even when a CRLF is split across reads; a
/// blank line dispatches; `:` lines are comments; `data` lines join with "\n"; `id` persists
/// unless it holds NUL; `retry` only when all digits; an incomplete event at EOF is dropped.
/// Fed arbitrary chunks; it knows nothing about transports.
public struct SSEParser: Sendable {
    public static let defaultMaxEventBytes = 32 << 20

    private var line: [UInt8] = []
    private var data: [UInt8] = []
    private var hasData = false
    private var eventType: String?
    private var lastEventID: String?
    private var retry: Int?
    private var started = false
    private var bomBytesSeen = 0
    private var skipLineFeed = false
    private let maxEventBytes: Int

    public init(maxEventBytes: Int = SSEParser.defaultMaxEventBytes) {
        self.maxEventBytes = maxEventBytes
    }

    public enum Failure: Error, Sendable, Equatable {
        case eventTooLarge(limit: Int)
    }

    /// Feeds bytes, returning the events they complete.
    public mutating func feed(_ chunk: UnsafeBufferPointer<UInt8>) throws(Failure) -> [SSEEvent] {
        var events: [SSEEvent] = []
        var start = 0
        var index = 0
        let count = chunk.count
        if !started {
            // Drop one UTF-8 BOM, which may itself arrive split.
            while index < count, bomBytesSeen < 3 {
                let expected: UInt8 = [0xEF, 0xBB, 0xBF][bomBytesSeen]
                if chunk[index] == expected {
                    bomBytesSeen += 1
                    index += 1
                } else {
                    // Not a BOM after all: give back the bytes taken so far.
                    line.append(contentsOf: [0xEF, 0xBB, 0xBF][0..<bomBytesSeen])
                    bomBytesSeen = 3
                }
            }
            if bomBytesSeen == 3 || index < count { started = true }
            start = index
        }
        while index < count {
            let byte = chunk[index]
            if byte == 0x0A || byte == 0x0D {
                if byte == 0x0A && skipLineFeed && index == start && line.isEmpty {
                    // The LF of a CRLF whose CR ended the previous chunk.
                    skipLineFeed = false
                    index += 1
                    start = index
                    continue
                }
                if line.isEmpty {
                    try processLine(UnsafeBufferPointer(rebasing: chunk[start..<index]), into: &events)
                } else {
                    line.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[start..<index]))
                    let whole = line
                    line.removeAll(keepingCapacity: true)
                    try whole.withUnsafeBufferPointer { buffer throws(Failure) in try processLine(buffer, into: &events) }
                }
                index += 1
                if byte == 0x0D {
                    if index < count {
                        if chunk[index] == 0x0A { index += 1 }
                        skipLineFeed = false
                    } else {
                        skipLineFeed = true
                    }
                } else {
                    skipLineFeed = false
                }
                start = index
                continue
            }
            skipLineFeed = false
            index += 1
        }
        if start < count {
            line.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[start..<count]))
            if line.count > maxEventBytes { throw .eventTooLarge(limit: maxEventBytes) }
        }
        return events
    }

    public mutating func feed(_ bytes: [UInt8]) throws(Failure) -> [SSEEvent] {
        try bytes.withUnsafeBufferPointer { buffer throws(Failure) in try feed(buffer) }
    }

    /// The stream ended: a partial line or undispatched event is dropped, as the spec says.
    public mutating func finish() {
        line.removeAll()
        data.removeAll()
        hasData = false
        eventType = nil
    }

    private mutating func processLine(_ text: UnsafeBufferPointer<UInt8>, into events: inout [SSEEvent]) throws(Failure) {
        if text.isEmpty {
            dispatch(into: &events)
            return
        }
        if text[0] == UInt8(ascii: ":") { return }  // comment, e.g. keep-alive
        var colon = 0
        while colon < text.count, text[colon] != UInt8(ascii: ":") { colon += 1 }
        let field = UnsafeBufferPointer(rebasing: text[0..<colon])
        var valueStart = colon < text.count ? colon + 1 : text.count
        if valueStart < text.count, text[valueStart] == 0x20 { valueStart += 1 }
        let value = UnsafeBufferPointer(rebasing: text[valueStart..<text.count])
        if equals(field, "data") {
            if hasData { data.append(0x0A) }
            data.append(contentsOf: value)
            hasData = true
            if data.count > maxEventBytes { throw .eventTooLarge(limit: maxEventBytes) }
        } else if equals(field, "event") {
            eventType = String(decoding: value, as: UTF8.self)
        } else if equals(field, "id") {
            if !value.contains(0) { lastEventID = String(decoding: value, as: UTF8.self) }
        } else if equals(field, "retry") {
            // A value too large for an Int is ignored; it must not erase the previous one.
            if !value.isEmpty, value.allSatisfy({ (0x30...0x39).contains($0) }),
               let milliseconds = Int(String(decoding: value, as: UTF8.self)) {
                retry = milliseconds
            }
        }
    }

    private mutating func dispatch(into events: inout [SSEEvent]) {
        defer {
            data.removeAll(keepingCapacity: true)
            hasData = false
            eventType = nil
        }
        guard hasData else { return }
        let type = eventType.flatMap { $0.isEmpty ? nil : $0 } ?? "message"
        events.append(SSEEvent(type: type, data: data, id: lastEventID, retry: retry))
    }

    private func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        guard bytes.count == literal.utf8CodeUnitCount else { return false }
        let pointer = literal.utf8Start
        for index in 0..<bytes.count where bytes[index] != pointer[index] { return false }
        return true
    }
}
