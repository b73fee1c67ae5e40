import FoundationEssentials
import Glibc

/// A model's session: any OpenAI-compatible server (llama.cpp's, Ollama, vLLM, hosted APIs),
/// in the API its `api` setting names: Chat Completions, Anthropic's Messages or OpenAI's
/// Responses (each in its own folder). The thread's earlier turns that fit the model's context
/// go along (ContextBudget decides which; see OpenAIBackend+Context); `serve = …` runs
/// llama.cpp's server for it; `mcp = …` offers MCP tools (ToolLoop).
public final class OpenAIBackend: Backend, BackendKind {
    public static let name = "openai"
    public static let summary = "a model's server: OpenAI Chat Completions, Anthropic Messages or OpenAI Responses"
    public static let settings: [SettingSpec] = [
        SettingSpec("url", "the API base, e.g. http://127.0.0.1:8080/v1 (required unless serve is set)"),
        SettingSpec("api", "chat (default: /chat/completions), messages (Anthropic) or responses (OpenAI Responses)"),
        SettingSpec("auth", "bearer:SECRET for hosted APIs (sent as x-api-key with api = messages)"),
        SettingSpec("model", "the model name the server expects"),
        SettingSpec("system", "a system prompt: text, or @FILE"),
        SettingSpec("temperature", "sampling temperature, e.g. 0.7", type: .nonNegative),
        SettingSpec("max_tokens", "the longest reply, in tokens (0: the server decides)", type: .count),
        SettingSpec("context", "the model's context window in tokens, e.g. 8192 or 8k (default: asked of the server, else 8192; "
                    + "serve_context for a served model)"),
        SettingSpec("context_messages", "at most this many earlier messages sent (default: as many as fit the context)", type: .count),
        SettingSpec("usage", "on (default) asks the server for token counts", type: .flag),
        SettingSpec("mcp", "MCP servers whose tools the model may call: names of [mcp NAME] sections"),
        SettingSpec("allow", "tools that run without asking: SERVER, SERVER.TOOL or *"),
        SettingSpec("tool_rounds", "how many rounds of tool calls one reply may make (default 10)", type: .positiveCount),
        SettingSpec("think", "off hides the model's reasoning (default on: shown dim)", type: .flag),
        SettingSpec("previous_response", "on sends only the new message and the last reply's id (api = responses)", type: .flag),
        SettingSpec("serve", "a .gguf file (or smollm2) that hark runs with llama.cpp's server"),
        SettingSpec("serve_context", "the served model's context size in tokens (default 4096)", type: .count),
        SettingSpec("serve_threads", "threads the served model uses (default: llama.cpp's choice; 1 on a busy machine)", type: .count),
    ]
    public static let commands: [CommandSpec] = [
        CommandSpec("model", [.optional("NAME", .dynamic("models"))],
                    "list the server's models, or switch this session to one (this run)", group: "openai",
                    options: [OptionSpec(["--save"], nil, "keep it: write model = NAME to the config")],
                    run: handler(OpenAIBackend.modelCommand)),
        CommandSpec("think", [.optionalChoice(["on", "off"])], "show or hide the model's reasoning (this run)",
                    group: "openai", options: [OptionSpec(["--save"], nil, "keep it: write think = on|off to the config")],
                    run: handler(OpenAIBackend.thinkCommand)),
        compactCommand,
    ]

    let session: SessionConfig
    let http: HTTPClient
    let auth: AuthHeaderCache
    let api: any ModelAPI
    /// The url's API base; nil when a served model's is used.
    let fixedBase: String?
    let server: LocalModelServer?
    let history: SessionHistory?
    let systemPrompt: String?
    let temperature: Double?
    let maxTokens: Int?
    let context: ContextSettings
    let sendsPreviousResponse: Bool
    let timeouts: HTTPTimeouts
    /// MCP: the servers named by `mcp`, where they run, and what runs without asking.
    let toolServers: [String]
    let toolHost: ToolHost?
    let toolAllows: [String]
    let toolRounds: Int
    let state: Locked<State>
    /// The window the server told, once asked, and the threads told of turns left out.
    let contextState = Locked(ContextState())
    /// Whether the server answered /embeddings (OpenAIBackend+Embeddings); nil until asked.
    let embeddingsOffered = Locked<Bool?>(nil)

    /// What `/model` and `/think` change for this run, and the models last listed (for Tab).
    struct State {
        var model: String?
        var showsReasoning: Bool
        var listedModels: [String] = []
    }

    init(session: SessionConfig, environment: BackendEnvironment) throws {
        self.session = session
        http = environment.http
        auth = try session.authHeaders()
        var api = try ModelAPIs.named(session["api"], session: session.name)
        if var chat = api as? ChatCompletionsAPI {
            chat.asksForUsage = try session.bool("usage") ?? true
            api = chat
        }
        self.api = api
        if let serve = session["serve"] {
            let model = try ServedModel.resolve(serve, session: session.name, paths: environment.paths,
                                                contextSize: try session.int("serve_context") ?? 4096,
                                                threads: try session.int("serve_threads"))
            server = LocalModelServer(session: session.name, model: model, paths: environment.paths, http: http)
            fixedBase = nil
        } else if let url = session.url {
            server = nil
            fixedBase = ModelAPIs.base(of: url)
        } else {
            throw HarkError.missingSetting(session: session.name, what: "url (the API base, e.g. http://127.0.0.1:8080/v1) "
                + "or serve (a .gguf file hark runs with llama.cpp's server)")
        }
        history = environment.history(of: session.name)
        systemPrompt = try Self.systemPrompt(session["system"], paths: environment.paths, session: session.name)
        temperature = try session.double("temperature")
        maxTokens = try session.int("max_tokens")
        var context = try ContextSettings(session)
        // A served model's window is the one hark started it with.
        if let server, context.window == nil { context.window = server.model.contextSize }
        self.context = context
        sendsPreviousResponse = try session.bool("previous_response") ?? false
        timeouts = try session.timeouts()
        state = Locked(State(model: session.model ?? server?.model.name, showsReasoning: try session.bool("think") ?? true))
        toolServers = Self.words(session["mcp"])
        toolHost = environment.tools
        toolAllows = Self.words(session["allow"])
        toolRounds = max(1, try session.int("tool_rounds") ?? 10)
    }

