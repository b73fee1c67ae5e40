/// How a model server answered a request for a stream: with an event stream, or with one
/// whole JSON reply (a server or proxy that ignored `stream: true`). Shared by the decoders of
/// the three APIs.
enum ModelReplyBody {
    /// A whole reply larger than this is refused rather than held in memory.
    static let maxWholeBytes = 64 << 20
    /// Chat Completions' end of stream, which some proxies send after any API's.
    static let done: [UInt8] = Array("[DONE]".utf8)

    /// True for an event stream, false for a whole JSON reply; throws for anything else (an
    /// HTML page from a proxy).
    static func isEventStream(_ head: HTTPResponseHead) throws -> Bool {
        let type = (head.header("content-type") ?? "").lowercased()
        if type.hasPrefix("application/json") { return false }
        if !type.isEmpty && !type.hasPrefix("text/event-stream") && !type.hasPrefix("text/plain") {
            throw HarkError.protocolViolation("expected an event stream from the server, got \(type.prefix(40))")
        }
        return true
    }

    static func append(_ bytes: [UInt8], to whole: inout [UInt8]) throws {
        whole += bytes
        if whole.count > maxWholeBytes { throw HarkError.protocolViolation("the reply is larger than 64 MB") }
    }
}

/// What an API's decoder makes of the JSON objects its stream carries (Anthropic Messages,
/// OpenAI Responses): each SSE event's data is one object naming its `type`.
protocol JSONEventReader: Sendable {
    /// True once the reply has ended: later events are not read.
    var isDone: Bool { get }
    /// One event's object; `type` is its `type` member, or else the SSE event's name.
    mutating func read(_ type: String, _ event: JSON, into replies: inout [ReplyEvent]) throws
    /// The body was one JSON document instead of a stream.
    mutating func readWhole(_ reply: JSON, into replies: inout [ReplyEvent]) throws
    /// The stream ended: throws when the reply had not (a connection closed mid-reply).
    mutating func finish(into replies: inout [ReplyEvent]) throws
}

/// A reply decoder for an SSE stream of typed JSON events: the SSE layer, the JSON, the limits
/// and a whole-JSON reply are handled here; what the events mean, by the API's reader.
struct JSONEventStreamDecoder<Reader: JSONEventReader>: ReplyDecoder {
    private(set) var reader: Reader
    private var parser = SSEParser()
    private var isEventStream = true
    private var whole: [UInt8] = []

    init(_ reader: Reader) {
        self.reader = reader
    }

    mutating func start(head: HTTPResponseHead) throws {
        isEventStream = try ModelReplyBody.isEventStream(head)
    }

    mutating func feed(_ bytes: [UInt8], into replies: inout [ReplyEvent]) throws {
        guard isEventStream else { return try ModelReplyBody.append(bytes, to: &whole) }
        let events: [SSEEvent]
        do { events = try parser.feed(bytes) } catch {
            throw HarkError.protocolViolation("an event in the stream is larger than \(SSEParser.defaultMaxEventBytes >> 20) MB")
        }
        for event in events where !reader.isDone {
            // Some proxies end every stream the Chat Completions way.
            if event.data == ModelReplyBody.done { continue }
            let json: JSON
            do { json = try JSON.parse(event.data) } catch {
                throw HarkError.protocolViolation("the server sent an event that is not JSON: \(String(decoding: event.data.prefix(60), as: UTF8.self))")
            }
            try reader.read(json["type"]?.string ?? event.type, json, into: &replies)
        }
    }

    mutating func finish(into replies: inout [ReplyEvent]) throws {
        guard isEventStream else {
            let json: JSON
            do { json = try JSON.parse(whole) } catch { throw HarkError.protocolViolation("the server's reply is not JSON") }
            return try reader.readWhole(json, into: &replies)
        }
        parser.finish()
        try reader.finish(into: &replies)
    }
}

/// The reply's id and model, each handed out once, from whichever event first names them
/// (Messages' `message_start`, Responses' `response.created` or its end).
struct ReplyIdentity: Sendable {
    private var sentID = false
    private var sentModel = false

    mutating func note(_ object: JSON, into replies: inout [ReplyEvent]) {
        if !sentID, let id = object["id"]?.string, !id.isEmpty {
            sentID = true
            replies.append(.backendMessageID(id))
        }
        if !sentModel, let model = object["model"]?.string, !model.isEmpty {
            sentModel = true
            replies.append(.model(model))
        }
    }
}

extension Array where Element == ReplyEvent {
    /// Adds a piece of text or reasoning, unless it is empty or missing.
    mutating func append(text piece: String?) { if let piece, !piece.isEmpty { append(.text(piece)) } }
    mutating func append(reasoning piece: String?) { if let piece, !piece.isEmpty { append(.reasoning(piece)) } }
}
