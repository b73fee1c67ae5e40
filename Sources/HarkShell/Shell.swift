import FoundationEssentials
import Glibc
import HarkCore

/// The interactive shell: reads lines with libedit, runs them through the workspace, and shows
/// what comes back. The only place that does terminal I/O for the interactive mode.
public final class Shell {
    let workspace: Workspace
    let capabilities: TerminalCapabilities
    let ansi: ANSI
    let editor: LineEditor
    let inbox = Inbox<ShellEvent>()
    /// Lines kept by a trailing backslash or a multi-line paste, sent with the next Enter.
    var draft: [String] = []
    var historySession: String?
    var quitRequested = false
    var typeAhead: [UInt8] = []
    var exitCode: Int32 = 0
    /// Shown before the prompt while dictating: "loading the model…" or the level meter.
    var listenIndicator: String?
    /// Columns the prompt last drawn takes (dictation redraws the line in place).
    var promptWidth = 0
    /// A line holding a literal secret is not kept in the input history; said the first time.
    var toldLineNotKept = false
    /// `/edit last` without an editor: the next line entered replaces the message, through this.
    var pendingEdit: (@Sendable (String) async throws -> CommandOutcome)?

    public init(workspace: Workspace, capabilities: TerminalCapabilities = .detect()) throws {
        self.workspace = workspace
        self.capabilities = capabilities
        ansi = ANSI(enabled: capabilities.colors)
        editor = try LineEditor()
        editor.prompt = { [unowned self] in prompt() }
        editor.complete = { line in Completion.complete(line: line, workspace: workspace) }
        editor.onMultilinePaste = { [unowned self] lines in
            draft += lines
            RawOutput.write("\r\u{1B}[K")
            for line in lines { RawOutput.write(ansi.wrap("… ", .dim) + line + "\n") }
        }
        editor.wakeDescriptors = [inbox.readFD, Signals.readFD].filter { $0 >= 0 }
        editor.onWake = { [unowned self] in wakeAtPrompt() }
        editor.onListen = { [unowned self] in dictate() }
        workspace.interaction = TerminalInteraction()
        let inbox = self.inbox
        workspace.onBackgroundReplyEnded = { job in inbox.post(.backgroundEnded(job)) }
        workspace.voice.onSpeechEvent = { event in
            if case .failed(let error) = event { inbox.post(.speechFailed(error)) }
        }
    }

    public func run() -> Int32 {
        TerminalModes.capture()
        defer { TerminalModes.restore() }
        // Out of cooked mode before the first prompt shows: a Ctrl-D typed the moment it
        // appears would otherwise meet the kernel's line editing, not libedit, and be lost.
        TerminalModes.streaming()
        Signals.install()
        editor.wakeDescriptors = [inbox.readFD, Signals.readFD]
        greet()
        while !quitRequested {
            syncHistory()
            switch editor.readLine() {
            case .endOfFile:
                if !draft.isEmpty {
                    draft = []
                    continue
                }
                RawOutput.write("\n")
                quitRequested = true
            case .interrupted:
                if quitRequested { break }
                RawOutput.write(ansi.wrap("^C", .dim) + "\n")
                draft = []
                if pendingEdit != nil {
                    pendingEdit = nil
                    RawOutput.write(ansi.wrap("not edited; your message stays as it was", .dim) + "\n")
                }
                workspace.voice.stopSpeaking()
            case .action(let action, let line):
                if action == "edit" { editAndSend(startingWith: (draft + [line]).joined(separator: "\n")) }
            case .line(let line):
                if line.hasSuffix("\\") {
                    draft.append(String(line.dropLast()))
                    continue
                }
                let message = (draft + [line]).joined(separator: "\n")
                draft = []
                if let edit = pendingEdit {
                    pendingEdit = nil
                    finishEdit(message, then: edit)
                    continue
                }
                handle(message)
            }
        }
        for job in workspace.runningJobs { job.stop() }
        return exitCode
    }

