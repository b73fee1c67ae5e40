import FoundationEssentials
import Glibc

/// A file going along with a message.
public struct Attachment: Sendable, Equatable {
    public var path: String
    public var name: String
    public var size: Int
    public var mimeType: String
    /// The server's id for the file when it was uploaded on attaching (a Nyla file).
    public var backendID: String?

    public init(path: String, name: String, size: Int, mimeType: String, backendID: String? = nil) {
        self.path = path
        self.name = name
        self.size = size
        self.mimeType = mimeType
        self.backendID = backendID
    }
}

/// Everything a backend needs to answer one message.
public struct ChatRequest: Sendable {
    public var text: String
    public var thread: ChatThread
    /// Earlier turns of the thread, oldest first, without this message: those after the
    /// summary when the thread has one, as many as the backend's `historyWindow` allows.
    public var history: [Turn]
    /// The thread's summary of its older turns (`/compact`), sent in their place.
    public var summary: ThreadSummary?
    /// Older turns (after the summary) the history does not hold: not read from the store.
    public var notLoaded: Int
    /// The token guess, corrected by the server's count of the thread's last prompt.
    public var estimator: TokenEstimator
    public var attachments: [Attachment]
    /// What the reply is for: a message of the conversation, or the summary `/compact` asks for.
    public var purpose: Purpose

    public enum Purpose: Sendable, Equatable {
        case message
        case summary
    }

    public init(text: String, thread: ChatThread, history: [Turn] = [], summary: ThreadSummary? = nil, notLoaded: Int = 0,
                estimator: TokenEstimator = TokenEstimator(), attachments: [Attachment] = [], purpose: Purpose = .message) {
        self.text = text
        self.thread = thread
        self.history = history
        self.summary = summary
        self.notLoaded = notLoaded
        self.estimator = estimator
        self.attachments = attachments
        self.purpose = purpose
    }
}

/// A setting a session kind understands, for validation, `/help` and the README.
public struct SettingSpec: Sendable, Equatable {
    public var key: String
    public var summary: String
    /// What its value must be: checked for every session when the config loads.
    public var type: SettingType
    public var required: Bool

    public init(_ key: String, _ summary: String, type: SettingType = .text, required: Bool = false) {
        self.key = key
        self.summary = summary
        self.type = type
        self.required = required
    }
}

/// The parts of the process a backend may use; injected so tests can point them elsewhere.
public struct BackendEnvironment: Sendable {
    public var http: HTTPClient
    public var paths: Paths
    public var environment: [String: String]
    /// The history, reached through `history(of:)`.
    private var store: HistoryStore?
    /// The other sessions, for a backend that hands work on (a form submitted to a webhook
    /// session, a local model used to read answers).
    public var sessions: SessionDirectory?
    /// The time and waiting (retry backoff, Retry-After, cache expiry); tests pass a fake.
    public var clock: HarkClock
    /// The MCP servers of the config, for a model session whose `mcp` names some.
    public var tools: ToolHost?
    /// Who answers a question a reply asks (a choice of the workflow's buttons).
    public var interactions: InteractionSource

    /// A session's threads and messages, and its kind's own tables (form progress); nil
    /// without a history. Replies are recorded by the caller, never by the backend.
    public func history(of session: String) -> SessionHistory? {
        store.map { SessionHistory(store: $0, session: session) }
    }

    public init(http: HTTPClient, paths: Paths, environment: [String: String] = ProcessInfo.processInfo.environment,
                store: HistoryStore? = nil, sessions: SessionDirectory? = nil, clock: HarkClock = .system,
                tools: ToolHost? = nil, interactions: InteractionSource = InteractionSource()) {
        self.http = http
        self.paths = paths
        self.environment = environment
        self.store = store
        self.sessions = sessions
        self.clock = clock
        self.tools = tools
        self.interactions = interactions
    }
}

/// Other sessions' backends, looked up by name (weakly tied to the workspace).
public final class SessionDirectory: @unchecked Sendable {
    weak var workspace: Workspace?

    public init() {}

    public func backend(named name: String) throws -> (any Backend, SessionConfig) {
        guard let workspace else { throw HarkError.unknownSession(name, suggestion: nil) }
        return (try workspace.backend(for: name), try workspace.session(named: name))
    }

