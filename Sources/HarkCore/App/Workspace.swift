import FoundationEssentials
import Glibc

/// The running application, without a terminal: the config, the history, one backend per
/// session used so far, the current session, and the replies in flight. The shell and the
/// one-shot runner feed it lines and act on the outcomes; golden tests do the same.
public final class Workspace: @unchecked Sendable {
    public let paths: Paths
    public let store: HistoryStore
    public let environment: BackendEnvironment
    public let commandTable = CommandTable.standard
    /// Speech and dictation: /speak and /voice choices, the speaker, loaded models.
    public let voice = VoiceControl()
    /// The MCP servers of the config, started when a session first needs their tools.
    public let tools: ToolHost

    /// Everything that changes while hark runs, behind one lock.
    struct State {
        var config: Config
        var warnings: [String] = []
        var current: String
        var interaction: Interaction = NonInteractive()
        var onBackgroundReplyEnded: (@Sendable (ReplyJob) -> Void)?
        var backends: [String: any Backend] = [:]
        var jobs: [ReplyJob] = []
        var nextJobID = 1
        /// Each session's server threads as last listed, for Tab.
        var serverThreads: [String: [RemoteThread]] = [:]
    }

    let state: Locked<State>

    /// `http`: by default one that waits on `clock`, as the backends do.
    public init(paths: Paths, http: HTTPClient? = nil, store: HistoryStore? = nil, clock: HarkClock = .system) throws {
        let http = http ?? HTTPClient(clock: clock)
        self.paths = paths
        let config = try ConfigFile.load(paths: paths)
        try BackendRegistry.checkValues(config)
        let store = try store ?? HistoryStore(path: paths.historyDatabase, clock: clock)
        self.store = store
        let directory = SessionDirectory()
        let tools = ToolHost(http: http, environment: ProcessInfo.processInfo.environment, config: config.mcpServers)
        self.tools = tools
        self.environment = BackendEnvironment(http: http, paths: paths, store: store, sessions: directory, clock: clock,
                                              tools: tools)
        var warnings: [String] = []
        for session in config.sessions {
            do { warnings += try BackendRegistry.validate(session) } catch { warnings.append(error.userMessage) }
        }
        warnings += NotifySettings.problems(in: config)
        self.state = Locked(State(config: config, warnings: warnings, current: config.defaultSession))
        try self.store.ensureSession(config.defaultSession, kind: config.session(named: config.defaultSession)?.kind ?? LocalBackend.name)
        directory.workspace = self
        // Asked before a tool runs, or by a reply: whoever answers this workspace's questions at that moment.
        tools.setInteraction { [weak self] in self?.interaction ?? NonInteractive() }
        environment.interactions.provide { [weak self] in self?.interaction ?? NonInteractive() }
    }

    public var config: Config { state.read { $0.config } }

    /// What the current session says under the shell's banner (LocalBackend: hints, an open form's question).
    public func greeting() -> Document {
        (try? backend(for: currentSession))?.greeting() ?? []
    }

    /// The last step of every way hark ends (a one-shot's reply done or stopped, /quit, Ctrl-D,
    /// a signal), after its replies were stopped: what this run holds on servers is let go, the
    /// MCP servers' sessions ended, waiting `seconds` at most (ToolHost.endAll; less when a
    /// signal is ending hark, which must be gone soon). It blocks: call it from the thread that
    /// ends hark.
    public func prepareForExit(within seconds: Double = 2) {
        tools.endAll(within: seconds)
    }

    /// Problems in the config that did not stop hark (unknown keys): shown once at start.
    public var warnings: [String] { state.read { $0.warnings } }

    public var interaction: Interaction {
        get { state.read { $0.interaction } }
        set { state.update { $0.interaction = newValue } }
    }

    /// Called when a reply nobody is watching ends (from any thread).
    public var onBackgroundReplyEnded: (@Sendable (ReplyJob) -> Void)? {
        get { state.read { $0.onBackgroundReplyEnded } }
        set { state.update { $0.onBackgroundReplyEnded = newValue } }
    }

    /// Changes settings of a session in the config file and reloads it.
    public func updateSettings(of name: String, _ changes: [String: String?]) throws {
        let session = try self.session(named: name)
        let assignments = changes.keys.sorted().map { "\($0)=\(changes[$0]! ?? "")" }
        try SessionEditing.set(assignments, session: session, paths: paths)
        try reloadConfig()
    }

