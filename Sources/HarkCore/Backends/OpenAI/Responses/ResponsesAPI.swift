/// OpenAI's Responses API (`POST …/v1/responses`), OpenAI's default for reasoning models and
/// served by llama.cpp and Ollama: the system prompt as `instructions`, the turns as typed
/// `input` items, `max_output_tokens`; with `previous_response = on` only the new message and
/// the last reply's id (`previous_response_id`), the server keeping the conversation.
///
/// Every input item names its type: llama.cpp turns them into chat messages and refuses an
/// untyped assistant item ("Cannot determine type of 'item'"; ggml-org/llama.cpp
/// tools/server/server-common.cpp, convert_responses_to_chatcmpl: an assistant item needs
/// `"type": "message"` and `output_text` parts; user parts are `input_text`, `input_image`).
struct ResponsesAPI: ModelAPI {
    var name: String { "responses" }
    var path: String { "/responses" }

    func body(for prompt: ModelPrompt) -> JSON {
        var input: [JSON] = []
        for turn in prompt.turns {
            if !turn.tools.isEmpty {
                input += ResponsesTools.items(for: turn)
                continue
            }
            let assistant = turn.role == .assistant
            input.append(["type": "message", "role": assistant ? "assistant" : "user",
                          "content": [["type": assistant ? "output_text" : "input_text", "text": .string(turn.text)]]])
        }
        input.append(["type": "message", "role": "user", "content": .array(Self.content(prompt))])
        for round in prompt.rounds { input += ResponsesTools.items(for: round) }
        var body: [String: JSON] = ["input": .array(input), "stream": true]
        if let tools = prompt.tools, !tools.isEmpty { body["tools"] = ResponsesTools.tools(tools) }
        if let system = prompt.system { body["instructions"] = .string(system) }
        if let model = prompt.model { body["model"] = .string(model) }
        if let temperature = prompt.temperature { body["temperature"] = .number(temperature) }
        if let maxTokens = prompt.maxTokens { body["max_output_tokens"] = .number(Double(maxTokens)) }
        if let previous = prompt.previousResponseID { body["previous_response_id"] = .string(previous) }
        return .object(body)
    }

    /// The user's text and images as input parts.
    static func content(_ prompt: ModelPrompt) -> [JSON] {
        let (text, images) = prompt.content
        return [["type": "input_text", "text": .string(text)]] + images.map { image in
            ["type": "input_image", "image_url": .string("data:\(image.mimeType);base64,\(image.base64)")]
        }
    }

    func headers(auth: [(name: String, value: String)]) -> [(name: String, value: String)] {
        [("Accept", "text/event-stream")] + auth
    }

    func makeDecoder() -> JSONEventStreamDecoder<ResponsesEventReader> { JSONEventStreamDecoder(ResponsesEventReader()) }
}
