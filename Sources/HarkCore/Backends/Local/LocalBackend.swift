import FoundationEssentials
import Glibc

/// The built-in offline session. Plain messages are notes to self: stored and searchable,
/// with no reply. `/form NAME` starts a conversational form in a thread of its own; while it
/// is open, messages in that thread are answers and the reply is the next question. Nothing
/// here touches the network, unless the user names a model's session in `llm` or a form
/// template names a session to `submit` to.
public final class LocalBackend: Backend, BackendKind {
    public static let name = "local"
    public static let summary = "built in and offline: forms to fill in, your documents searched, notes to self"
    public static let settings: [SettingSpec] = [
        SettingSpec("llm", "a model's session (kind openai, e.g. a local llama.cpp) that reads form answers the rules "
            + "cannot, and writes /ask's answer from your documents; without it, rules only and no network"),
        SettingSpec("llm_timeout", "seconds a form answer waits for the llm before the rules read it (default 5; 0 waits "
            + "as long as it takes)", type: .seconds),
    ]

    public static let commands: [CommandSpec] = documentCommands + [
        CommandSpec("forms", "list the forms to fill in, and yours in progress or done", group: "prompts and forms",
                    run: handler(LocalBackend.listForms)),
        CommandSpec("form", [.one("NAME", .dynamic("forms"))],
                    "fill in a form one question at a time; resume, export, send or cancel one", group: "prompts and forms",
                    subcommands: [
                        CommandSpec("resume", [.optional("ID", .dynamic("open-forms"))], "go on with a form in progress",
                                    run: handler(LocalBackend.resumeForm)),
                        CommandSpec("export", [.optional("#ID"), .optional("FILE", .files)],
                                    "write a form's answers as JSON and Markdown", run: handler(LocalBackend.exportForm)),
                        CommandSpec("submit", [.optional("#ID")], "send a finished form to its session",
                                    run: handler(LocalBackend.submitForm)),
                        CommandSpec("cancel", "give up the form of this thread", run: handler(LocalBackend.cancelForm)),
                    ], hint: "/forms lists the forms", run: handler(LocalBackend.startForm)),
    ]

    let session: SessionConfig
    let paths: Paths
    /// This session's threads, and the tables the forms are kept in.
    let history: SessionHistory?
    let sessions: SessionDirectory?
    let clock: HarkClock
    /// The session that reads free-text answers, or nil for rules only.
    let llm: String?
    /// How long a form answer waits for it; nil as long as it takes.
    let llmTimeLimit: Double?

    init(session: SessionConfig, environment: BackendEnvironment) throws {
        self.session = session
        paths = environment.paths
        history = environment.history(of: session.name)
        sessions = environment.sessions
        clock = environment.clock
        llm = session["llm"]
        let timeout = try session.double("llm_timeout") ?? FormModelReader.defaultTimeLimit
        llmTimeLimit = timeout > 0 ? timeout : nil
        if llm == session.name {
            throw HarkError.badSetting(session: session.name, problem: "llm must name another session, one of kind openai")
        }
    }

    public static func make(session: SessionConfig, environment: BackendEnvironment) throws -> any Backend {
        try LocalBackend(session: session, environment: environment)
    }

    var library: FormLibrary { FormLibrary(paths: paths) }

    var today: FormDate { FormDate.local(clock.now()) }

    func forms() throws -> FormStore {
        guard let history else { throw HarkError.unavailable("forms need the history database", hint: "run hark normally") }
        return FormStore(history: history, now: clock.now)
    }

    public func send(_ request: ChatRequest) -> AsyncThrowingStream<ReplyEvent, Error> {
        ProducedStream.make { [self] emit in
            if history != nil, let record = try forms().open(threadID: request.thread.id) {
                try await answer(request.text, record: record, emit: emit)
                try await emit(.finished(reason: nil))
            } else {
                try await emit(.status("noted"))
                try await emit(.finished(reason: "noted"))
            }
        }
    }

    /// One message to an open form: the reply is what the form says next. The progress is
    /// saved before the reply is shown.
    func answer(_ text: String, record: FormRecord, emit: ProducedStream.Emitter<ReplyEvent>) async throws {
        var record = record
        let template = try record.template()
        var conversation = FormConversation(template: template, progress: record.progress, today: today)
        let intent = conversation.intent(of: text)
        var extracted: [String: JSON]?
        if case .answer(let answer) = intent, let llm, FormModelReader.wants(answer, conversation: conversation) {
            let reader = FormModelReader(sessionName: llm, sessions: sessions, timeLimit: llmTimeLimit)
            switch try await reader.read(answer, conversation: conversation, emit: emit) {
            case .values(let values): extracted = values
            case .failed(let reason): try await emit(.notice(reason))
            }
        }
        var lines = conversation.handle(intent, extracted: extracted)
        lines += proposeFromDocuments(&conversation)
        record.progress = conversation.progress
        try forms().save(&record)
        var text = lines.joined(separator: "\n")
        if record.progress.stage == .done {
            // Shown before the submission starts, which may take a while.
            try await emit(.text(text + "\n"))
            text = try await completed(&record, template: template, emit: emit).joined(separator: "\n")
        }
        if !record.progress.stage.isOpen { try moveToNotes() }
        try await emit(.text(text))
    }