    func greet() {
        let session = workspace.currentConfig
        var lines: [String] = []
        lines.append(ansi.wrap("hark \(HarkVersion.string)", .bold) + ansi.wrap(" · session \(session.name) (\(session.kind))"
            + " · /help for commands, Ctrl-D to quit", .dim))
        if session.kind == "local" && workspace.config.sessions.count == 1 {
            lines.append(ansi.wrap("This session is offline: messages are notes to self, kept and searchable. "
                + "/forms lists forms to fill in, /prompts ready-made prompts.", .dim))
            lines.append(ansi.wrap("Add an agent with /session add NAME --kind webhook|openai --url URL; "
                + "/help lists every command.", .dim))
        }
        for warning in workspace.warnings { lines.append(ansi.wrap("warning: " + warning, .warning)) }
        RawOutput.write(lines.joined(separator: "\n") + "\n")
    }

    /// Loads the input history of the session being typed in.
    func syncHistory() {
        let session = workspace.currentSession
        guard session != historySession else { return }
        historySession = session
        editor.setHistory((try? workspace.store.inputHistory(session: session)) ?? [])
    }

    // MARK: Prompt

    func prompt() -> String {
        let text = composePrompt()
        promptWidth = TextWidth.of(Self.visibleText(text))
        return text
    }

    /// The prompt without the sequences bracketed by "\u{1}" (what takes columns).
    static func visibleText(_ prompt: String) -> String {
        prompt.split(separator: "\u{1}", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 0 }.map { String($0.element) }.joined()
    }

    private func composePrompt() -> String {
        let indicator = listenIndicator.map { styled($0 + " ", .accent) } ?? ""
        if !draft.isEmpty { return indicator + visible(ansi.start(.dim)) + "… " + visible(ANSI.reset) }
        var text = indicator
        let unread = ((try? workspace.store.unreadCounts()) ?? [:]).filter { $0.key != workspace.currentSession && $0.value > 0 }
        if !unread.isEmpty {
            let counts = unread.keys.sorted().map { "\($0) \(unread[$0]!)" }.joined(separator: " · ")
            text += styled("[\(counts)] ", .warning)
        }
        let session = workspace.currentConfig
        text += styled(session.name, .accent)
        if session.isInsecure { text += styled(" !insecure", .error) }
        if let thread = try? workspace.currentThread() {
            text += styled(" · " + Self.clip(thread.title, 24), .dim)
        }
        if let badge = (try? workspace.backend(for: session.name))?.promptBadge() { text += styled(" " + badge, .warning) }
        let running = workspace.runningJobs(session: session.name).count
        if running > 0 { text += styled(" ⟳\(running)", .dim) }
        text += styled(" › ", .bold)
        // libedit reads "\u{1}\u{1}" as a literal; merge neighbouring invisible runs instead.
        return text.replacingOccurrences(of: "\u{1}\u{1}", with: "")
    }

    static func clip(_ text: String, _ length: Int) -> String {
        text.count > length ? String(text.prefix(length - 1)) + "…" : text
    }

    /// Colour codes bracketed for libedit so it does not count them as columns.
    private func styled(_ text: String, _ style: Style) -> String {
        guard capabilities.colors else { return text }
        return visible(ansi.start(style)) + text + visible(ansi.end(style))
    }

    private func visible(_ escape: String) -> String { escape.isEmpty ? "" : "\u{1}" + escape + "\u{1}" }

    // MARK: Between keystrokes

    /// Something woke the line reader: signals, or a reply that ended in the background.
    /// Returns true to abandon the line being typed.
    func wakeAtPrompt() -> Bool {
        var interrupt = false
        for signal in Signals.drain() {
            switch signal {
            case SIGINT: interrupt = true
            case SIGTERM, SIGHUP:
                quitRequested = true
                interrupt = true
            default: break
            }
        }
        var notices: [String] = []
        for event in inbox.take() {
            switch event {
            case .backgroundEnded(let job): notices.append(notice(for: job))
            case .speechFailed(let error): notices.append(ansi.wrap("hark: " + error.userMessage, .error))
            default: break
            }
        }
        if !notices.isEmpty {
            RawOutput.write("\r\u{1B}[K" + notices.joined(separator: "\n") + "\n\u{7}")
            editor.refresh()
        }
        return interrupt
    }

