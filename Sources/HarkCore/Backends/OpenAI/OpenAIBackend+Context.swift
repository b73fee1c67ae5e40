import FoundationEssentials
import Glibc

/// The context budget of a model session: which window applies (the config's `context`, else
/// what the server says, else a default), which turns a request carries (ContextBudget), the
/// note said once when turns are left out, a server's overflow error as advice, and `/compact`.
extension OpenAIBackend {
    struct ContextState {
        var learned: ServerContextWindow?
        /// Whether the server's model takes images, where it said.
        var takesImages: Bool?
        var asked = false
        /// Threads told that turns were left out, so it is said once, not with every message.
        var toldLeftOut: Set<Int64> = []
    }

    /// Below this many tokens any model holds the prompt, so the server is not asked.
    static let askAbove = 512

    /// The window in use and where it comes from; the server is asked (once) only with `asking`.
    func window(asking: Bool) async -> (tokens: Int, source: String) {
        if let configured = context.window {
            // A served model's window, unless the config names one, is the one hark started it with.
            let setting = server != nil && session["context"] == nil ? "serve_context" : "context"
            return (configured, "\(setting) = \(configured)")
        }
        if asking { await askServer() }
        if let learned = contextState.read({ $0.learned }) { return (learned.tokens, learned.source) }
        return (ContextBudget.defaultWindow, "hark's default; set context = TOKENS")
    }

    /// Asks the server (once) what it says of its model: its window, whether it takes images.
    func askServer() async {
        guard !contextState.read({ $0.asked }) else { return }
        let facts = await ServerContextWindow.learn(http: http, base: session.url ?? "", model: session.model,
                                                    headers: (try? auth.headers()) ?? [], tls: (try? session.tls()) ?? TLSOptions(insecure: session.isInsecure),
                                                    connectTimeout: timeouts.connect)
        contextState.update { state in
            state.asked = true
            if state.learned == nil { state.learned = facts.window }
            state.takesImages = facts.takesImages
        }
    }

    /// The window when it is known: the config's, or the server's once asked. nil when only
    /// hark's default would stand for it.
    func knownWindow() async -> Int? {
        if let configured = context.window { return configured }
        await askServer()
        return contextState.read { $0.learned?.tokens }
    }

    public func messageRoom() async -> MessageRoom? {
        guard let window = await knownWindow() else { return nil }
        return MessageRoom(budget: budget(window: window), system: systemPrompt)
    }

    /// A model reads files: text and PDFs as text, images when the server does not say it
    /// takes none (asked only for an image).
    public func fileIntake(for content: FileContent) async -> FileIntake {
        if case .image = content { await askServer() }
        return .model(name: model ?? "", takesImages: contextState.read { $0.takesImages })
    }

    func budget(window: Int, estimator: TokenEstimator = TokenEstimator()) -> ContextBudget {
        ContextBudget(window: window, maxTokens: maxTokens, maxTurns: context.maxTurns, estimator: estimator)
    }

    /// Which turns go with `request` and its files read as the model takes them. The server is
    /// asked for its window only when the prompt is long enough for the answer to matter.
    func plan(for request: ChatRequest, files: [ModelFile]) async -> ContextPlan {
        let messageTokens = Self.messageTokens(request.text, files: files)
        func plan(window: Int) -> ContextPlan {
            budget(window: window, estimator: request.estimator)
                .plan(system: systemPrompt, summary: request.summary, history: request.history, notLoaded: request.notLoaded,
                      messageTokens: messageTokens)
        }
        let first = plan(window: await window(asking: false).tokens)
        guard context.window == nil, first.estimate > Self.askAbove || first.leftOut > 0 else { return first }
        return plan(window: await window(asking: true).tokens)
    }

    /// The raw guess for the message and what goes with it: text files inlined, images at a
    /// typical tile's cost.
    static func messageTokens(_ text: String, files: [ModelFile]) -> Int {
        files.reduce(TokenEstimator.raw(message: text)) { $0 + $1.rawTokens }
    }

