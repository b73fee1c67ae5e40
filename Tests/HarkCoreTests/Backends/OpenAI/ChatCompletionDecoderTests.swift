import Testing
@testable import HarkCore

@Suite struct ChatCompletionDecoderTests {
    func decode(_ body: String, cuts: [Int] = [], contentType: String = "text/event-stream") throws -> [ReplyEvent] {
        let bytes = Array(body.utf8)
        var decoder = ChatCompletionDecoder()
        try decoder.start(head: HTTPResponseHead(status: 200, headers: ["content-type": contentType]))
        var events: [ReplyEvent] = []
        var start = 0
        for cut in cuts.sorted() + [bytes.count] where cut >= start {
            events += try decoder.feed(Array(bytes[start..<cut]))
            start = cut
        }
        return events + (try decoder.finish())
    }

    func text(_ events: [ReplyEvent]) -> String {
        events.compactMap { if case .text(let text) = $0 { return text } else { return nil } }.joined()
    }

    static let stream = "\u{FEFF}: keep-alive\r\n\r\n"
        + "data: {\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\r\n\r\n"
        + "data: {\"choices\":[{\"delta\":{\"reasoning_content\":\"hmm \"}}]}\r\n\r\n"
        + "data: {\"choices\":[{\"delta\":{\"content\":\"Héllo\"}}]}\n\n"
        + "data: {\"choices\":[{\"delta\":{\"content\":\" 😀\"},\"finish_reason\":\"stop\"}]}\r\r"
        + "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":2,\"total_tokens\":9}}\n\n"
        + "data: [DONE]\n\n"

    @Test func decodesTextReasoningUsageAndFinishReason() throws {
        let events = try decode(Self.stream)
        #expect(text(events) == "Héllo 😀")
        #expect(events.contains(.reasoning("hmm ")))
        #expect(events.contains(.model("m")))
        #expect(events.contains(.usage(Usage(promptTokens: 7, completionTokens: 2, totalTokens: 9))))
        #expect(events.last == .finished(reason: "stop"))
    }

    /// The same events in the same order, whatever the cut; text read in one feed comes out as
    /// one event, so text is compared once adjacent pieces are joined.
    @Test func anyChunkingGivesTheSameEvents() throws {
        let whole = ReplyEvent.coalesced(try decode(Self.stream))
        let count = Self.stream.utf8.count
        for cut in 0...count {
            #expect(ReplyEvent.coalesced(try decode(Self.stream, cuts: [cut])) == whole, "cut at \(cut)")
        }
    }

    @Test func multiLineDataJoinsWithNewline() throws {
        let body = "data: {\"choices\":[{\"delta\":\ndata: {\"content\":\"x\"}}]}\n\ndata: [DONE]\n\n"
        #expect(text(try decode(body)) == "x")
    }

    @Test func ollamaReasoningFieldIsReasoning() throws {
        let body = "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"\",\"reasoning\":\"think\"}}]}\n\ndata: [DONE]\n\n"
        #expect(try decode(body).contains(.reasoning("think")))
    }

    @Test func midStreamErrorFailsWithTheServersMessage() {
        let body = "data: {\"choices\":[{\"delta\":{\"content\":\"par\"}}]}\n\ndata: {\"error\":{\"message\":\"context length exceeded\",\"type\":\"invalid_request_error\"}}\n\n"
        #expect(throws: HarkError.backend("context length exceeded")) { try decode(body) }
        #expect(throws: HarkError.backend("context length exceeded")) { try decode(body + "data: [DONE]\n\n") }
    }

    /// llama.cpp's server of 2024 and early 2025 (examples/server/server.cpp,
    /// handle_completions_impl): `[&](const json & error_data) { server_sent_event(sink,
    /// "error", error_data); }` then `data: [DONE]`, error_data being format_error_response's
    /// `{"code":500,"message":…,"type":"server_error"}`. An error, wherever the bytes are cut.
    @Test func llamaCppErrorFieldLineFailsTheReply() throws {
        let body = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"par\"},\"finish_reason\":null}]}\n\n"
            + "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"tial\"},\"finish_reason\":null}]}\n\n"
            + "error: {\"code\":500,\"message\":\"Input prompt is too big compared to KV size.\\nTry a larger context.\",\"type\":\"server_error\"}\n\n"
            + "data: [DONE]\n\n"
        let bytes = Array(body.utf8)
        for cut in 0...bytes.count {
            var decoder = ChatCompletionDecoder()
            var events: [ReplyEvent] = []
            #expect(throws: HarkError.backend("Input prompt is too big compared to KV size. Try a larger context.")) {
                try decoder.start(head: HTTPResponseHead(status: 200, headers: ["content-type": "text/event-stream"]))
                try decoder.feed(Array(bytes[..<cut]), into: &events)
                try decoder.feed(Array(bytes[cut...]), into: &events)
                try decoder.finish(into: &events)
            }
            #expect(text(events) == "partial", "cut at \(cut)")
        }
    }

    /// vLLM up to 0.3 (vllm/entrypoints/openai/serving_engine.py, create_streaming_error_response:
    /// `json.dumps(self.create_error_response(...).model_dump())`, an ErrorResponse with
    /// `object: "error"`) sent the error unwrapped, then `data: [DONE]`.
    @Test func vllmUnwrappedErrorChunkFailsTheReply() {
        let body = "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"par\"},\"finish_reason\":null}]}\n\n"
            + "data: {\"object\":\"error\",\"message\":\"This model's maximum context length is 2048 tokens.\",\"type\":\"BadRequestError\",\"param\":null,\"code\":400}\n\n"
            + "data: [DONE]\n\n"
        #expect(throws: HarkError.backend("This model's maximum context length is 2048 tokens.")) { try decode(body) }
    }

    /// `finish_reason: "length"`: the reply was cut by max_tokens; it ends normally, with a note
    /// saying so and that /continue goes on.
    @Test func aReplyCutByTheTokenLimitSaysSo() throws {
        let body = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Once upon\"},\"finish_reason\":null}]}\n\n"
            + "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"length\"}]}\n\n"
            + "data: [DONE]\n\n"
        let events = ReplyEvent.coalesced(try decode(body))
        #expect(events == [.text("Once upon"), .notice(ChatCompletionDecoder.cutOffNote), .finished(reason: "length")])
        #expect(ChatCompletionDecoder.cutOffNote.contains("/continue"))
        let whole = #"{"choices":[{"message":{"content":"Once"},"finish_reason":"length"}]}"#
        #expect(try decode(whole, contentType: "application/json").suffix(2)
                == [.notice(ChatCompletionDecoder.cutOffNote), .finished(reason: "length")])
    }

    @Test func endWithoutDoneIsATruncatedReply() {
        #expect(throws: HarkError.self) { try decode("data: {\"choices\":[{\"delta\":{\"content\":\"cut\"}}]}\n\n") }
    }

    @Test func nonJSONEventIsAProtocolError() {
        #expect(throws: HarkError.self) { try decode("data: <html>\n\n") }
    }

    @Test func aWholeCompletionIsAcceptedWhenTheServerDoesNotStream() throws {
        let body = #"{"model":"m","choices":[{"message":{"role":"assistant","content":"whole"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}"#
        let events = try decode(body, contentType: "application/json")
        #expect(text(events) == "whole")
        #expect(events.last == .finished(reason: "stop"))
    }

    @Test func htmlInsteadOfAStreamIsRejected() {
        #expect(throws: HarkError.self) { try decode("<html></html>", contentType: "text/html") }
    }
}