    // MARK: State

    public var currentSession: String { state.read { $0.current } }

    public var currentConfig: SessionConfig {
        state.read { $0.config.session(named: $0.current) } ?? SessionConfig.builtIn
    }

    public func session(named name: String) throws -> SessionConfig {
        try config.existingSession(named: name)
    }

    public func switchSession(to name: String) throws {
        let session = try self.session(named: name)
        _ = try BackendRegistry.validate(session)
        try store.ensureSession(name, kind: session.kind)
        state.update { $0.current = name }
    }

    public func currentThread(of session: String? = nil) throws -> ChatThread? {
        try store.currentThread(session: session ?? currentSession)
    }

    public func reloadConfig() throws {
        let fresh = try ConfigFile.load(paths: paths)
        try BackendRegistry.checkValues(fresh)
        tools.update(fresh.mcpServers)
        var freshWarnings: [String] = []
        for session in fresh.sessions {
            do { freshWarnings += try BackendRegistry.validate(session) } catch { freshWarnings.append(error.userMessage) }
        }
        freshWarnings += NotifySettings.problems(in: fresh)
        state.update { state in
            // A session that reads the same after the reload keeps its backend: it may be
            // following builds, or hold a login or a cache, that a new one would not know.
            state.backends = state.backends.filter { name, _ in
                guard let before = state.config.session(named: name), let after = fresh.session(named: name) else { return false }
                return before.kind == after.kind && before.values == after.values
            }
            state.config = fresh
            state.warnings = freshWarnings
            if fresh.session(named: state.current) == nil { state.current = fresh.defaultSession }
        }
    }

    /// The backend of a session, built on first use.
    public func backend(for name: String) throws -> any Backend {
        if let existing = state.read({ $0.backends[name] }) { return existing }
        let session = try self.session(named: name)
        _ = try BackendRegistry.validate(session)
        guard let kind = BackendRegistry.kind(named: session.kind) else {
            throw HarkError.badSetting(session: name, problem: "unknown kind \(session.kind)")
        }
        let made = try kind.make(session: session, environment: environment)
        return state.update { state in
            if let raced = state.backends[name] { return raced }
            state.backends[name] = made
            return made
        }
    }

    // MARK: Replies in flight

    public var runningJobs: [ReplyJob] { state.read { $0.jobs.filter(\.isRunning) } }

    /// True once every reply has ended and been announced.
    public var isIdle: Bool { state.read { $0.jobs.isEmpty } }

    public func runningJobs(session: String) -> [ReplyJob] { runningJobs.filter { $0.session == session } }

    /// `started`: the message or command line that starts it (its first line names it).
    /// `summaryOf`: a `/compact` reply, kept as the thread's summary; `interruptDetaches`:
    /// Ctrl-C sends it to the background instead of stopping it.
    func makeJob(session: String, kind: String, thread: ChatThread, userMessageID: Int64?, started: String,
                 summaryOf: (throughMessageID: Int64, turns: Int)? = nil, interruptDetaches: Bool = false) -> ReplyJob {
        let label = Self.title(from: started)
        return state.update { state in
            defer { state.nextJobID += 1 }
            return ReplyJob(id: state.nextJobID, session: session, kind: kind, thread: thread, userMessageID: userMessageID,
                            label: label, summaryOf: summaryOf, interruptDetaches: interruptDetaches, clock: environment.clock)
        }
    }

    func launch(_ job: ReplyJob, events: AsyncThrowingStream<ReplyEvent, Error>, backend: (any Backend)?, model: String?) {
        state.update { $0.jobs.append(job) }
        job.start(events: events, backend: backend, store: store, model: model) { [weak self] job, watched in
            guard let self else { return }
            if !watched { self.onBackgroundReplyEnded?(job) }
            self.state.update { $0.jobs.removeAll { $0 === job } }
        }
    }

    // MARK: Lines

