/// OpenAI's Chat Completions (`POST …/chat/completions`), which llama.cpp's server, Ollama,
/// vLLM and the hosted APIs all speak: the turns as `messages`, the system prompt first.
struct ChatCompletionsAPI: ModelAPI {
    var name: String { "chat" }
    var path: String { "/chat/completions" }
    /// Off with `usage = off`, for a server that rejects `stream_options`.
    var asksForUsage = true

    func body(for prompt: ModelPrompt) -> JSON {
        var messages: [JSON] = []
        if let system = prompt.system { messages.append(["role": "system", "content": .string(system)]) }
        for turn in prompt.turns {
            if !turn.tools.isEmpty {
                messages += ChatCompletionTools.messages(for: turn)
                continue
            }
            messages.append(["role": .string(turn.role.rawValue), "content": .string(turn.text)])
        }
        messages.append(["role": "user", "content": Self.content(prompt)])
        for round in prompt.rounds { messages += ChatCompletionTools.messages(for: round) }
        var body: [String: JSON] = ["messages": .array(messages), "stream": true]
        if let tools = prompt.tools, !tools.isEmpty { body["tools"] = ChatCompletionTools.tools(tools) }
        if let model = prompt.model { body["model"] = .string(model) }
        if let temperature = prompt.temperature { body["temperature"] = .number(temperature) }
        if let maxTokens = prompt.maxTokens { body["max_tokens"] = .number(Double(maxTokens)) }
        if asksForUsage { body["stream_options"] = ["include_usage": true] }
        return .object(body)
    }

    /// The user's text, with images as data URLs (the vision format).
    static func content(_ prompt: ModelPrompt) -> JSON {
        let (text, images) = prompt.content
        guard !images.isEmpty else { return .string(text) }
        return .array([["type": "text", "text": .string(text)]] + images.map { image in
            ["type": "image_url", "image_url": ["url": .string("data:\(image.mimeType);base64,\(image.base64)")]]
        })
    }

    func headers(auth: [(name: String, value: String)]) -> [(name: String, value: String)] {
        [("Accept", "text/event-stream")] + auth
    }

    func makeDecoder() -> ChatCompletionDecoder { ChatCompletionDecoder() }
}
