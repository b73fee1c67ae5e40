/// Reads an OpenAI Responses stream. The events, as OpenAI's API reference lists them
/// ("Responses streaming events"): `response.created` and `response.in_progress` (the
/// Response so far: its id), `response.output_item.added|done`, `response.content_part.*`,
/// `response.output_text.delta` (`delta`), `response.refusal.delta`,
/// `response.reasoning_text.delta` and `response.reasoning_summary_text.delta` (`delta`),
/// `response.function_call_arguments.delta` (`item_id`, `delta`; the call's item, with
/// `call_id` and `name`, came in `output_item.added`), and one of `response.completed`,
/// `response.incomplete` (`incomplete_details.reason`, e.g. `max_output_tokens`) or
/// `response.failed` (`error`) at the end; an `error` event (`code`, `message`) when the
/// stream fails. No `data: [DONE]`.
///
/// llama.cpp's server sends the same names (ggml-org/llama.cpp tools/server/server-task.cpp:
/// `response.output_text.delta` with `item_id` and `delta`; a tool call as an
/// `response.output_item.added` function_call item with `call_id`, `name`, `arguments: ""`).
/// As the xllamacpp build of it answers here, it ends with `response.completed` even when
/// `max_output_tokens` cut the reply, and puts `model` and `usage` only in that last event.
struct ResponsesEventReader: JSONEventReader {
    /// Function calls being written, by item id.
    private var calls: [String: ToolCall] = [:]
    private var sawToolCall = false
    private var identity = ReplyIdentity()
    private(set) var isDone = false

    mutating func read(_ type: String, _ event: JSON, into replies: inout [ReplyEvent]) throws {
        switch type {
        case "response.created", "response.in_progress":
            if let response = event["response"] { identity.note(response, into: &replies) }
        case "response.output_text.delta", "response.refusal.delta":
            replies.append(text: event["delta"]?.string)
        case "response.reasoning_text.delta", "response.reasoning_summary_text.delta":
            replies.append(reasoning: event["delta"]?.string)
        case "response.output_item.added":
            if let item = event["item"], item["type"]?.string == "function_call", let id = item["id"]?.string {
                calls[id] = ToolCall(id: item["call_id"]?.string ?? id, name: item["name"]?.string ?? "",
                                     arguments: item["arguments"]?.string ?? "")
            }
        case "response.function_call_arguments.delta":
            if let id = event["item_id"]?.string, let delta = event["delta"]?.string { calls[id]?.arguments += delta }
        case "response.output_item.done":
            guard let item = event["item"], item["type"]?.string == "function_call" else { return }
            let gathered = item["id"]?.string.flatMap { calls.removeValue(forKey: $0) }
            call(item, gathered: gathered, into: &replies)
        case "response.completed", "response.incomplete":
            end(event["response"] ?? [:], into: &replies)
        case "response.failed":
            throw HarkError.backend(ServerMessage.fromJSON(event["response"] ?? [:]) ?? "the model reported a failure")
        case "error":
            throw HarkError.backend(ServerMessage.fromJSON(event) ?? event["message"]?.string ?? "the model reported an error")
        default:
            break  // content parts, text done, and event types added later
        }
    }

    /// A whole Response: its output items in order, then its end.
    mutating func readWhole(_ reply: JSON, into replies: inout [ReplyEvent]) throws {
        if reply["output"] == nil, reply["error"] != nil {
            throw HarkError.backend(ServerMessage.fromJSON(reply) ?? "the model reported an error")
        }
        if reply["status"]?.string == "failed" {
            throw HarkError.backend(ServerMessage.fromJSON(reply) ?? "the model reported a failure")
        }
        identity.note(reply, into: &replies)
        for item in reply["output"]?.array ?? [] {
            switch item["type"]?.string {
            case "message":
                for part in item["content"]?.array ?? [] {
                    replies.append(text: part["text"]?.string ?? part["refusal"]?.string)
                }
            case "reasoning":
                for part in (item["content"]?.array ?? []) + (item["summary"]?.array ?? []) {
                    replies.append(reasoning: part["text"]?.string)
                }
            case "function_call":
                call(item, gathered: nil, into: &replies)
            default: break
            }
        }
        end(reply, into: &replies)
    }

    func finish(into replies: inout [ReplyEvent]) throws {
        guard isDone else {
            throw HarkError.protocolViolation("the stream ended before response.completed; the reply may be cut short")
        }
    }

    private mutating func call(_ item: JSON, gathered: ToolCall?, into replies: inout [ReplyEvent]) {
        let id = item["call_id"]?.string ?? gathered?.id ?? item["id"]?.string ?? ""
        let arguments = item["arguments"]?.string ?? gathered?.arguments ?? ""
        sawToolCall = true
        replies.append(.toolCall(ToolCall(id: id, name: item["name"]?.string ?? gathered?.name ?? "",
                                          arguments: arguments.isEmpty ? "{}" : arguments)))
    }

    private mutating func end(_ response: JSON, into replies: inout [ReplyEvent]) {
        identity.note(response, into: &replies)
        isDone = true
        if let usage = response["usage"], usage.object != nil {
            replies.append(.usage(Usage(promptTokens: usage["input_tokens"]?.int, completionTokens: usage["output_tokens"]?.int,
                                        totalTokens: usage["total_tokens"]?.int)))
        }
        let reason = Self.finishReason(response, toolCalls: sawToolCall)
        if reason == "length" { replies.append(.notice(Self.cutOffNote)) }
        replies.append(.finished(reason: reason))
    }

    /// As with Chat Completions: a reply cut by the token limit says so, in a note kept with it.
    static let cutOffNote = "cut off at the token limit (response.incomplete, max_output_tokens); /continue asks for the rest"

    /// The end in the words the other APIs use: `length` when `max_output_tokens` cut it.
    static func finishReason(_ response: JSON, toolCalls: Bool) -> String? {
        if response["status"]?.string == "incomplete" || response["incomplete_details"]?["reason"] != nil {
            let reason = response["incomplete_details"]?["reason"]?.string
            return reason == "max_output_tokens" ? "length" : (reason ?? "incomplete")
        }
        return toolCalls ? "tool_calls" : "stop"
    }
}
