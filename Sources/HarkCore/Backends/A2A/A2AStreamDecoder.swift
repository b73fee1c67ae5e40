import FoundationEssentials
import Glibc

/// Decodes the answer to SendStreamingMessage / SubscribeToTask (or message/stream,
/// tasks/resubscribe): an SSE stream whose every event's data is one JSON-RPC response, as the
/// SDK writes it (`a2a/server/routes/jsonrpc_dispatcher.py` `_create_response`: `data:` the
/// response, `event: error` added when it holds an error; sse-starlette frames it). An error
/// found before the stream starts comes as a plain JSON response instead (`application/json`),
/// as does the answer of an agent that does not stream.
///
/// The events go through an A2AReplyProgress, shared with the backend, which learns the task
/// and whether it ended. A stream that stops before the task reached a final or interrupted
/// state throws `cutShort`: the backend then resubscribes.
public struct A2AStreamDecoder: ReplyDecoder {
    public let progress: A2AReplyProgress
    private var parser = SSEParser()
    private var isEventStream = true
    private var whole: [UInt8] = []

    public static let cutShort = HarkError.protocolViolation("the agent's stream ended before its task did")

    public init(progress: A2AReplyProgress) {
        self.progress = progress
    }

    public mutating func start(head: HTTPResponseHead) throws {
        let type = (head.header("content-type") ?? "").lowercased()
        if type.hasPrefix("application/json") {
            isEventStream = false
        } else if !type.isEmpty && !type.hasPrefix("text/event-stream") {
            throw HarkError.protocolViolation("expected an event stream from the agent, got \(type.prefix(40))")
        }
    }

    public mutating func feed(_ bytes: [UInt8], into events: inout [ReplyEvent]) throws {
        guard isEventStream else {
            whole += bytes
            if whole.count > 64 << 20 { throw HarkError.protocolViolation("the agent's answer is larger than 64 MB") }
            return
        }
        let progress = self.progress
        do {
            _ = try bytes.withUnsafeBufferPointer { buffer in
                try parser.feed(buffer) { event in
                    try Self.apply(response: Array(event.data), progress: progress, into: &events)
                }
            }
        } catch is SSEParser.Failure {
            throw HarkError.protocolViolation("an event in the agent's stream is larger than \(SSEParser.defaultMaxEventBytes >> 20) MB")
        }
    }

    public mutating func finish(into events: inout [ReplyEvent]) throws {
        if !isEventStream {
            try Self.apply(response: whole, progress: progress, into: &events)
        }
        parser.finish()
        guard progress.isSettled else { throw Self.cutShort }
    }

    /// One JSON-RPC response (an SSE event's data, or a whole body).
    static func apply(response bytes: [UInt8], progress: A2AReplyProgress, into events: inout [ReplyEvent]) throws {
        let json: JSON
        do { json = try JSON.parse(bytes) } catch {
            let start = String(decoding: bytes.prefix(60), as: UTF8.self)
            throw HarkError.protocolViolation("the agent sent something that is not JSON: \(start)")
        }
        try progress.apply(try A2AWire.event(fromResponse: json), into: &events)
    }
}
