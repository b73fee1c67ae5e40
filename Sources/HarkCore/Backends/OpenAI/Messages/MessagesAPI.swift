/// Anthropic's Messages API (`POST …/v1/messages`), spoken by Claude and served by llama.cpp,
/// Ollama and LiteLLM: the system prompt apart, the turns as `messages`, `max_tokens` required,
/// the key in `x-api-key` with an `anthropic-version`.
///
/// Request shape: Anthropic's docs, "Messages" and "Streaming Messages"
/// (`curl …/v1/messages --header "anthropic-version: 2023-06-01" --header "x-api-key: …"
/// --data '{"model": …, "messages": [{"role": "user", "content": "Hello"}], "max_tokens": 256,
/// "stream": true}'`). llama.cpp reads the same body (ggml-org/llama.cpp
/// tools/server/server-common.cpp, convert_anthropic_to_oai: `system` as a string or text
/// blocks, image blocks with a base64 `source`, `max_tokens` 4096 when absent).
struct MessagesAPI: ModelAPI {
    var name: String { "messages" }
    var path: String { "/messages" }
    static let version = "2023-06-01"
    /// Anthropic requires `max_tokens`; this is sent when the session sets none.
    static let defaultMaxTokens = 4096

    func body(for prompt: ModelPrompt) -> JSON {
        var messages: [JSON] = []
        for turn in prompt.turns {
            if !turn.tools.isEmpty {
                messages += MessagesTools.messages(for: turn)
                continue
            }
            messages.append(["role": turn.role == .assistant ? "assistant" : "user", "content": .string(turn.text)])
        }
        messages.append(["role": "user", "content": Self.content(prompt)])
        for round in prompt.rounds { messages += MessagesTools.messages(for: round) }
        var body: [String: JSON] = ["messages": .array(messages), "stream": true,
                                    "max_tokens": .number(Double(prompt.maxTokens ?? Self.defaultMaxTokens))]
        if let tools = prompt.tools, !tools.isEmpty { body["tools"] = MessagesTools.tools(tools) }
        if let system = prompt.system { body["system"] = .string(system) }
        if let model = prompt.model { body["model"] = .string(model) }
        if let temperature = prompt.temperature { body["temperature"] = .number(temperature) }
        return .object(body)
    }

    /// The user's text, and images as base64 `image` blocks.
    static func content(_ prompt: ModelPrompt) -> JSON {
        let (text, images) = prompt.content
        guard !images.isEmpty else { return .string(text) }
        return .array(images.map { image in
            ["type": "image", "source": ["type": "base64", "media_type": .string(image.mimeType), "data": .string(image.base64)]]
        } + [["type": "text", "text": .string(text)]])
    }

    /// `auth = bearer:…` is sent as Anthropic's `x-api-key`; any other header as written.
    func headers(auth: [(name: String, value: String)]) -> [(name: String, value: String)] {
        let key = auth.map { header -> (name: String, value: String) in
            if header.name == "Authorization", header.value.hasPrefix("Bearer ") {
                return ("x-api-key", String(header.value.dropFirst("Bearer ".count)))
            }
            return header
        }
        return [("Accept", "text/event-stream"), ("anthropic-version", Self.version)] + key
    }

    func makeDecoder() -> JSONEventStreamDecoder<MessagesEventReader> { JSONEventStreamDecoder(MessagesEventReader()) }
}
