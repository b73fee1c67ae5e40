/// A server's "the prompt does not fit the model's context" error, in the wordings of the
/// servers hark talks to, turned into one line that says what to do. Each comes as a 400
/// before the stream (llama.cpp up to early 2025 sent it as a mid-stream `error` event):
///
/// - llama.cpp: `{"error":{"code":400,"message":"the request exceeds the available context
///   size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":…,"n_ctx":…}}`;
///   newer builds say "request (4476 tokens) exceeds the available context size (4096 tokens),
///   try increasing it" (ggml-org/llama.cpp tools/server, ERROR_TYPE_EXCEED_CONTEXT_SIZE).
/// - vLLM: `{"object":"error","message":"This model's maximum context length is 2048 tokens.
///   However, you requested 2100 tokens (2000 in the messages, 100 in the completion). Please
///   reduce the length of the messages or completion.","type":"BadRequestError","code":400}`
///   (vllm-project/vllm vllm/entrypoints/openai/serving_engine.py, `_validate_input`).
/// - OpenAI: `{"error":{"message":"This model's maximum context length is 4097 tokens. However,
///   your messages resulted in 4294 tokens. Please reduce the length of the messages.",
///   "type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`
///   (as reported in chathub-dev/chathub issue 126).
public enum ContextOverflow {
    static let wordings = ["exceeds the available context size", "exceed_context_size", "maximum context length",
                           "context_length_exceeded", "reduce the length of the messages"]

    /// The server's message when it is a context overflow.
    static func serverMessage(of error: Error) -> String? {
        let message: String?
        switch error as? HarkError {
        case .http(let status, _, let text)? where status == 400 || status == 413: message = text
        case .backend(let text)?: message = text
        default: message = nil
        }
        guard let message else { return nil }
        let lowered = message.lowercased()
        return wordings.contains { lowered.contains($0) } ? message : nil
    }

    /// The window the server names in its message: "context size (4096 tokens)", "maximum
    /// context length is 8192 tokens".
    static func window(in message: String) -> Int? {
        let lowered = message.lowercased()
        for marker in ["available context size (", "maximum context length is "] {
            guard let range = lowered.range(of: marker) else { continue }
            let digits = lowered[range.upperBound...].prefix { $0.isNumber }
            if let tokens = Int(digits), tokens > 0 { return tokens }
        }
        return nil
    }

    /// One line instead of the server's 400: the model's window when known, and what to do.
    /// `learned`: hark keeps within that window from now on, so a retry sends fewer turns.
    /// `messageAlone`: no earlier turn went with it, so only a shorter message fits.
    public static func error(session: String, window: Int?, learned: Bool, messageAlone: Bool) -> HarkError {
        let size = window.map { " of \($0) tokens" } ?? ""
        if messageAlone {
            return .backend("the message alone is longer than the model's context\(size): shorten it, "
                + "or start the server with a larger context")
        }
        let advice = learned ? "/retry sends fewer turns, /compact summarises the older ones"
            : "/compact summarises its older turns, or set context = TOKENS for \(session)"
        return .backend("the thread no longer fits the model's context\(size): " + advice)
    }
}
