import FoundationEssentials
import Glibc

/// Any Agent2Agent (A2A) agent: the Agent Card tells hark where and how to talk to it; each
/// message goes over JSON-RPC, streamed as SSE when the agent can (`SendStreamingMessage`, or
/// `message/stream` for 0.3 agents), else sent and polled (`SendMessage`, `GetTask`). Each hark
/// thread is one A2A context. Protocol notes: docs/a2a.md.
///
/// Split by concern: A2AWire (every wire shape), A2ACard, A2AAuth, A2AClient (HTTP and the
/// card cache), A2AStreamDecoder and A2AReplyProgress (events to replies), A2ASessionState
/// (what is kept between replies), A2ABackend+Reply (sending, resuming, polling, stopping),
/// A2ACommands (the slash-commands, and threads as contexts) and A2AViews (what they show).
public final class A2ABackend: Backend, BackendKind {
    public static let name = "a2a"
    public static let summary = "an Agent2Agent (A2A) agent, found by its Agent Card"
    public static let settings: [SettingSpec] = [
        SettingSpec("url", "the agent's base URL or its card's URL, e.g. https://agent.example.com", required: true),
        SettingSpec("auth", "bearer:SECRET (or basic:USER:SECRET, header:NAME:SECRET) when the card asks for it"),
        SettingSpec("api_key", "SECRET for a card's API key scheme (sent in the header or query it names)"),
        SettingSpec("push_url", "where the agent posts push notifications: the address hark watch --listen serves, "
                    + "e.g. http://127.0.0.1:8765/"),
        SettingSpec("poll_interval", "first wait in seconds between GetTask polls of a non-streaming agent (default 0.5)", type: .seconds),
    ]
    public static var commands: [CommandSpec] { commandSpecs }
    /// A task that ends rejected or canceled (by the agent) makes a one-shot run exit 6.
    public static let failingFinishReasons: Set<String> = ["rejected", "canceled"]

    let session: SessionConfig
    let client: A2AClient
    let clock: HarkClock
    let pollInterval: Double
    /// Where push notifications go (`push_url`), and the history their tokens are kept in.
    let pushURL: String?
    let history: SessionHistory?
    /// Where a form the agent asks is answered: `--answer`, the person watching, or declined.
    let answer: @Sendable (Question) async -> (QuestionOutcome, [String])

    init(session: SessionConfig, environment: BackendEnvironment) throws {
        guard let url = session.url?.lowercased(), url.hasPrefix("http://") || url.hasPrefix("https://") else {
            throw HarkError.badSetting(session: session.name, problem: "url must be the agent's http(s) address, e.g. https://agent.example.com")
        }
        self.session = session
        client = try A2AClient(session: session, environment: environment)
        clock = environment.clock
        pollInterval = try session.double("poll_interval") ?? 0.5
        pushURL = session["push_url"].flatMap { $0.trimmingSpaces.isEmpty ? nil : $0.trimmingSpaces }
        if let pushURL, !(pushURL.lowercased().hasPrefix("http://") || pushURL.lowercased().hasPrefix("https://")) {
            throw HarkError.badSetting(session: session.name, problem: "push_url must be an http(s) address, e.g. http://127.0.0.1:8765/")
        }
        history = environment.history(of: session.name)
        answer = Self.answerer(environment)
    }

    public static func make(session: SessionConfig, environment: BackendEnvironment) throws -> any Backend {
        try A2ABackend(session: session, environment: environment)
    }

    var state: A2ASessionState { client.state }

    public func completions(for key: String) -> [String] {
        key == "files" ? state.storedFiles.map { String($0.number) } : []
    }

    public func info() async -> [(String, String)] {
        do {
            return A2AViews.facts(try await client.card(), credentials: hasCredentials)
        } catch {
            return [("agent", "card not loaded: " + error.userMessage)]
        }
    }
}