    /// The request's events, after those that say what was sent: the prompt's estimate (kept
    /// with the reply) and, once per thread, how many turns were left out. A server's
    /// context-overflow error becomes one line of advice. Planned when first pulled (which may
    /// ask the server for its window).
    func sendPlanned(_ request: ChatRequest,
                     _ makeStream: @escaping @Sendable (ContextPlan, [ModelFile]) -> AsyncThrowingStream<ReplyEvent, Error>)
        -> AsyncThrowingStream<ReplyEvent, Error> {
        ReplyStream.pulled(Deferred { [self] in
            // The files are read (a PDF's text, an image's bytes) before anything is sent: one
            // the model cannot take ends the reply here, with no request made.
            let files = request.attachments.isEmpty ? []
                : try await ModelFile.read(request.attachments, session: session) { await self.fileIntake(for: $0) }
            let plan = await plan(for: request, files: files)
            let said: [ReplyEvent] = [.promptEstimate(plan.rawEstimate)] + (leftOutNote(plan, request).map { [.status($0)] } ?? [])
            return makeStream(plan, files).makeAsyncIterator()
                .mappingErrors { [self] in mapped($0, plan: plan) }
                .prepending(said)
        })
    }

    /// The dim line about left-out turns, said when a thread is first cut (again after a
    /// message that needed no cut).
    func leftOutNote(_ plan: ContextPlan, _ request: ChatRequest) -> String? {
        if request.purpose == .summary {
            guard plan.leftOut > 0 else { return nil }
            return "the oldest \(plan.leftOut) turn\(plan.leftOut == 1 ? "" : "s") do not fit the context and are not in the summary"
        }
        return contextState.update { state in
            guard plan.leftOut > 0 else {
                state.toldLeftOut.remove(request.thread.id)
                return nil
            }
            return state.toldLeftOut.insert(request.thread.id).inserted ? ContextBudget.leftOutNote(plan.leftOut) : nil
        }
    }

    /// A context overflow as advice; the window the server names is used from now on.
    /// `plan` is what was sent: with no earlier turn, the message alone was too long.
    func mapped(_ error: Error, plan: ContextPlan?) -> Error {
        guard let message = ContextOverflow.serverMessage(of: error) else { return error }
        let named = ContextOverflow.window(in: message)
        var learned = false
        if let named, context.window == nil {
            contextState.update { $0.learned = ServerContextWindow(tokens: named, source: "the server's error") }
            learned = true
        }
        return ContextOverflow.error(session: session.name, window: named ?? context.window, learned: learned,
                                     messageAlone: plan?.turns.isEmpty == true)
    }

    /// `/info`: the window, where it comes from, the room kept for the reply.
    func contextInfo() async -> String {
        let window = await window(asking: true)
        let budget = budget(window: window.tokens)
        var text = "\(window.tokens) tokens (\(window.source)) · \(budget.replyRoom) kept for the reply"
        if let maxTurns = context.maxTurns { text += " · at most \(maxTurns) earlier messages" }
        if context.readAsMessages { text += " (context = \(context.maxTurns ?? 0) now means context_messages; rename it)" }
        return text
    }

    // MARK: /compact

    static let compactCommand = CommandSpec(
        "compact", "summarise this thread's older turns; the summary is sent in their place from now on", group: "threads",
        run: handler(OpenAIBackend.compact))

    static let summaryInstruction = """
        Summarise our conversation so far for your own later use: the facts, names, numbers, decisions and open \
        questions, in a few short paragraphs or bullet points. Write only the summary.
        """

    /// Asks this session's model for a summary of the thread's turns before the newest
    /// exchange (with the summary made before, if any); streamed, then kept as the thread's
    /// summary and sent in place of those turns.
    func compact(_ context: CommandContext) async throws -> CommandOutcome {
        guard let thread = try context.history.currentThread() else {
            throw HarkError.usage("there is no thread to compact yet")
        }
        let current = try context.history.context(threadID: thread.id, window: historyWindow)
        // The newest exchange stays as it is: the last message of yours and what follows it.
        let keepFrom = current.turns.lastIndex { $0.role == .user } ?? current.turns.count
        guard keepFrom >= 2 else {
            throw HarkError.usage("nothing to compact yet: the turns before your last message are "
                + (current.summary == nil ? "too few" : "already summarised"))
        }
        let older = Array(current.turns[..<keepFrom])
        let turns = older.count + (current.summary?.turns ?? 0)
        let request = ChatRequest(text: Self.summaryInstruction, thread: thread, history: older, summary: current.summary,
                                  estimator: current.estimator, purpose: .summary)
        let reply = send(request)
        let events = ProducedStream.make { (emit: ProducedStream.Emitter<ReplyEvent>) in
            try await emit(.status("summary of \(turns) earlier turn\(turns == 1 ? "" : "s"):"))
            for try await event in reply {
                // Said before the end: the reply's watchers stop at `.finished`.
                if case .finished = event {
                    try await emit(.status("kept as this thread's summary; it is sent in place of those turns"))
                }
                try await emit(event)
            }
        }
        return .summary(events, thread: thread, throughMessageID: current.messageIDs[keepFrom - 1], turns: turns)
    }
}