    /// Runs one of a session's own kind's commands, with nobody to ask and nothing recorded:
    /// for a backend that reads a message as a command (`@ci build app` from another session).
    public func runOwnCommand(_ invocation: CommandInvocation, session name: String) async throws -> CommandOutcome {
        guard let workspace else { throw HarkError.unknownSession(name, suggestion: nil) }
        let session = try workspace.session(named: name)
        guard workspace.commandTable.lookup(invocation.name, kind: session.kind)?.kinds != nil else {
            throw HarkError.commandNotForKind(command: "/" + invocation.name, kind: session.kind)
        }
        return try await workspace.perform(invocation, session: session, interaction: NonInteractive())
    }
}

/// One configured session's connection to its agent. A backend turns a message into a stream
/// of ReplyEvents; it never prints and never touches the history (the caller records).
public protocol Backend: AnyObject, Sendable {
    func send(_ request: ChatRequest) -> AsyncThrowingStream<ReplyEvent, Error>

    /// Asks the server to stop generating, where the protocol has a way (Nyla's stop endpoint).
    /// Cancelling the stream has already closed the connection when this is called.
    func stop(thread: ChatThread) async

    /// How much of the thread goes with each message in `ChatRequest.history`; only that much
    /// is read from the history. None by default: most kinds' servers keep the conversation.
    var historyWindow: TurnWindow { get }

    /// Facts for `/info`: label and value pairs. No secrets.
    func info() async -> [(String, String)]

    /// A short mark for the prompt from what the backend already knows ("3 edits"); no I/O.
    func promptBadge() -> String?

    /// Names for `ArgumentCompletion.dynamic(key)` (job names, form names…), from what the
    /// backend already knows; never a network call, Tab must answer at once.
    func completions(for key: String) -> [String]

    /// A plain line typed in this session that is really a command (Jenkins' `build app`):
    /// the command to run instead of sending the line. nil sends it; throwing explains in
    /// one line what the session understands.
    func command(forMessage text: String) async throws -> CommandInvocation?

    /// What an export of these threads of the session holds besides their messages (a
    /// local session's forms and documents); no I/O beyond the history.
    func exportAdditions(threads: [ChatThread]) -> ExportAdditions

    /// Lines under the shell's banner when it starts in this session (a first run's hints,
    /// the question an open form waits on); no network.
    func greeting() -> Document

    /// What the session does with a file holding `content` sent along (FileIntake decides).
    /// None by default.
    func fileIntake(for content: FileContent) async -> FileIntake

    /// How much a new message may take of the model's context, when the session has one and
    /// knows it: checked before a long message (piped text, files) is sent. nil by default.
    func messageRoom() async -> MessageRoom?
}

extension Backend {
    public func stop(thread: ChatThread) async {}
    public var historyWindow: TurnWindow { .none }
    public func info() async -> [(String, String)] { [] }
    public func promptBadge() -> String? { nil }
    public func completions(for key: String) -> [String] { [] }
    public func command(forMessage text: String) async throws -> CommandInvocation? { nil }
    public func exportAdditions(threads: [ChatThread]) -> ExportAdditions { ExportAdditions() }
    public func greeting() -> Document { [] }
    public func fileIntake(for content: FileContent) async -> FileIntake { .none }
    public func messageRoom() async -> MessageRoom? { nil }
}

/// A kind of session: its name, settings, extra commands, and how to build its backend.
/// Adding a kind means one folder with one type conforming to this, listed in BackendRegistry;
/// a kind whose server keeps threads also conforms to RemoteThreads.
public protocol BackendKind {
    static var name: String { get }
    static var summary: String { get }
    static var settings: [SettingSpec] { get }
    /// Slash-commands only this kind has, or its own version of a core command, each with its
    /// handler (`run: handler(Self.method)`).
    static var commands: [CommandSpec] { get }
    /// Whether replies are Markdown to render on a colour terminal; a build console is not
    /// (`+ make` would become a bullet).
    static var replyIsMarkdown: Bool { get }
    /// Finish reasons that mean the work failed though the reply arrived whole (a Jenkins
    /// build's FAILURE): a one-shot run exits non-zero for them, so scripts can tell.
    static var failingFinishReasons: Set<String> { get }
    static func make(session: SessionConfig, environment: BackendEnvironment) throws -> any Backend
}

extension BackendKind {
    public static var commands: [CommandSpec] { [] }
    public static var replyIsMarkdown: Bool { true }
    public static var failingFinishReasons: Set<String> { [] }
}