    /// After a form ends, plain messages are notes again: the session goes back to the thread
    /// of notes used last (the form's thread keeps the form's conversation); with none, the
    /// next note starts a thread of its own.
    func moveToNotes() throws {
        guard let history else { return }
        let formThreads = Set(try forms().forms(session: session.name).map(\.threadID))
        let notes = try history.threads().filter { !formThreads.contains($0.id) }.max { $0.updatedAt < $1.updatedAt }
        try history.setCurrentThread(notes?.id)
    }

    /// A first run's hints (the session has no thread yet), or the question an open form of
    /// the current thread waits on.
    public func greeting() -> Document {
        guard let history, let threads = try? history.threads() else { return [] }
        if threads.isEmpty {
            var hints = [
                "This session is offline: messages are notes to self, kept and searchable. /forms lists forms to fill in, "
                    + "/prompts ready-made prompts.",
                "Your files: /docs add PATH… makes them searchable, /ask QUESTION finds what answers it.",
                "Add an agent with /session add NAME --kind webhook|openai --url URL; /help lists every command.",
            ]
            if let llm { hints.append(Self.modelHint(llm, session: session.name)) }
            return hints.map { StyledLine($0, .dim) }
        }
        guard let thread = try? history.currentThread(), let record = try? forms().open(threadID: thread.id),
              let template = try? record.template() else { return [] }
        var conversation = FormConversation(template: template, progress: record.progress, today: today)
        return conversation.resume().map { StyledLine($0) }
    }

    /// What the model of `llm` does here, and how to use a bigger one.
    static func modelHint(_ llm: String, session: String) -> String {
        "The model \(llm) reads the form answers the rules cannot and writes /ask's answers from your files. "
            + "A bigger one: any openai session (Ollama, llama.cpp with another GGUF, a hosted API), then "
            + "/session edit \(session) llm=NAME."
    }

    /// A value for the open question from the user's documents, when its field asks for one
    /// (`from_docs`) and none is waiting: the line that offers it.
    func proposeFromDocuments(_ conversation: inout FormConversation) -> [String] {
        guard conversation.progress.stage == .filling, let field = conversation.currentField, field.fromDocs,
              conversation.progress.answers[field.id] == nil, conversation.progress.proposal?.field != field.id,
              let search = try? search(),
              let found = try? FormDocumentReader(search: search, today: today).proposal(for: field, template: conversation.template)
        else { return [] }
        conversation.progress.proposal = found
        return ["From your documents (\(found.source)): \(found.value.display(unit: field.unit)). "
            + "Say yes to take it, or give your own answer."]
    }

    /// What follows a yes in the review: sending to the template's session, or a pointer to
    /// the export.
    func completed(_ record: inout FormRecord, template: FormTemplate,
                   emit: ProducedStream.Emitter<ReplyEvent>) async throws -> [String] {
        guard let target = template.submit else { return ["/form export [FILE] writes it as JSON and Markdown."] }
        return try await submit(&record, template: template, to: target, emit: emit)
    }

    /// Sends the answers; a failure is told in the reply and leaves the form done, to send
    /// again with /form submit.
    func submit(_ record: inout FormRecord, template: FormTemplate, to target: String,
                emit: ProducedStream.Emitter<ReplyEvent>) async throws -> [String] {
        do {
            let reply = try await FormSubmission(sessions: sessions).send(record, template: template, to: target,
                                                                         at: clock.now(), emit: emit)
            record.progress.stage = .submitted
            record.submittedTo = target
            record.submittedAt = clock.now()
            try forms().save(&record)
            return reply.isEmpty ? ["Sent to \(target)."] : ["Sent to \(target), which answered:", reply]
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            return ["Could not send it to \(target) (\(error.userMessage)). The answers are kept: "
                + "/form submit tries again, /form export writes them to files."]
        }
    }

    // MARK: What the shell asks

    public func info() async -> [(String, String)] {
        let templates = library.names().count
        let open = ((try? forms().forms(session: session.name)) ?? []).filter { $0.progress.stage.isOpen }.count
        let documents = (try? documentLibrary().documents().count) ?? 0
        return [
            ("forms", "\(templates) template\(templates == 1 ? "" : "s") · \(open) in progress · /forms lists them"),
            ("docs", "\(documents) document\(documents == 1 ? "" : "s") · /docs lists them, /ask QUESTION searches them"),
            ("answers", llm.map { "read by \($0) (a model), checked by the rules" } ?? "read by rules only; nothing leaves this machine"),
            ("notes", "plain messages outside a form are kept as notes; /search finds them"),
        ]
    }

    /// `form 3/8` while the current thread has a form open, so the prompt tells that a message
    /// here is an answer: the open question's place, as its header shows it.
    public func promptBadge() -> String? {
        guard let history, let thread = try? history.currentThread(),
              let record = try? forms().open(threadID: thread.id), let template = try? record.template() else { return nil }
        if record.progress.stage == .review { return "form: review" }
        let conversation = FormConversation(template: template, progress: record.progress, today: today)
        return "form " + conversation.place()
    }

    public func completions(for key: String) -> [String] {
        switch key {
        case "forms": return library.names()
        case "open-forms":
            return ((try? forms().forms(session: session.name)) ?? []).filter { $0.progress.stage.isOpen }.map { String($0.id) }
        case "documents":
            return ((try? documentLibrary().documents()) ?? []).map(\.name)
        default: return []
        }
    }
}
