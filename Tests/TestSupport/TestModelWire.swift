import Foundation
import HarkCore

/// How TestOpenAIServer writes a scripted reply in each API a model session speaks. The shapes
/// are the real ones:
///
/// - Chat Completions: OpenAI's chunk objects (`choices[0].delta.content`, `reasoning_content`
///   as llama.cpp and vLLM send it, `tool_calls` deltas by `index`, `finish_reason`, a last
///   chunk with empty `choices` and `usage`, `data: [DONE]`), as llama.cpp writes them
///   (ggml-org/llama.cpp tools/server/server-task.cpp; seen from the xllamacpp build here).
/// - Anthropic Messages: the flow of Anthropic's docs ("Streaming Messages": `message_start`,
///   per block `content_block_start` / `content_block_delta` (`text_delta`, `thinking_delta`,
///   `input_json_delta`) / `content_block_stop`, `message_delta` with `stop_reason` and the
///   cumulative `usage`, `message_stop`, `ping`s, `event: error` with
///   `{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}`), each
///   event named on its `event:` line and in its data's `type`, as llama.cpp does too
///   (tools/server/server-task.cpp, `to_json_anthropic_stream`: thinking block 0, then text).
/// - OpenAI Responses: the events of OpenAI's API reference ("Responses streaming events":
///   `response.created`, `response.output_item.added`, `response.output_text.delta`,
///   `response.reasoning_text.delta`, `response.function_call_arguments.delta`,
///   `response.output_item.done`, then `response.completed` / `response.incomplete` (with
///   `incomplete_details.reason`) and no `[DONE]`; an `error` event with `code` and `message`).
struct TestModelWire {
    let api: TestOpenAIServer.API
    private var started = false
    private var openBlock: (index: Int, kind: String)?
    private var nextIndex = 0
    private var usage: (prompt: Int, completion: Int)?
    private var finishReason = "stop"

    init(api: TestOpenAIServer.API) {
        self.api = api
    }

    static func sse(_ json: JSON, event: String? = nil) -> String {
        (event.map { "event: \($0)\n" } ?? "") + "data: " + json.encoded() + "\n\n"
    }

    /// The bytes for one step (nil for the steps the server handles itself: raw, wait, close).
    mutating func write(_ step: TestOpenAIServer.Step) -> String {
        switch api {
        case .chat: return chat(step)
        case .messages, .responses:
            // The end carries these in both.
            if case .finish(let reason) = step { finishReason = reason }
            if case .usage(let prompt, let completion) = step { usage = (prompt, completion) }
            return start() + (api == .messages ? messages(step) : responses(step))
        }
    }

    // MARK: Chat Completions

    private mutating func chat(_ step: TestOpenAIServer.Step) -> String {
        switch step {
        case .text(let text): return TestOpenAIServer.chunk(["content": .string(text)])
        case .reasoning(let text): return TestOpenAIServer.chunk(["reasoning_content": .string(text)])
        case .toolCall(let id, let name, let pieces):
            let index = nextIndex
            nextIndex += 1
            var out = TestOpenAIServer.chunk(["tool_calls": [["index": .number(Double(index)), "id": .string(id), "type": "function",
                                                              "function": ["name": .string(name), "arguments": ""]]]])
            for piece in pieces {
                out += TestOpenAIServer.chunk(["tool_calls": [["index": .number(Double(index)), "function": ["arguments": .string(piece)]]]])
            }
            return out
        case .finish(let reason):
            let json: JSON = ["id": "c1", "object": "chat.completion.chunk", "model": "test-model",
                              "choices": [["index": 0, "delta": [:], "finish_reason": .string(reason)]]]
            return "data: " + json.encoded() + "\n\n"
        case .usage(let prompt, let completion):
            let usage: JSON = ["id": "c1", "object": "chat.completion.chunk", "choices": [],
                               "usage": ["prompt_tokens": .number(Double(prompt)), "completion_tokens": .number(Double(completion)),
                                         "total_tokens": .number(Double(prompt + completion))]]
            return "data: " + usage.encoded() + "\n\n"
        case .error(let message):
            return "data: " + JSON.object(["error": ["message": .string(message), "type": "server_error"]]).encoded() + "\n\n"
        case .done: return "data: [DONE]\n\n"
        case .raw, .wait, .close, .llamaError, .vllmError, .fail: return ""
        }
    }

    // MARK: Anthropic Messages

    private mutating func start() -> String {
        guard !started else { return "" }
        started = true
        switch api {
        case .messages:
            return Self.sse(["type": "message_start", "message": ["id": "msg_1", "type": "message", "role": "assistant", "content": [],
                                                                  "model": "test-model", "stop_reason": nil, "stop_sequence": nil,
                                                                  "usage": ["input_tokens": 0, "output_tokens": 1]]], event: "message_start")
                + Self.sse(["type": "ping"], event: "ping")
        case .responses:
            return Self.sse(["type": "response.created", "sequence_number": 0,
                             "response": ["id": "resp_1", "object": "response", "status": "in_progress", "model": "test-model", "output": []]],
                            event: "response.created")
        case .chat:
            return ""
        }
    }

