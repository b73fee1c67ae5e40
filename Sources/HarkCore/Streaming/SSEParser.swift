#if canImport(Glibc)
import Glibc
#endif

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

/// An event as the parser hands it to a handler: `data` points into the parser's buffer and is
/// valid only during the call (`copy` keeps it).
public struct SSEEventView {
    public let type: String
    public let data: UnsafeBufferPointer<UInt8>
    public let id: String?
    public let retry: Int?

    public var copy: SSEEvent { SSEEvent(type: type, data: Array(data), id: id, retry: retry) }

    /// Whether the data is exactly these bytes.
    public func dataEquals(_ literal: StaticString) -> Bool {
        data.count == literal.utf8CodeUnitCount && memcmp(data.baseAddress!, literal.utf8Start, data.count) == 0
    }
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
        do {
            try feed(chunk) { event in events.append(event.copy) }
        } catch let failure as Failure {
            throw failure
        } catch {
            preconditionFailure("the collecting handler does not throw")
        }
        return events
    }

    /// Feeds bytes, calling `handle` with each event they complete. The event's data is only
    /// valid inside the call: nothing is allocated per event, which is what lets a stream of
    /// half a million small events through at the speed of the network (BENCHMARKS.md).
    /// Throws `Failure` or what `handle` throws.
    public mutating func feed(_ chunk: UnsafeBufferPointer<UInt8>, _ handle: (SSEEventView) throws -> Void) throws {
        let count = chunk.count
        var start = 0
        if !started {
            // Drop one UTF-8 BOM, which may itself arrive split.
            while start < count, bomBytesSeen < 3 {
                let expected: UInt8 = [0xEF, 0xBB, 0xBF][bomBytesSeen]
                if chunk[start] == expected {
                    bomBytesSeen += 1
                    start += 1
                } else {
                    // Not a BOM after all: give back the bytes taken so far.
                    line.append(contentsOf: [0xEF, 0xBB, 0xBF][0..<bomBytesSeen])
                    bomBytesSeen = 3
                }
            }
            if bomBytesSeen == 3 || start < count { started = true }
        }
        if skipLineFeed, start < count {
            // The LF of a CRLF whose CR ended the previous chunk.
            if chunk[start] == 0x0A { start += 1 }
            skipLineFeed = false
        }
        while start < count {
            // A line ends at the first CR or LF: memchr finds the LF, then the CR before it,
            // both with vector instructions rather than a byte at a time.
            let newline = chunk.firstOffset(of: 0x0A, from: start, to: count) ?? count
            let end = chunk.firstOffset(of: 0x0D, from: start, to: newline) ?? newline
            guard end < count else { break }
            if line.isEmpty {
                try processLine(UnsafeBufferPointer(rebasing: chunk[start..<end]), handle)
            } else {
                line.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[start..<end]))
                let whole = line
                line.removeAll(keepingCapacity: true)
                try whole.withUnsafeBufferPointer { buffer in try processLine(buffer, handle) }
            }
            start = end + 1
            if chunk[end] == 0x0D {
                if start < count {
                    if chunk[start] == 0x0A { start += 1 }
                } else {
                    skipLineFeed = true
                }
            }
        }
        if start < count {
            line.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[start..<count]))
            if line.count > maxEventBytes { throw Failure.eventTooLarge(limit: maxEventBytes) }
        }
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

    private mutating func processLine(_ text: UnsafeBufferPointer<UInt8>, _ handle: (SSEEventView) throws -> Void) throws {
        if text.isEmpty {
            try dispatch(handle)
            return
        }
        if text[0] == UInt8(ascii: ":") { return }  // comment, e.g. keep-alive
        let colon = text.firstOffset(of: UInt8(ascii: ":"), from: 0, to: text.count) ?? text.count
        let field = UnsafeBufferPointer(rebasing: text[0..<colon])
        var valueStart = colon < text.count ? colon + 1 : text.count
        if valueStart < text.count, text[valueStart] == 0x20 { valueStart += 1 }
        let value = UnsafeBufferPointer(rebasing: text[valueStart..<text.count])
        if equals(field, "data") {
            if hasData { data.append(0x0A) }
            data.append(contentsOf: value)
            hasData = true
            if data.count > maxEventBytes { throw Failure.eventTooLarge(limit: maxEventBytes) }
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

    private mutating func dispatch(_ handle: (SSEEventView) throws -> Void) throws {
        defer {
            data.removeAll(keepingCapacity: true)
            hasData = false
            eventType = nil
        }
        guard hasData else { return }
        let type = eventType.flatMap { $0.isEmpty ? nil : $0 } ?? "message"
        try data.withUnsafeBufferPointer { data in
            try handle(SSEEventView(type: type, data: data, id: lastEventID, retry: retry))
        }
    }

    private func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        guard bytes.count == literal.utf8CodeUnitCount else { return false }
        let pointer = literal.utf8Start
        for index in 0..<bytes.count where bytes[index] != pointer[index] { return false }
        return true
    }
}
