import FoundationEssentials
import Glibc

/// Any OpenAI-compatible chat completions endpoint: llama.cpp's server, Ollama, vLLM, hosted
/// APIs. The thread's earlier turns that fit the model's context go along as `messages`, so
/// the model has the context (ContextBudget decides which; see OpenAIBackend+Context).
public final class OpenAIBackend: Backend, BackendKind {
    public static let name = "openai"
    public static let summary = "an OpenAI-compatible /chat/completions endpoint"
    public static let settings: [SettingSpec] = [
        SettingSpec("url", "the API base, e.g. http://127.0.0.1:8080/v1", required: true),
        SettingSpec("auth", "bearer:SECRET for hosted APIs"),
        SettingSpec("model", "the model name the server expects"),
        SettingSpec("system", "a system prompt: text, or @FILE"),
        SettingSpec("temperature", "sampling temperature, e.g. 0.7", type: .nonNegative),
        SettingSpec("max_tokens", "the longest reply, in tokens (0: the server decides)", type: .count),
        SettingSpec("context", "the model's context window in tokens, e.g. 8192 or 8k (default: asked of the server, else 8192)"),
        SettingSpec("context_messages", "at most this many earlier messages sent (default: as many as fit the context)", type: .count),
        SettingSpec("usage", "on (default) asks the server for token counts", type: .flag),
    ]

    let session: SessionConfig
    let http: HTTPClient
    let auth: AuthHeaderCache
    let endpoint: String
    let systemPrompt: String?
    let temperature: Double?
    let maxTokens: Int?
    let context: ContextSettings
    let asksForUsage: Bool
    let timeouts: HTTPTimeouts
    /// The window the server told, once asked, and the threads told of turns left out.
    let contextState = Locked(ContextState())

    init(session: SessionConfig, environment: BackendEnvironment) throws {
        self.session = session
        http = environment.http
        auth = try session.authHeaders()
        endpoint = Self.endpoint(for: session.url ?? "")
        systemPrompt = try Self.systemPrompt(session["system"], paths: environment.paths, session: session.name)
        temperature = try session.double("temperature")
        maxTokens = try session.int("max_tokens")
        context = try ContextSettings(session)
        asksForUsage = try session.bool("usage") ?? true
        timeouts = try session.timeouts()
    }

    /// What is read of a thread for a message: `context_messages`, and text enough to fill
    /// the context window at eight bytes a token (more than any tokenizer's average, so no turn
    /// that could fit is left unread; the token budget then decides precisely what goes).
    public var historyWindow: TurnWindow {
        TurnWindow(messages: context.maxTurns ?? 10_000, bytes: (context.window ?? Self.largestAutoWindow) * 8)
    }

    /// The window assumed for reading when `context = auto`: the server's, asked later, is
    /// rarely larger.
    static let largestAutoWindow = 262_144

    public static func make(session: SessionConfig, environment: BackendEnvironment) throws -> any Backend {
        try OpenAIBackend(session: session, environment: environment)
    }

    /// `…/v1` → `…/v1/chat/completions`; a full endpoint URL is kept as is.
    static func endpoint(for base: String) -> String {
        var trimmed = base
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        return trimmed.hasSuffix("/chat/completions") ? trimmed : trimmed + "/chat/completions"
    }

    /// `@FILE` reads the prompt from a file (relative to the config folder or `prompts/`).
    static func systemPrompt(_ value: String?, paths: Paths, session: String) throws -> String? {
        guard let value, !value.isEmpty else { return nil }
        guard value.hasPrefix("@") else { return value }
        let path = paths.resolve(String(value.dropFirst()))
        guard let data = FileManager.default.contents(atPath: path) else {
            throw HarkError.usage("session \(session): cannot read the system prompt \(path)")
        }
        return PromptFile.body(of: String(decoding: data, as: UTF8.self))
    }

    public static var commands: [CommandSpec] { [compactCommand] }

    /// The chat completions body: the plan's system text and turns, then the message.
    func body(for request: ChatRequest, plan: ContextPlan) -> JSON {
        var messages: [JSON] = []
        if let system = plan.system { messages.append(["role": "system", "content": .string(system)]) }
        for turn in plan.turns {
            messages.append(["role": .string(turn.role.rawValue), "content": .string(turn.text)])
        }
        messages.append(["role": "user", "content": Self.content(request.text, attachments: request.attachments)])
        var body: [String: JSON] = ["messages": .array(messages), "stream": true]
        if let model = session.model { body["model"] = .string(model) }
        if let temperature { body["temperature"] = .number(temperature) }
        if let maxTokens { body["max_tokens"] = .number(Double(maxTokens)) }
        if asksForUsage { body["stream_options"] = ["include_usage": true] }
        return .object(body)
    }

    /// The user's text, with text files inlined and images as data URLs (the vision format).
    static func content(_ text: String, attachments: [Attachment]) -> JSON {
        guard !attachments.isEmpty else { return .string(text) }
        var parts: [JSON] = []
        var inlined = text
        for file in attachments {
            guard let data = FileManager.default.contents(atPath: file.path) else { continue }
            if file.mimeType.hasPrefix("image/") {
                parts.append(["type": "image_url",
                              "image_url": ["url": .string("data:\(file.mimeType);base64,\(data.base64EncodedString())")]])
            } else {
                inlined += "\n\n<file name=\"\(file.name)\">\n" + String(decoding: data, as: UTF8.self) + "\n</file>"
            }
        }
        if parts.isEmpty { return .string(inlined) }
        return .array([["type": "text", "text": .string(inlined)]] + parts)
    }

    public func send(_ request: ChatRequest) -> AsyncThrowingStream<ReplyEvent, Error> {
        sendPlanned(request) { [self] plan in
            HTTPReply.stream(http, { [self] in
                var outgoing = HTTPRequest.json(url: endpoint, body: body(for: request, plan: plan),
                                                headers: [("Accept", "text/event-stream")] + (try auth.headers()),
                                                timeouts: timeouts)
                outgoing.tls = try session.tls()
                return outgoing
            }, decoder: ChatCompletionDecoder())
        }
    }

    public func info() async -> [(String, String)] {
        var facts: [(String, String)] = []
        if let systemPrompt { facts.append(("system", String(systemPrompt.prefix(60)) + (systemPrompt.count > 60 ? "…" : ""))) }
        if let temperature { facts.append(("temperature", String(temperature))) }
        if let maxTokens { facts.append(("max tokens", String(maxTokens))) }
        facts.append(("context", await contextInfo()))
        return facts
    }
}

/// Prompt files may start with a `---` front matter block (name, description, variables);
/// what follows it is the prompt, with its variables' defaults filled in.
public enum PromptFile {
    public static func body(of text: String) -> String {
        PromptTemplate.parse(text, fallbackName: "").filled([:]).text
    }
}
