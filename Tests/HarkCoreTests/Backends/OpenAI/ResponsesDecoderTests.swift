import Testing
@testable import HarkCore

/// The Responses decoder on streams laid out as OpenAI's API reference lists the events
/// ("Responses streaming events": `response.created`, `response.output_item.added`,
/// `response.reasoning_text.delta`, `response.output_text.delta`,
/// `response.function_call_arguments.delta`, `response.completed|incomplete|failed`, `error`;
/// no `[DONE]`) and as llama.cpp's server writes them (no `output_index` or
/// `sequence_number`; `model` and `usage` only in `response.completed`).
@Suite struct ResponsesDecoderTests {
    func decode(_ body: String, cuts: [Int] = [], contentType: String = "text/event-stream") throws -> [ReplyEvent] {
        try decodeReply(ResponsesAPI().makeDecoder(), body, cuts: cuts, contentType: contentType)
    }

    static func event(_ data: String) -> String {
        let type = data.split(separator: "\"")[3]
        return "event: \(type)\ndata: \(data)\n\n"
    }

    static let stream = event(#"{"type":"response.created","sequence_number":0,"response":{"id":"resp_67c","object":"response","status":"in_progress","output":[]}}"#)
        + event(#"{"type":"response.in_progress","sequence_number":1,"response":{"id":"resp_67c","object":"response","status":"in_progress"}}"#)
        + event(#"{"type":"response.output_item.added","output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[]}}"#)
        + event(#"{"type":"response.reasoning_text.delta","item_id":"rs_1","output_index":0,"content_index":0,"delta":"think "}"#)
        + event(#"{"type":"response.reasoning_summary_text.delta","item_id":"rs_1","output_index":0,"summary_index":0,"delta":"briefly"}"#)
        + event(#"{"type":"response.output_item.added","output_index":1,"item":{"id":"msg_1","type":"message","role":"assistant","content":[]}}"#)
        + event(#"{"type":"response.content_part.added","item_id":"msg_1","part":{"type":"output_text","text":""}}"#)
        + event(#"{"type":"response.output_text.delta","item_id":"msg_1","output_index":1,"content_index":0,"delta":"Héllo"}"#)
        + "event: response.output_text.delta\r\ndata: {\"type\":\"response.output_text.delta\",\"item_id\":\"msg_1\",\"delta\":\" 😀\"}\r\n\r\n"
        + event(#"{"type":"response.output_text.done","item_id":"msg_1","text":"Héllo 😀"}"#)
        + event(#"{"type":"response.output_item.added","output_index":2,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"get_time","arguments":"","status":"in_progress"}}"#)
        + event(#"{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":2,"delta":"{\"tz\":"}"#)
        + event(#"{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":2,"delta":"\"UTC\"}"}"#)
        + event(#"{"type":"response.output_item.done","output_index":2,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"get_time","arguments":"{\"tz\":\"UTC\"}","status":"completed"}}"#)
        + event(#"{"type":"response.completed","response":{"id":"resp_67c","object":"response","status":"completed","model":"gpt-5","output":[],"usage":{"input_tokens":19,"output_tokens":5,"total_tokens":24}}}"#)

    @Test func decodesReasoningTextFunctionCallsUsageAndTheEnd() throws {
        let events = ReplyEvent.coalesced(try decode(Self.stream))
        #expect(events == [
            .backendMessageID("resp_67c"), .reasoning("think briefly"), .text("Héllo 😀"),
            .toolCall(ToolCall(id: "call_1", name: "get_time", arguments: #"{"tz":"UTC"}"#)),
            .model("gpt-5"), .usage(Usage(promptTokens: 19, completionTokens: 5, totalTokens: 24)),
            .finished(reason: "tool_calls"),
        ])
    }

    @Test func anyChunkingGivesTheSameEvents() throws {
        try expectSameEventsAnyChunking({ ResponsesAPI().makeDecoder() }, Self.stream)
    }

    @Test func anIncompleteResponseEndsWithItsReason() throws {
        let body = Self.event(#"{"type":"response.output_text.delta","delta":"cut"}"#)
            + Self.event(#"{"type":"response.incomplete","response":{"id":"r","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"}}}"#)
        #expect(try decode(body) == [.text("cut"), .backendMessageID("r"), .notice(ResponsesEventReader.cutOffNote), .finished(reason: "length")])
        let filtered = Self.event(#"{"type":"response.incomplete","response":{"status":"incomplete","incomplete_details":{"reason":"content_filter"}}}"#)
        #expect(try decode(filtered).last == .finished(reason: "content_filter"))
    }

    @Test func aFailedResponseAndAnErrorEventFailWithTheirMessages() {
        let failed = Self.event(#"{"type":"response.failed","response":{"id":"r","status":"failed","error":{"code":"server_error","message":"The model crashed"}}}"#)
        #expect(throws: HarkError.backend("The model crashed")) { try decode(failed) }
        let error = Self.event(#"{"type":"error","code":"rate_limit_exceeded","message":"Slow down","param":null}"#)
        #expect(throws: HarkError.backend("Slow down")) { try decode(error) }
    }

    @Test func anEndBeforeTheResponseEndsIsACutReply() {
        #expect(throws: HarkError.protocolViolation("the stream ended before response.completed; the reply may be cut short")) {
            try decode(Self.event(#"{"type":"response.output_text.delta","delta":"cut"}"#))
        }
    }

    /// No `[DONE]` in this API, but one from a proxy, wherever it comes, does no harm.
    @Test func aDoneLineIsIgnored() throws {
        let body = Self.event(#"{"type":"response.output_text.delta","delta":"a"}"#) + "data: [DONE]\n\n"
            + Self.event(#"{"type":"response.completed","response":{"status":"completed"}}"#)
        #expect(try decode(body) == [.text("a"), .finished(reason: "stop")])
    }

    @Test func aWholeResponseIsReadWhenTheServerDoesNotStream() throws {
        let body = #"{"id":"resp_2","object":"response","status":"completed","model":"m","output":[{"type":"reasoning","summary":[{"type":"summary_text","text":"hmm"}]},{"type":"message","role":"assistant","content":[{"type":"output_text","text":"whole"}]}],"usage":{"input_tokens":3,"output_tokens":2,"total_tokens":5}}"#
        #expect(try decode(body, contentType: "application/json") == [
            .backendMessageID("resp_2"), .model("m"), .reasoning("hmm"), .text("whole"),
            .usage(Usage(promptTokens: 3, completionTokens: 2, totalTokens: 5)), .finished(reason: "stop"),
        ])
        #expect(throws: HarkError.backend("Invalid model")) {
            try decode(#"{"error":{"message":"Invalid model","type":"invalid_request_error"}}"#, contentType: "application/json")
        }
    }
}
