/// Turns a response body into reply events as bytes arrive. One per reply; kept free of I/O
/// so each is tested by feeding it bytes cut at random places.
public protocol ReplyDecoder: Sendable {
    /// The response head of a successful (2xx) response.
    mutating func start(head: HTTPResponseHead) throws
    /// Appends the events these bytes complete. When it throws (an error event, garbage), the
    /// events appended before the failure still count: one network read can hold both the last
    /// words of a reply and the error that ends it.
    mutating func feed(_ bytes: [UInt8], into events: inout [ReplyEvent]) throws
    /// The same, when more bytes that have already arrived follow at once (`more`): a decoder
    /// may keep the text it gathered for the next feed instead of handing it out, so what
    /// arrived together becomes one text event without joining strings (HTTPReply).
    mutating func feed(_ bytes: [UInt8], into events: inout [ReplyEvent], more: Bool) throws
    /// The body ended: appends the last events; throws when the reply was cut short.
    mutating func finish(into events: inout [ReplyEvent]) throws
}

/// A reply that failed on something that arrived but cannot be shown as text (a webhook's
/// 200 with an image): what arrived is kept in the history as the failed reply's text, and
/// the error is what the user reads; none of it is printed.
public struct UnshowableReply: Error, Sendable, Equatable {
    public var received: String
    public var error: HarkError

    public init(received: String, error: HarkError) {
        self.received = received
        self.error = error
    }
}

extension ReplyDecoder {
    public mutating func feed(_ bytes: [UInt8], into events: inout [ReplyEvent], more: Bool) throws {
        try feed(bytes, into: &events)
    }

    /// The events of one feed, for tests (a throw loses them; the pipeline uses `into:`).
    public mutating func feed(_ bytes: [UInt8]) throws -> [ReplyEvent] {
        var events: [ReplyEvent] = []
        try feed(bytes, into: &events)
        return events
    }

    public mutating func finish() throws -> [ReplyEvent] {
        var events: [ReplyEvent] = []
        try finish(into: &events)
        return events
    }
}

extension ReplyEvent {
    /// Adjacent text (and adjacent reasoning) merged, so one network read becomes one history
    /// write and one terminal write instead of one per token.
    public static func coalesced(_ events: [ReplyEvent]) -> [ReplyEvent] {
        guard events.count > 1 else { return events }
        var result: [ReplyEvent] = []
        // Appending to one buffer per run; `a + b` per event would copy the run each time.
        var text = ""
        var reasoning = ""
        func flush() {
            if !reasoning.isEmpty { result.append(.reasoning(reasoning)); reasoning = "" }
            if !text.isEmpty { result.append(.text(text)); text = "" }
        }
        for event in events {
            switch event {
            case .text(let piece):
                if !reasoning.isEmpty { flush() }
                text += piece
            case .reasoning(let piece):
                if !text.isEmpty { flush() }
                reasoning += piece
            default:
                flush()
                result.append(event)
            }
        }
        flush()
        return result
    }
}