    /// Closes the open block unless it is of `kind`; opens one of `kind` if none is open.
    private mutating func block(_ kind: String, start content: JSON) -> (String, Int) {
        if let open = openBlock, open.kind == kind { return ("", open.index) }
        var out = closeBlock()
        let index = nextIndex
        nextIndex += 1
        openBlock = (index, kind)
        out += Self.sse(["type": "content_block_start", "index": .number(Double(index)), "content_block": content], event: "content_block_start")
        return (out, index)
    }

    private mutating func closeBlock() -> String {
        guard let open = openBlock else { return "" }
        openBlock = nil
        return Self.sse(["type": "content_block_stop", "index": .number(Double(open.index))], event: "content_block_stop")
    }

    private func delta(_ index: Int, _ delta: JSON) -> String {
        Self.sse(["type": "content_block_delta", "index": .number(Double(index)), "delta": delta], event: "content_block_delta")
    }

    private mutating func messages(_ step: TestOpenAIServer.Step) -> String {
        switch step {
        case .text(let text):
            let (out, index) = block("text", start: ["type": "text", "text": ""])
            return out + delta(index, ["type": "text_delta", "text": .string(text)])
        case .reasoning(let text):
            let (out, index) = block("thinking", start: ["type": "thinking", "thinking": ""])
            return out + delta(index, ["type": "thinking_delta", "thinking": .string(text)])
                + delta(index, ["type": "signature_delta", "signature": "EqQBCgIYAhIM"])
        case .toolCall(let id, let name, let pieces):
            var out = closeBlock()
            let index = nextIndex
            nextIndex += 1
            out += Self.sse(["type": "content_block_start", "index": .number(Double(index)),
                             "content_block": ["type": "tool_use", "id": .string(id), "name": .string(name), "input": [:]]],
                            event: "content_block_start")
            for piece in pieces { out += delta(index, ["type": "input_json_delta", "partial_json": .string(piece)]) }
            return out + Self.sse(["type": "content_block_stop", "index": .number(Double(index))], event: "content_block_stop")
        case .finish, .usage:
            return ""
        case .error(let message):
            return Self.sse(["type": "error", "error": ["type": "overloaded_error", "message": .string(message)]], event: "error")
        case .done:
            let stop: JSON = switch finishReason {
            case "length": "max_tokens"
            case "tool_calls": "tool_use"
            default: "end_turn"
            }
            var delta: [String: JSON] = ["type": "message_delta", "delta": ["stop_reason": stop, "stop_sequence": nil]]
            if let usage {
                delta["usage"] = ["input_tokens": .number(Double(usage.prompt)), "output_tokens": .number(Double(usage.completion))]
            }
            return closeBlock() + Self.sse(.object(delta), event: "message_delta") + Self.sse(["type": "message_stop"], event: "message_stop")
        case .raw, .wait, .close, .llamaError, .vllmError, .fail: return ""
        }
    }

    // MARK: OpenAI Responses

    private mutating func responses(_ step: TestOpenAIServer.Step) -> String {
        switch step {
        case .text(let text):
            return Self.sse(["type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0, "content_index": 0,
                             "delta": .string(text)], event: "response.output_text.delta")
        case .reasoning(let text):
            return Self.sse(["type": "response.reasoning_text.delta", "item_id": "rs_1", "output_index": 0, "content_index": 0,
                             "delta": .string(text)], event: "response.reasoning_text.delta")
        case .toolCall(let id, let name, let pieces):
            let item = "fc_" + id
            var out = Self.sse(["type": "response.output_item.added", "output_index": 1,
                                "item": ["type": "function_call", "id": .string(item), "call_id": .string(id), "name": .string(name),
                                         "arguments": "", "status": "in_progress"]], event: "response.output_item.added")
            for piece in pieces {
                out += Self.sse(["type": "response.function_call_arguments.delta", "item_id": .string(item), "output_index": 1,
                                 "delta": .string(piece)], event: "response.function_call_arguments.delta")
            }
            return out + Self.sse(["type": "response.output_item.done", "output_index": 1,
                                   "item": ["type": "function_call", "id": .string(item), "call_id": .string(id), "name": .string(name),
                                            "arguments": .string(pieces.joined()), "status": "completed"]],
                                  event: "response.output_item.done")
        case .finish, .usage:
            return ""
        case .error(let message):
            return Self.sse(["type": "error", "code": "server_error", "message": .string(message), "param": nil], event: "error")
        case .done:
            let incomplete = finishReason == "length"
            var response: [String: JSON] = ["id": "resp_1", "object": "response", "model": "test-model",
                                            "status": incomplete ? "incomplete" : "completed",
                                            "incomplete_details": incomplete ? ["reason": "max_output_tokens"] : nil]
            if let usage {
                response["usage"] = ["input_tokens": .number(Double(usage.prompt)), "output_tokens": .number(Double(usage.completion)),
                                     "total_tokens": .number(Double(usage.prompt + usage.completion))]
            }
            let type = incomplete ? "response.incomplete" : "response.completed"
            return Self.sse(["type": .string(type), "response": .object(response)], event: type)
        case .raw, .wait, .close, .llamaError, .vllmError, .fail: return ""
        }
    }
}
