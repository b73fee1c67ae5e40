import FoundationEssentials
import Glibc
import HarkCore

/// The interactive shell: reads lines from the terminal's line input, runs them through the
/// workspace, and hands what comes back to the presenter. Reaches the screen and the keyboard
/// only through its `Terminal`, and waits only in its `EventLoop`.
public final class Shell {
    let workspace: Workspace
    let terminal: Terminal
    let loop: EventLoop
    let ansi: ANSI
    let editor: LineInput
    private var presenter: OutcomePresenter!
    /// Lines kept by a trailing backslash or a multi-line paste, sent with the next Enter.
    var draft: [String] = []
    var historySession: String?
    var quitRequested = false
    var exitCode: Int32 = 0
    /// Shown before the prompt while dictating: "loading the model…" or the level meter.
    var listenIndicator: String?
    /// Columns the prompt last drawn takes (dictation redraws the line in place).
    var promptWidth = 0
    /// A line holding a literal secret is not kept in the input history; said the first time.
    var toldLineNotKept = false
    /// `/edit last` without an editor: the next line entered replaces the message, through this.
    var pendingEdit: (@Sendable (String) async throws -> CommandOutcome)?

    public init(workspace: Workspace, terminal: Terminal) throws {
        self.workspace = workspace
        self.terminal = terminal
        ansi = ANSI(enabled: terminal.capabilities.colors)
        loop = EventLoop(terminal: terminal)
        editor = try terminal.lineInput(loop: loop)
        var hooks = LineHooks()
        hooks.prompt = { [unowned self] in prompt() }
        hooks.complete = { line in Completion.complete(line: line, workspace: workspace) }
        hooks.multilinePaste = { [unowned self] lines in
            terminal.write("\r\u{1B}[K")
            keepInDraft(lines)
        }
        hooks.wake = { [unowned self] wake in wakeAtPrompt(wake) }
        hooks.listen = { [unowned self] editor in dictate(in: editor) }
        editor.hooks = hooks
        workspace.interaction = TerminalInteraction(terminal: terminal, loop: loop)
        let inbox = loop.inbox
        workspace.onBackgroundReplyEnded = { job in inbox.post(.backgroundEnded(job)) }
        workspace.voice.onSpeechEvent = { event in
            if case .failed(let error) = event { inbox.post(.speechFailed(error)) }
        }
        presenter = OutcomePresenter(workspace: workspace, terminal: terminal, loop: loop, mode: .shell)
        presenter.shell = self
    }

    public func run() -> Int32 {
        // Out of cooked mode before the first prompt shows: a Ctrl-D typed the moment it
        // appears would otherwise meet the kernel's line editing, not libedit, and be lost.
        terminal.setKeyMode(.keys)
        defer { terminal.setKeyMode(.user) }
        terminal.catchSignals([SIGINT, SIGTERM, SIGHUP, SIGWINCH])
        greet()
        while !quitRequested {
            syncHistory()
            switch editor.readLine() {
            case .endOfFile:
                if !draft.isEmpty {
                    draft = []
                    continue
                }
                terminal.write("\n")
                quitRequested = true
            case .interrupted:
                if quitRequested { break }
                terminal.show("^C", .dim)
                draft = []
                if pendingEdit != nil {
                    pendingEdit = nil
                    terminal.show("not edited; your message stays as it was", .dim)
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
        workspace.prepareForExit()
        return exitCode
    }

    func greet() {
        let session = workspace.currentConfig
        var lines: [String] = []
        lines.append(ansi.wrap("hark \(HarkVersion.string)", .bold) + ansi.wrap(" · session \(session.name) (\(session.kind))"
            + " · /help for commands, Ctrl-D to quit", .dim))
        lines += workspace.greeting().map(ansi.render)
        for warning in workspace.warnings { lines.append(ansi.wrap("warning: " + warning, .warning)) }
        terminal.write(lines.joined(separator: "\n") + "\n")
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
    public static func visibleText(_ prompt: String) -> String {
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
        guard terminal.capabilities.colors else { return text }
        return visible(ansi.start(style)) + text + visible(ansi.end(style))
    }

    private func visible(_ escape: String) -> String { escape.isEmpty ? "" : "\u{1}" + escape + "\u{1}" }

    // MARK: Between keystrokes

    /// Something woke the line reader: signals, or a reply that ended in the background.
    /// Returns true to abandon the line being typed.
    func wakeAtPrompt(_ wake: EventLoop.Wake) -> Bool {
        var interrupt = false
        for signal in wake.signals {
            switch signal {
            case SIGINT: interrupt = true
            case SIGTERM, SIGHUP:
                quitRequested = true
                interrupt = true
            default: break
            }
        }
        var notices: [String] = []
        for event in wake.events {
            switch event {
            case .backgroundEnded(let job): notices.append(notice(for: job))
            case .speechFailed(let error): notices.append(ansi.wrap("hark: " + error.userMessage, .error))
            case .question(let question): question.answer(nil)  // its reply is no longer watched
            default: break  // events of a reply no longer watched, a dictation that ended
            }
        }
        if !notices.isEmpty {
            terminal.write("\r\u{1B}[K" + notices.joined(separator: "\n") + "\n\u{7}")
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
            terminal.show(InputRecording.note, .dim)
        }
        presenter.run(line)
    }

    /// Lines that wait for the next Enter, shown as continuation lines.
    func keepInDraft(_ lines: [String]) {
        draft += lines
        for line in lines { terminal.write(ansi.wrap("… ", .dim) + line + "\n") }
    }

    /// `/edit` and Ctrl-X Ctrl-E: the draft goes to $EDITOR; what comes back is sent. If the
    /// editor fails, the draft stays in the input line.
    func editAndSend(startingWith text: String) {
        draft = []
        do {
            let edited = try terminal.edit(text)
            guard !edited.trimmed.isEmpty else {
                terminal.show("empty message; nothing sent", .dim)
                return
            }
            terminal.show(edited, .dim)
            handle(edited)
        } catch {
            terminal.showError(error)
            let lines = text.lineSlices().map(String.init)
            draft = Array(lines.dropLast())
            editor.prefill(lines.last ?? "")
        }
    }
}

/// What only the interactive shell does with an outcome.
extension Shell: ShellControls {
    func prefill(_ text: String) {
        // All but the last line become the draft (shown as continuation lines), the last
        // line goes into the input line to edit.
        var lines = text.lineSlices().map(String.init)
        let last = lines.popLast() ?? ""
        keepInDraft(lines)
        editor.prefill(last)
    }

    func editDraft(_ text: String) {
        editAndSend(startingWith: text.isEmpty ? draft.joined(separator: "\n") : text)
    }

    func listen() { editor.requestListening() }

    func quit() { quitRequested = true }

    /// `/edit last`: the message in $VISUAL or $EDITOR, or, when neither is set, in the input
    /// line, where Enter hands it back (Ctrl-C leaves it as it was).
    func editMessage(_ text: String, then: @escaping @Sendable (String) async throws -> CommandOutcome) {
        guard terminal.hasEditor else {
            pendingEdit = then
            terminal.show("editing your last message: Enter sends it in place of the old one, "
                + "Ctrl-C leaves it as it was", .dim)
            prefill(text)
            return
        }
        do {
            finishEdit(try terminal.edit(text), then: then)
        } catch {
            terminal.showError(error)
        }
    }

    func finishEdit(_ edited: String, then: @escaping @Sendable (String) async throws -> CommandOutcome) {
        do {
            _ = presenter.present(try blocking { try await then(edited) })
        } catch {
            presenter.fail(error)
        }
    }
}
