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
/// Fed arbitrary chunks; it knows nothing about transports. Sendable though it holds a pointer:
/// `dataInChunk` is set only inside `feed`, which empties it before returning.
public struct SSEParser: @unchecked Sendable {
    public static let defaultMaxEventBytes = 32 << 20

    private var line: [UInt8] = []
    private var data: [UInt8] = []
    /// The event's only data line so far, when it lies in the chunk being fed: handed out from
    /// there when the event ends in the same chunk, as most do, instead of copied into `data`.
    /// Copied before `feed` returns, when the chunk goes away.
    private var dataInChunk: UnsafeBufferPointer<UInt8>?
    private var hasData = false
    private var eventType: String?
    private var lastEventID: String?
    private var retry: Int?
    /// An `error:` line of the event being read, and of the last event that had one: not a
    /// WHATWG field, but how llama.cpp servers of 2024 and early 2025 sent a mid-stream error
    /// (see ChatCompletionDecoder). Kept apart from the events so the spec's parsing is untouched.
    private var pendingErrorField: [UInt8]?
    public private(set) var errorField: [UInt8]?
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

    /// Whether nothing of an event is pending: the next byte starts a line of a new event. A
    /// caller may read a whole event itself only here (ChatCompletionDecoder does).
    public var isBetweenEvents: Bool {
        started && !skipLineFeed && line.isEmpty && !hasData && eventType == nil && pendingErrorField == nil
    }

    /// The value of an `error:` line whose event has ended (at its blank line), once.
    public mutating func takeErrorField() -> [UInt8]? {
        defer { errorField = nil }
        return errorField
    }