    static func words(_ value: String?) -> [String] {
        (value ?? "").split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
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

    /// `@FILE` reads the prompt from a file (relative to the config folder or `prompts/`).
    static func systemPrompt(_ value: String?, paths: Paths, session: String) throws -> String? {
        guard let value, !value.isEmpty else { return nil }
        guard value.hasPrefix("@") else { return value }
        let path = paths.resolve(String(value.dropFirst()))
        guard let data = FileManager.default.contents(atPath: path) else {
            throw HarkError.badSetting(session: session, problem: "cannot read the system prompt \(path)")
        }
        return PromptFile.body(of: String(decoding: data, as: UTF8.self))
    }

    var model: String? { state.read { $0.model } }

    /// What goes to the model for this message, whatever the API: the plan's system text and
    /// turns (starting on one of the user's, as Anthropic's API wants), then the message.
    func prompt(for request: ChatRequest, plan: ContextPlan, files: [ModelFile] = []) -> ModelPrompt {
        var prompt = ModelPrompt(model: model, system: plan.system,
                                 turns: ModelPrompt.turnsToSend(plan.turns, limit: plan.turns.count),
                                 text: request.text, files: files,
                                 temperature: temperature, maxTokens: maxTokens)
        if sendsPreviousResponse, api is ResponsesAPI, let previous = previousResponseID(in: request.thread) {
            prompt.previousResponseID = previous
            prompt.turns = []
        }
        return prompt
    }

    /// The server's id of the thread's last reply, when it came whole from the Responses API
    /// (`resp_…`): the server has the conversation up to it.
    func previousResponseID(in thread: ChatThread) -> String? {
        guard let reply = try? history?.messages(threadID: thread.id, limit: 2).last(where: { $0.role == .assistant }),
              reply.status == .complete, let id = reply.backendID, !id.isEmpty else { return nil }
        return id
    }

    func request(_ body: JSON, base: String) throws -> HTTPRequest {
        var outgoing = HTTPRequest.json(url: base + api.path, body: body, headers: api.headers(auth: try auth.headers()),
                                        timeouts: timeouts)
        outgoing.tls = try session.tls()
        return outgoing
    }

    /// The API base: the url's, or the served model's once it runs (started here if need be).
    func base() async throws -> String {
        if let fixedBase { return fixedBase }
        return try await server!.base()
    }

    public func send(_ request: ChatRequest) -> AsyncThrowingStream<ReplyEvent, Error> {
        sendPlanned(request) { [self] plan, files in
            let prompt = prompt(for: request, plan: plan, files: files)
            // A summary (/compact) is asked without tools: it is the model's own text.
            guard let toolHost, !toolServers.isEmpty, request.purpose != .summary else { return stream(prompt) }
            return ToolLoop(host: toolHost, servers: toolServers, sessionAllows: toolAllows, limit: toolRounds) { [self] tools, rounds in
                var round = prompt
                round.tools = tools
                round.rounds = rounds
                return stream(round)
            }.events()
        }
    }

    /// One request of a reply to the model and its decoded answer.
    private func stream(_ prompt: ModelPrompt) -> AsyncThrowingStream<ReplyEvent, Error> {
        let body = api.body(for: prompt)
        return ModelReplyStream.make(ready: fixedBase ?? server?.readyBase, starting: server,
                                     hidesReasoning: !state.read { $0.showsReasoning },
                                     base: { [self] in try await self.base() }) { [self] base in
            api.stream(http) { [self] in try self.request(body, base: base) }
        }
    }

    public func info() async -> [(String, String)] {
        var facts: [(String, String)] = [("api", api.name + " (" + api.path + ")")]
        if let model { facts.append(("model", model)) }
        if let server {
            facts.append(("serves", server.model.path))
            facts.append(("server", server.readyBase ?? "starts with the first message"))
        }
        if let systemPrompt { facts.append(("system", String(systemPrompt.prefix(60)) + (systemPrompt.count > 60 ? "…" : ""))) }
        if let temperature { facts.append(("temperature", String(temperature))) }
        if let maxTokens { facts.append(("max tokens", String(maxTokens))) }
        if !state.read({ $0.showsReasoning }) { facts.append(("reasoning", "hidden (/think on shows it)")) }
        facts.append(("context", await contextInfo()))
        if !toolServers.isEmpty { facts.append(("tools", toolServers.joined(separator: ", ") + " (/tools)")) }
        return facts
    }

    public func completions(for key: String) -> [String] {
        key == "models" ? state.read { $0.listedModels } : []
    }
}

/// Prompt files may start with a `---` front matter block (name, description, variables);
/// what follows it is the prompt, with its variables' defaults filled in.
public enum PromptFile {
    public static func body(of text: String) -> String {
        PromptTemplate.parse(text, fallbackName: "").filled([:]).text
    }
}
