/// Reads Anthropic's Messages stream. The event flow, as Anthropic's docs ("Streaming
/// Messages") list it: `message_start` (a Message with empty content and the input usage);
/// per content block a `content_block_start`, `content_block_delta`s and a
/// `content_block_stop`; one or more `message_delta` with `stop_reason` and the *cumulative*
/// usage; a final `message_stop`; `ping`s anywhere; an `error` event mid-stream
/// (`{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}`);
/// unknown event types "handled gracefully". Deltas: `text_delta` (`text`), `thinking_delta`
/// (`thinking`), `signature_delta`, `input_json_delta` (`partial_json`: a tool_use block's
/// input as partial JSON strings, whole at `content_block_stop`).
///
/// llama.cpp's server sends the same (ggml-org/llama.cpp tools/server/server-task.cpp,
/// `to_json_anthropic_stream`: `stop_reason = "max_tokens"` unless it stopped on a word or EOS,
/// then `"end_turn"`, or `"tool_use"` with tool calls; thinking block 0, then text, then
/// tool_use blocks), and `message_start` usage split into `input_tokens` and
/// `cache_read_input_tokens`.
struct MessagesEventReader: JSONEventReader {
    /// tool_use blocks being written, by index: their id, name and input so far.
    private var toolUses: [Int: ToolCall] = [:]
    private var promptTokens: Int?
    private var completionTokens: Int?
    private var stopReason: String?
    private var identity = ReplyIdentity()
    private(set) var isDone = false

    mutating func read(_ type: String, _ event: JSON, into replies: inout [ReplyEvent]) throws {
        switch type {
        case "message_start":
            guard let message = event["message"] else { return }
            identity.note(message, into: &replies)
            count(message["usage"])
        case "content_block_start":
            guard let block = event["content_block"], let index = event["index"]?.int else { return }
            switch block["type"]?.string {
            case "text": replies.append(text: block["text"]?.string)
            case "thinking": replies.append(reasoning: block["thinking"]?.string)
            case "tool_use":
                toolUses[index] = ToolCall(id: block["id"]?.string ?? "", name: block["name"]?.string ?? "", arguments: "")
            default: break
            }
        case "content_block_delta":
            guard let delta = event["delta"] else { return }
            switch delta["type"]?.string {
            case "text_delta": replies.append(text: delta["text"]?.string)
            case "thinking_delta": replies.append(reasoning: delta["thinking"]?.string)
            case "input_json_delta":
                if let index = event["index"]?.int, let part = delta["partial_json"]?.string { toolUses[index]?.arguments += part }
            default: break  // signature_delta, citations_delta
            }
        case "content_block_stop":
            if let index = event["index"]?.int, var call = toolUses.removeValue(forKey: index) {
                if call.arguments.isEmpty { call.arguments = "{}" }
                replies.append(.toolCall(call))
            }
        case "message_delta":
            if let reason = event["delta"]?["stop_reason"]?.string { stopReason = reason }
            count(event["usage"])
        case "message_stop":
            end(into: &replies)
        case "error":
            throw HarkError.backend(ServerMessage.fromJSON(event) ?? "the model reported an error")
        default:
            break  // ping, and event types added later
        }
    }

    /// A whole Message: its content blocks in order, its stop reason and usage.
    mutating func readWhole(_ reply: JSON, into replies: inout [ReplyEvent]) throws {
        if reply["type"]?.string == "error" || (reply["content"] == nil && reply["error"] != nil) {
            throw HarkError.backend(ServerMessage.fromJSON(reply) ?? "the model reported an error")
        }
        identity.note(reply, into: &replies)
        for block in reply["content"]?.array ?? [] {
            switch block["type"]?.string {
            case "text": replies.append(text: block["text"]?.string)
            case "thinking": replies.append(reasoning: block["thinking"]?.string)
            case "tool_use":
                let input = block["input"].map { $0.encoded() } ?? "{}"
                replies.append(.toolCall(ToolCall(id: block["id"]?.string ?? "", name: block["name"]?.string ?? "", arguments: input)))
            default: break
            }
        }
        stopReason = reply["stop_reason"]?.string
        count(reply["usage"])
        end(into: &replies)
    }

    func finish(into replies: inout [ReplyEvent]) throws {
        guard isDone else {
            throw HarkError.protocolViolation("the stream ended before message_stop; the reply may be cut short")
        }
    }

    /// Usage as the API reports it: input tokens apart from those read from or written to the
    /// prompt cache, and output tokens counted so far.
    private mutating func count(_ usage: JSON?) {
        guard let usage, usage.object != nil else { return }
        let input = ["input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"].compactMap { usage[$0]?.int }
        if !input.isEmpty { promptTokens = input.reduce(0, +) }
        if let output = usage["output_tokens"]?.int { completionTokens = output }
    }

    private mutating func end(into replies: inout [ReplyEvent]) {
        isDone = true
        if promptTokens != nil || completionTokens != nil {
            let total = promptTokens.flatMap { prompt in completionTokens.map { prompt + $0 } }
            replies.append(.usage(Usage(promptTokens: promptTokens, completionTokens: completionTokens, totalTokens: total)))
        }
        if stopReason == "max_tokens" { replies.append(.notice(Self.cutOffNote)) }
        replies.append(.finished(reason: Self.finishReason(stopReason)))
    }

    /// As with Chat Completions: a reply cut by the token limit says so, in a note kept with it.
    static let cutOffNote = "cut off at the token limit (stop_reason max_tokens); /continue asks for the rest"

    /// Anthropic's stop reasons in the words the other APIs use (`--json`'s done, /continue).
    static func finishReason(_ stopReason: String?) -> String? {
        switch stopReason {
        case "end_turn", "stop_sequence": return "stop"
        case "max_tokens": return "length"
        case "tool_use": return "tool_calls"
        default: return stopReason
        }
    }
}