    func notice(for job: ReplyJob) -> String {
        if case .failed = job.outcome { return ansi.wrap(job.endNotice, .error) }
        return ansi.wrap(job.endNotice, .accent)
    }

    // MARK: Running lines

    func handle(_ line: String) {
        guard !line.trimmed.isEmpty else { return }
        // A new message silences the reply still being read out; a command does not.
        if !line.hasPrefix("/") || line.hasPrefix("//") { workspace.voice.stopSpeaking() }
        if InputRecording.mayRecord(line) {
            try? workspace.store.addInputLine(session: workspace.currentSession, line: line)
            editor.addHistory(line)
        } else if !toldLineNotKept {
            toldLineNotKept = true
            RawOutput.write(ansi.wrap(InputRecording.note, .dim) + "\n")
        }
        let workspace = self.workspace
        do {
            let outcome = try blocking { try await workspace.execute(line) }
            perform(outcome)
        } catch {
            showError(error)
        }
    }

    func showError(_ error: Error) {
        RawOutput.write(ansi.wrap("hark: " + error.userMessage, .error) + "\n", to: STDERR_FILENO)
    }

    func perform(_ outcome: CommandOutcome) {
        switch outcome {
        case .none, .events, .summary:
            break
        case .output(let document):
            let text = document.map { ansi.render($0) }.joined(separator: "\n")
            if !text.isEmpty { RawOutput.write(text + "\n") }
        case .reply(let job):
            watch(job)
        case .editDraft(let text):
            editAndSend(startingWith: text.isEmpty ? draft.joined(separator: "\n") : text)
        case .editMessage(let text, let then):
            editMessage(text, then: then)
        case .copy(let text, let what):
            do {
                let line = try Clipboard.copy(text, what: what, toTerminal: capabilities.isTTY)
                RawOutput.write(ansi.wrap(line, .success) + "\n")
            } catch {
                showError(error)
            }
        case .editConfig:
            TerminalModes.restore()
            do {
                try ExternalEditor.open(path: workspace.config.path)
                try workspace.reloadConfig()
                RawOutput.write(ansi.wrap("config reloaded", .success) + "\n")
                for warning in workspace.warnings { RawOutput.write(ansi.wrap("warning: " + warning, .warning) + "\n") }
            } catch {
                showError(error)
            }
        case .prefill(let text):
            // All but the last line become the draft (shown as continuation lines), the last
            // line goes into the input line to edit.
            var lines = text.lineSlices().map(String.init)
            let last = lines.popLast() ?? ""
            if !lines.isEmpty {
                draft += lines
                for line in lines { RawOutput.write(ansi.wrap("… ", .dim) + line + "\n") }
            }
            editor.prefill(last)
        case .listen:
            editor.requestListening()
        case .page(let text):
            Pager.show(text, capabilities: capabilities)
        case .clearScreen:
            RawOutput.write("\u{1B}[H\u{1B}[2J")
        case .quit:
            quitRequested = true
        }
    }

    /// `/edit` and Ctrl-X Ctrl-E: the draft goes to $EDITOR; what comes back is sent. If the
    /// editor fails, the draft stays in the input line.
    func editAndSend(startingWith text: String) {
        draft = []
        TerminalModes.restore()
        do {
            let edited = try ExternalEditor.edit(text)
            guard !edited.trimmed.isEmpty else {
                RawOutput.write(ansi.wrap("empty message; nothing sent", .dim) + "\n")
                return
            }
            RawOutput.write(ansi.wrap(edited, .dim) + "\n")
            handle(edited)
        } catch {
            showError(error)
            let lines = text.lineSlices().map(String.init)
            draft = Array(lines.dropLast())
            editor.prefill(lines.last ?? "")
        }
    }

