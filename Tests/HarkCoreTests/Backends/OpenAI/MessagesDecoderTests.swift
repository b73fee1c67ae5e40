import Testing
@testable import HarkCore

/// The Messages decoder on streams laid out as Anthropic's docs show them ("Streaming
/// Messages": the example response, the thinking and tool-use deltas, the error event) and as
/// llama.cpp's server writes them (`message_start` usage split into `input_tokens` and
/// `cache_read_input_tokens`; tools/server/server-task.cpp, `to_json_anthropic_stream`).
@Suite struct MessagesDecoderTests {
    func decode(_ body: String, cuts: [Int] = [], contentType: String = "text/event-stream") throws -> [ReplyEvent] {
        try decodeReply(MessagesAPI().makeDecoder(), body, cuts: cuts, contentType: contentType)
    }

    static func event(_ name: String, _ data: String) -> String { "event: \(name)\ndata: \(data)\n\n" }

    /// Thinking, then text, then a tool call; a ping, a signature and an event type added later
    /// in between; usage in message_start and the cumulative output count in message_delta.
    static let stream = "\u{FEFF}"
        + event("message_start", #"{"type": "message_start", "message": {"id": "msg_1nZd", "type": "message", "role": "assistant", "content": [], "model": "claude-opus-4-6", "stop_reason": null, "stop_sequence": null, "usage": {"input_tokens": 25, "cache_read_input_tokens": 5, "output_tokens": 1}}}"#)
        + event("content_block_start", #"{"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}}"#)
        + event("content_block_delta", #"{"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "I need to find the GCD"}}"#)
        + event("content_block_delta", #"{"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "EqQBCgIYAhIM"}}"#)
        + event("content_block_stop", #"{"type": "content_block_stop", "index": 0}"#)
        + event("ping", #"{"type": "ping"}"#)
        + event("content_block_start", #"{"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}}"#)
        + event("content_block_delta", #"{"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "Héllo"}}"#)
        + "event: content_block_delta\r\ndata: {\"type\": \"content_block_delta\", \"index\": 1, \"delta\": {\"type\": \"text_delta\", \"text\": \" frien😀\"}}\r\n\r\n"
        + event("content_block_stop", #"{"type": "content_block_stop", "index": 1}"#)
        + event("compaction_progress", #"{"type": "compaction_progress"}"#)
        + event("content_block_start", #"{"type": "content_block_start", "index": 2, "content_block": {"type": "tool_use", "id": "toolu_01", "name": "get_weather", "input": {}}}"#)
        + event("content_block_delta", #"{"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": "{\"location\": \"San Fra"}}"#)
        + event("content_block_delta", #"{"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": "ncisco\"}"}}"#)
        + event("content_block_stop", #"{"type": "content_block_stop", "index": 2}"#)
        + event("message_delta", #"{"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": null}, "usage": {"output_tokens": 15}}"#)
        + event("message_stop", #"{"type": "message_stop"}"#)

    @Test func decodesThinkingTextToolUseUsageAndTheStopReason() throws {
        let events = ReplyEvent.coalesced(try decode(Self.stream))
        #expect(events == [
            .backendMessageID("msg_1nZd"), .model("claude-opus-4-6"),
            .reasoning("I need to find the GCD"), .text("Héllo frien😀"),
            .toolCall(ToolCall(id: "toolu_01", name: "get_weather", arguments: #"{"location": "San Francisco"}"#)),
            .usage(Usage(promptTokens: 30, completionTokens: 15, totalTokens: 45)),
            .finished(reason: "tool_calls"),
        ])
    }

    @Test func anyChunkingGivesTheSameEvents() throws {
        try expectSameEventsAnyChunking({ MessagesAPI().makeDecoder() }, Self.stream)
    }

    @Test func stopReasonsReadAsTheOtherAPIs() throws {
        for (anthropic, reason) in [("end_turn", "stop"), ("max_tokens", "length"), ("stop_sequence", "stop"), ("refusal", "refusal")] {
            let body = Self.event("message_delta", #"{"type": "message_delta", "delta": {"stop_reason": "\#(anthropic)"}}"#)
                + Self.event("message_stop", #"{"type": "message_stop"}"#)
            #expect(try decode(body).last == .finished(reason: reason))
        }
    }

    @Test func anErrorEventFailsWithItsMessageAfterTheTextBeforeIt() {
        let body = Self.event("content_block_delta", #"{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "par"}}"#)
            + Self.event("error", #"{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}"#)
        var decoder = MessagesAPI().makeDecoder()
        var events: [ReplyEvent] = []
        #expect(throws: HarkError.backend("Overloaded")) {
            try decoder.start(head: HTTPResponseHead(status: 200, headers: ["content-type": "text/event-stream"]))
            try decoder.feed(Array(body.utf8), into: &events)
        }
        #expect(events == [.text("par")])
    }

    @Test func anEndBeforeMessageStopIsACutReply() {
        let body = Self.event("content_block_delta", #"{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "cut"}}"#)
        #expect(throws: HarkError.protocolViolation("the stream ended before message_stop; the reply may be cut short")) { try decode(body) }
    }

    @Test func eventsAfterMessageStopAreIgnored() throws {
        let body = Self.event("message_stop", #"{"type": "message_stop"}"#)
            + Self.event("content_block_delta", #"{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "late"}}"#)
        #expect(try decode(body) == [.finished(reason: nil)])
    }

    @Test func nonJSONDataIsAProtocolError() {
        #expect(throws: HarkError.self) { try decode("event: message_start\ndata: <html>\n\n") }
    }

    @Test func aWholeMessageIsReadWhenTheServerDoesNotStream() throws {
        let body = #"{"id":"msg_2","type":"message","role":"assistant","model":"m","content":[{"type":"thinking","thinking":"hmm"},{"type":"text","text":"whole"},{"type":"tool_use","id":"t1","name":"f","input":{"a":1}}],"stop_reason":"max_tokens","usage":{"input_tokens":3,"output_tokens":2}}"#
        #expect(try decode(body, contentType: "application/json") == [
            .backendMessageID("msg_2"), .model("m"), .reasoning("hmm"), .text("whole"),
            .toolCall(ToolCall(id: "t1", name: "f", arguments: #"{"a":1}"#)),
            .usage(Usage(promptTokens: 3, completionTokens: 2, totalTokens: 5)), .notice(MessagesEventReader.cutOffNote),
            .finished(reason: "length"),
        ])
        #expect(throws: HarkError.backend("bad key")) {
            try decode(#"{"type":"error","error":{"type":"authentication_error","message":"bad key"}}"#, contentType: "application/json")
        }
    }
}