    /// Runs one input line: a message, `/command`, `//literal`, `@session message` or `!command`.
    /// `piped`: what came on stdin with it (a one-shot hark), sent with the message.
    public func execute(_ line: String, piped: PipedInput? = nil) async throws -> CommandOutcome {
        var (line, piping): (String, Piping?) = (line, nil)
        if let piped { (line, piping) = try await prepare(line, piped: piped) }
        let trimmed = line.trimmed
        if trimmed.isEmpty { return .none }
        if trimmed.hasPrefix("//") { return .reply(try await send(String(trimmed.dropFirst()), to: currentSession, piping: piping)) }
        if let invocation = try CommandInvocation.parse(trimmed) { return try await run(invocation) }
        if trimmed.hasPrefix("@") {
            let body = trimmed.dropFirst()
            let nameEnd = body.firstIndex(where: { $0.isWhitespace }) ?? body.endIndex
            let name = String(body[..<nameEnd])
            let message = body[nameEnd...].trimmingSpaces
            _ = try session(named: name)
            guard !message.isEmpty else { throw HarkError.usage("@\(name) needs a message after the name") }
            return .reply(try await send(message, to: name, piping: piping))
        }
        if trimmed.hasPrefix("!") {
            return .reply(try await send(try await commandOutput(String(trimmed.dropFirst())), to: currentSession, piping: piping))
        }
        let message = line.trimmingNewlines
        if let invocation = try await backend(for: currentSession).command(forMessage: message) {
            if case .after = piping {
                throw HarkError.usage("\(currentSession) reads that as a command, which takes no piped text; give --no-stdin")
            }
            return try await run(invocation)
        }
        return .reply(try await send(message, to: currentSession, piping: piping))
    }

    /// The output of `!COMMAND`, to be sent as a message.
    func commandOutput(_ command: String) async throws -> String {
        let command = command.trimmingSpaces
        guard !command.isEmpty else { throw HarkError.usage("type a shell command after !, e.g. !git diff") }
        let output = try await ShellCommand.output(command, input: nil)
        let text = String(decoding: output.stdout, as: UTF8.self).trimmingNewlines
        guard output.status == 0 || !text.isEmpty else {
            let reason = String(decoding: output.stderr, as: UTF8.self).lineSlices(keepingEmpty: false).first.map(String.init) ?? ""
            throw HarkError.io("!\(command) failed with status \(output.status)" + (reason.isEmpty ? "" : ": \(reason)"))
        }
        guard !text.isEmpty else { throw HarkError.io("!\(command) printed nothing, so there is nothing to send") }
        return text
    }

    /// Sends a message to a session's current thread (starting one if needed) and returns the
    /// running reply. The message is in the history before the request goes out. `pipedFrom`:
    /// where its piped part begins; `notice`: said first with the reply (what was cut).
    public func send(_ text: String, to name: String, retrying userMessage: Message? = nil, pipedFrom: Int? = nil,
                     notice: String? = nil) throws -> ReplyJob {
        let session = try self.session(named: name)
        let backend = try self.backend(for: name)
        try store.ensureSession(name, kind: session.kind)
        let thread: ChatThread
        if let existing = try store.currentThread(session: name) {
            thread = existing
        } else {
            thread = try store.createThread(session: name, title: Self.title(from: text),
                                            backendID: (backend as? RemoteThreads)?.newThreadID())
        }
        let context: ThreadContext
        let userMessageID: Int64
        let attachments: [Attachment]
        if let userMessage {
            context = try store.context(threadID: thread.id, session: name, before: userMessage.id,
                                        window: backend.historyWindow)
            userMessageID = userMessage.id
            attachments = try store.attachments(messageID: userMessage.id)
        } else {
            context = try store.context(threadID: thread.id, session: name, window: backend.historyWindow)
            userMessageID = try store.addMessage(threadID: thread.id, session: name, role: .user, text: text,
                                                 indexWithReply: true, pipedFrom: pipedFrom)
            attachments = try store.claimPendingAttachments(session: name, messageID: userMessageID)
        }
        let job = makeJob(session: name, kind: session.kind, thread: thread, userMessageID: userMessageID, started: text)
        let request = ChatRequest(text: text, thread: thread, history: context.turns, summary: context.summary, notLoaded: context.notLoaded,
                                  estimator: context.estimator, attachments: attachments)
        let events = backend.send(request)
        launch(job, events: notice.map { Self.prefixed($0, events) } ?? events, backend: backend, model: session.model)
        return job
    }