    /// Feeds bytes, calling `handle` with each event they complete. The event's data is only
    /// valid inside the call: nothing is allocated per event, which is what lets a stream of
    /// half a million small events through at the speed of the network (BENCHMARKS.md).
    /// `stoppingAtBlankLine`: returns after the first blank line (the end of an event), so the
    /// caller can look at what follows. Returns how many bytes were read; the rest, if any,
    /// are for the next call. Throws `Failure` or what `handle` throws.
    @discardableResult
    public mutating func feed(_ chunk: UnsafeBufferPointer<UInt8>, stoppingAtBlankLine: Bool = false,
                              _ handle: (SSEEventView) throws -> Void) throws -> Int {
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
        defer { keepDataInChunk() }
        // A line ends at the first CR or LF. memchr finds the LF, then a CR before it, in the
        // line alone: a CR looked for to the end of the chunk was a pass over the rest of a
        // 512 KB read for every event the decoder hands the parser one at a time.
        while start < count {
            // The blank line that ends each event is looked at before memchr is called for it.
            let newline = chunk[start] == 0x0A ? start : chunk.firstOffset(of: 0x0A, from: start, to: count) ?? count
            let end = chunk.firstOffset(of: 0x0D, from: start, to: newline) ?? newline
            guard end < count else { break }
            let isBlank = end == start && line.isEmpty
            if line.isEmpty {
                try processLine(UnsafeBufferPointer(rebasing: chunk[start..<end]), inChunk: true, handle)
            } else {
                line.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[start..<end]))
                if line.count > Self.longLineBytes {
                    // A long line (a whole reply in one event) is handed over, not copied.
                    var whole: [UInt8] = []
                    swap(&whole, &line)
                    try processLongLine(&whole, handle)
                } else {
                    let whole = line
                    line.removeAll(keepingCapacity: true)
                    try whole.withUnsafeBufferPointer { buffer in try processLine(buffer, inChunk: false, handle) }
                }
            }
            start = end + 1
            if chunk[end] == 0x0D {
                if start < count {
                    if chunk[start] == 0x0A { start += 1 }
                } else {
                    skipLineFeed = true
                }
            }
            if isBlank && stoppingAtBlankLine { return start }
        }
        if start < count {
            line.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[start..<count]))
            if line.count > maxEventBytes { throw Failure.eventTooLarge(limit: maxEventBytes) }
        }
        return count
    }

    /// Copies a data line still in the chunk into `data`, before the chunk goes away or another
    /// line joins it.
    private mutating func keepDataInChunk() {
        guard let pending = dataInChunk else { return }
        data.append(contentsOf: pending)
        dataInChunk = nil
    }

    public mutating func feed(_ bytes: [UInt8]) throws(Failure) -> [SSEEvent] {
        try bytes.withUnsafeBufferPointer { buffer throws(Failure) in try feed(buffer) }
    }

    /// The stream ended: a partial line or undispatched event is dropped, as the spec says.
    public mutating func finish() {
        line.removeAll()
        data.removeAll()
        dataInChunk = nil
        hasData = false
        eventType = nil
        pendingErrorField = nil
    }

    /// Lines longer than this that span reads are moved into the event, not copied: a 30 MB
    /// reply sent as one event must not cost three times its size.
    static let longLineBytes = 1 << 16

    private mutating func processLongLine(_ whole: inout [UInt8], _ handle: (SSEEventView) throws -> Void) throws {
        guard !hasData, data.isEmpty, Self.startsWithData(whole.withUnsafeBufferPointer { $0 }) else {
            try whole.withUnsafeBufferPointer { buffer in try processLine(buffer, inChunk: false, handle) }
            return
        }
        let valueStart = whole.count > 5 && whole[5] == 0x20 ? 6 : 5
        whole.removeSubrange(0..<valueStart)
        if whole.count > maxEventBytes { throw Failure.eventTooLarge(limit: maxEventBytes) }
        swap(&data, &whole)
        hasData = true
    }

    /// `inChunk`: the line lies in the chunk being fed (not in a copy), so a view of it stays
    /// valid until `feed` returns.
    private mutating func processLine(_ text: UnsafeBufferPointer<UInt8>, inChunk: Bool,
                                      _ handle: (SSEEventView) throws -> Void) throws {
        if text.isEmpty {
            try dispatch(handle)
            return
        }
        if text[0] == UInt8(ascii: ":") { return }  // comment, e.g. keep-alive
        // Nearly every line is a data line: its colon is known without a search.
        let colon = Self.startsWithData(text) ? 4 : text.firstOffset(of: UInt8(ascii: ":"), from: 0, to: text.count) ?? text.count
        let field = UnsafeBufferPointer(rebasing: text[0..<colon])
        var valueStart = colon < text.count ? colon + 1 : text.count
        if valueStart < text.count, text[valueStart] == 0x20 { valueStart += 1 }
        let value = UnsafeBufferPointer(rebasing: text[valueStart..<text.count])
        if equals(field, "data") {
            if !hasData && inChunk {
                if value.count > maxEventBytes { throw Failure.eventTooLarge(limit: maxEventBytes) }
                dataInChunk = value
                hasData = true
                return
            }
            keepDataInChunk()
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
        } else if equals(field, "error") {
            pendingErrorField = Array(value.prefix(64 * 1024))
        }
    }

    private mutating func dispatch(_ handle: (SSEEventView) throws -> Void) throws {
        defer {
            dataInChunk = nil
            // A huge event's buffer is given back rather than kept for the next small one.
            if data.capacity > 1 << 20 { data = [] } else if !data.isEmpty { data.removeAll(keepingCapacity: true) }
            hasData = false
            eventType = nil
            if let pendingErrorField {
                errorField = pendingErrorField
                self.pendingErrorField = nil
            }
        }
        guard hasData else { return }
        let type = eventType.flatMap { $0.isEmpty ? nil : $0 } ?? "message"
        if let dataInChunk {
            try handle(SSEEventView(type: type, data: dataInChunk, id: lastEventID, retry: retry))
            return
        }
        try data.withUnsafeBufferPointer { data in
            try handle(SSEEventView(type: type, data: data, id: lastEventID, retry: retry))
        }
    }

    private static func startsWithData(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        line.count >= 5 && line[0] == UInt8(ascii: "d") && line[1] == UInt8(ascii: "a") && line[2] == UInt8(ascii: "t")
            && line[3] == UInt8(ascii: "a") && line[4] == UInt8(ascii: ":")
    }

    private func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        guard bytes.count == literal.utf8CodeUnitCount else { return false }
        let pointer = literal.utf8Start
        for index in 0..<bytes.count where bytes[index] != pointer[index] { return false }
        return true
    }
}