    /// `/edit last`: the message in $VISUAL or $EDITOR, or, when neither is set, in the input
    /// line, where Enter hands it back (Ctrl-C leaves it as it was).
    func editMessage(_ text: String, then: @escaping @Sendable (String) async throws -> CommandOutcome) {
        guard ExternalEditor.isConfigured() else {
            pendingEdit = then
            RawOutput.write(ansi.wrap("editing your last message: Enter sends it in place of the old one, "
                + "Ctrl-C leaves it as it was", .dim) + "\n")
            perform(.prefill(text))
            return
        }
        TerminalModes.restore()
        do {
            finishEdit(try ExternalEditor.edit(text), then: then)
        } catch {
            showError(error)
        }
    }

    func finishEdit(_ edited: String, then: @escaping @Sendable (String) async throws -> CommandOutcome) {
        do {
            perform(try blocking { try await then(edited) })
        } catch {
            showError(error)
        }
    }

    // MARK: Watching a reply

    /// Shows a reply until it ends. Ctrl-C stops it (keeping what arrived); Ctrl-Z lets it
    /// finish in the background and returns to the prompt.
    func watch(_ job: ReplyJob) {
        let view = ReplyView(format: capabilities.isTTY ? .terminal : .plain, capabilities: capabilities,
                             markdown: BackendRegistry.repliesAreMarkdown(kind: job.kind))
        if job.session != workspace.currentSession { view.header(job.session) }
        job.attach(speakingObserver(for: job, InboxObserver(inbox: inbox)))
        TerminalModes.streaming()
        var laterNotices: [ReplyJob] = []
        var finished = false
        var outcome: ReplyOutcome = .complete
        while !finished {
            var fds = [pollfd(fd: inbox.readFD, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: Signals.readFD, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)]
            let count = isatty(STDIN_FILENO) == 1 ? 3 : 2
            _ = poll(&fds, nfds_t(count), view.wantsSpinner ? 100 : -1)
            for signal in Signals.drain() where signal == SIGINT || signal == SIGTERM || signal == SIGHUP {
                if signal == SIGINT && job.interruptDetaches {
                    job.detach()
                    view.aside("↪ detached; \(job.session) goes on in the background")
                    return
                }
                job.stop()
                if signal != SIGINT { quitRequested = true }
            }
            if count == 3, fds[2].revents != 0 {
                var byte: UInt8 = 0
                if read(STDIN_FILENO, &byte, 1) == 1 {
                    if byte == 0x03 && !job.interruptDetaches {
                        job.stop()
                    } else if byte == 0x1A || byte == 0x03 {
                        job.detach()
                        view.aside("↪ \(job.session) goes on in the background; you will hear when it is done")
                        return
                    } else {
                        // Typed ahead while the reply streamed: it goes to the next prompt.
                        typeAhead.append(byte)
                    }
                }
            }
            for event in inbox.take() {
                switch event {
                case .reply(let from, let replyEvent) where from === job:
                    view.render(replyEvent)
                case .replyEnded(let from, let ended) where from === job:
                    outcome = ended
                    finished = true
                case .backgroundEnded(let other):
                    laterNotices.append(other)
                case .speechFailed(let error):
                    view.aside("hark: " + error.userMessage)
                default:
                    break
                }
            }
            view.tickSpinner()
        }
        view.end(outcome, messageID: job.replyMessageID)
        if !typeAhead.isEmpty {
            editor.push(String(decoding: typeAhead, as: UTF8.self))
            typeAhead = []
        }
        if let id = job.replyMessageID { try? workspace.store.markRead(session: job.session, upTo: id) }
        if case .failed(let error, _) = outcome { showError(error) }
        for other in laterNotices { inbox.post(.backgroundEnded(other)) }
    }
}