    /// A thread title from the first line of its first message.
    static func title(from text: String) -> String {
        let firstLine = text.lineSlices(keepingEmpty: false).first.map(String.init) ?? text
        // A command line (`/build deploy TOKEN=***`) is kept as typed: it holds no Markdown.
        let line = firstLine.trimmingSpaces
        let trimmed = line.hasPrefix("/") ? line : withoutMarkdown(line).trimmingSpaces
        return trimmed.count > 48 ? String(trimmed.prefix(47)) + "…" : (trimmed.isEmpty ? "untitled" : trimmed)
    }

    /// A line's words without its Markdown marks: a heading's or quote's or list item's
    /// marker, emphasis and code marks, a link's target (`# **Release** notes` → `Release notes`).
    static func withoutMarkdown(_ line: String) -> String {
        var text = Substring(line)
        let hashes = text.prefix(while: { $0 == "#" })
        if (1...6).contains(hashes.count), text.dropFirst(hashes.count).first == " " { text = text.dropFirst(hashes.count) }
        else if text.hasPrefix("> ") { text = text.dropFirst(2) }
        else if text.hasPrefix("- ") || text.hasPrefix("* ") || text.hasPrefix("+ ") { text = text.dropFirst(2) }
        var out = ""
        var rest = text[...]
        while let character = rest.first {
            if character == "[", let close = rest.firstIndex(of: "]"), rest[close...].dropFirst().first == "(",
               let end = rest[close...].firstIndex(of: ")") {
                out += rest[rest.index(after: rest.startIndex)..<close]
                rest = rest[rest.index(after: end)...]
                continue
            }
            if character == "`" || ((character == "*" || character == "_") && (rest.dropFirst().first == character)) {
                rest = rest.dropFirst(character == "`" ? 1 : 2)
                continue
            }
            out.append(character)
            rest = rest.dropFirst()
        }
        return out
    }

    // MARK: Commands

    /// Runs a slash-command: the table finds its spec (the kind's own first) and checks its
    /// arguments, then its handler runs; notes gathered on the way go above its output.
    public func run(_ invocation: CommandInvocation) async throws -> CommandOutcome {
        let session = currentConfig
        return try recordIfNeeded(try await perform(invocation, session: session, interaction: interaction), session: session.name,
                                  command: "/" + invocation.name)
    }

    /// Runs a command in a session without recording what it streams.
    func perform(_ invocation: CommandInvocation, session: SessionConfig, interaction: Interaction) async throws -> CommandOutcome {
        let (spec, handler, arguments) = try commandTable.resolve(invocation, kind: session.kind)
        let context = CommandContext(workspace: self, session: session, invocation: invocation, spec: spec,
                                     arguments: arguments, interaction: interaction)
        let outcome = try await handler(context)
        if case .output(let lines) = outcome { return .output(context.notes.lines + lines) }
        return outcome
    }

    /// Turns a command's event stream into a reply recorded in the history (a summary into
    /// the thread's summary).
    /// `command`: its name, for the notice of a reply that ends in the background when the
    /// outcome names no line to record (the arguments may hold a secret).
    func recordIfNeeded(_ outcome: CommandOutcome, session name: String, command: String) throws -> CommandOutcome {
        if case .summary(let events, let thread, let throughMessageID, let turns) = outcome {
            let session = try self.session(named: name)
            let job = makeJob(session: name, kind: session.kind, thread: thread, userMessageID: nil, started: command,
                              summaryOf: (throughMessageID, turns))
            launch(job, events: events, backend: nil, model: nil)
            return .reply(job)
        }
        guard case .events(let events, let recordAs, let detachOnInterrupt) = outcome else { return outcome }
        let session = try self.session(named: name)
        try store.ensureSession(name, kind: session.kind)
        let thread = try store.currentThread(session: name)
            ?? store.createThread(session: name, title: Self.title(from: recordAs ?? "commands"))
        var userMessageID: Int64?
        if let recordAs {
            userMessageID = try store.addMessage(threadID: thread.id, session: name, role: .user, text: recordAs)
        }
        let job = makeJob(session: name, kind: session.kind, thread: thread, userMessageID: userMessageID,
                          started: recordAs ?? command, interruptDetaches: detachOnInterrupt)
        launch(job, events: events, backend: nil, model: nil)
        return .reply(job)
    }
}