/// Settings every kind accepts.
public enum CommonSettings {
    public static let all: [SettingSpec] = [
        SettingSpec("speak", "on to read replies aloud", type: .flag),
        SettingSpec("voice", "espeak-ng voice name, e.g. en-us"),
        SettingSpec("rate", "speech rate in words per minute", type: .whole(VoiceParameters.rateRange)),
        SettingSpec("pitch", "speech pitch, 0 to 99", type: .whole(VoiceParameters.pitchRange)),
        SettingSpec("vosk_model", "folder of the Vosk model for dictation in this session's language"),
        SettingSpec("vosk_grammar", "limit dictation to these comma-separated phrases"),
        SettingSpec("auto_send", "on to send a dictated message at once", type: .flag),
        SettingSpec("listen_pause", "seconds of silence that end dictation (default 1.5)", type: .number(0.3...10)),
        SettingSpec("send_word", "said alone while dictating, sends the line (default send; a|b for several)"),
        SettingSpec("cancel_word", "said alone while dictating, clears the line (default cancel)"),
        SettingSpec("mute_word", "said alone while dictating, stops speech (default \"stop speaking\")"),
        SettingSpec("talk_stop_word", "said alone in /talk, ends the conversation (default \"stop talking\")"),
        SettingSpec("cues", "off to silence the tones of /talk (listening, sent, stopped)", type: .flag),
        SettingSpec("wake_word", "said while /talk --wake waits, starts a turn (default \"hey hark\")"),
        SettingSpec("echo_cancel", "auto, on or off: /talk listens while it speaks through the sound server's echo canceller "
                    + "(default auto)", type: .choice(EchoCancelSetting.allCases.map(\.rawValue))),
        SettingSpec("tts_command", "a program that speaks instead of espeak-ng: text on stdin, WAV or raw samples on stdout"),
        SettingSpec("tts_rate", "sample rate of tts_command's raw 16-bit mono output (leave out for WAV)",
                    type: .whole(VoiceParameters.sampleRateRange)),
        SettingSpec("connect_timeout", "seconds to wait for a connection (default 10)", type: .seconds),
        SettingSpec("first_byte_timeout", "seconds to wait for the reply to start (default 300)", type: .seconds),
        SettingSpec("idle_timeout", "seconds of silence mid-reply before giving up (default 120)", type: .seconds),
        SettingSpec("secret_timeout", "seconds a cmd: or file: secret may take before it is given up (default 10)",
                    type: .seconds),
        SettingSpec("insecure", "on to skip TLS certificate checks (marked in the prompt)", type: .flag),
        SettingSpec("ca", "a PEM file of CA certificates to trust for this server (a private CA)"),
        SettingSpec("pin", "sha256//BASE64: the server's public key must have this SHA-256 (several joined by ;)"),
        SettingSpec("proxy", "none, or a proxy URL (default: http_proxy, https_proxy, all_proxy, no_proxy as curl reads them)",
                    type: .proxy),
        SettingSpec("proxy_auth", "basic:USER:SECRET for a proxy that asks for credentials"),
        SettingSpec("description", "a note shown by /sessions"),
        SettingSpec("notify", "how an end seen elsewhere is told: auto (default), terminal, desktop, bell or off",
                    type: NotifySettings.settingType),
        SettingSpec("quiet_hours", "no notifications between these times, e.g. 22:00-07:00"),
    ]
}

extension SessionConfig {
    /// The session's timeouts, from its settings or the defaults.
    public func timeouts() throws -> HTTPTimeouts {
        let defaults = HTTPTimeouts()
        return HTTPTimeouts(connect: try double("connect_timeout") ?? defaults.connect,
                            firstByte: try double("first_byte_timeout") ?? defaults.firstByte,
                            idle: try double("idle_timeout") ?? defaults.idle)
    }

    public var isInsecure: Bool { (try? bool("insecure")) == true }

    /// The session's TLS checks from `insecure`, `ca` and `pin`, and its `proxy`.
    public func tls() throws -> TLSOptions {
        if let proxyAuth = self["proxy_auth"], case .basic = try? AuthSpec(parsing: proxyAuth) {} else if self["proxy_auth"] != nil {
            throw HarkError.badSetting(session: name, problem: "proxy_auth must be basic:USER:SECRET (SECRET as env:VAR, file:PATH or cmd:COMMAND)")
        }
        return try TLSOptions.parse(insecure: isInsecure, ca: self["ca"], pin: self["pin"], proxy: self["proxy"],
                                    proxyAuth: self["proxy_auth"], session: name)
    }
}
