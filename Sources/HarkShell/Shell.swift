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
    var presenter: OutcomePresenter!
    /// Lines kept by a trailing backslash, sent with the next Enter.
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
    /// The line being typed when a read was set aside, put back at the next read.
    var setAside: String?
    /// Messages typed while a reply of their session streamed, sent once it has ended.
    var queued: [QueuedMessage] = []
    /// Pasted text shown as a one-line summary in the line, until Enter (or Tab) expands it.
    var pastes = PastedText()
    /// The reply being watched while the next line is edited below it.
    var liveReply: ReplyWatch?
    /// Ctrl-D came while a reply streamed: hark quits once it has ended and what was queued
    /// behind it has been sent.
    var quitWhenDone = false

    public init(workspace: Workspace, terminal: Terminal) throws {
        self.workspace = workspace
        self.terminal = terminal
        ansi = ANSI(terminal.capabilities)
        loop = EventLoop(terminal: terminal)
        editor = try terminal.lineInput(loop: loop)
        editor.hooks = promptHooks()
        workspace.interaction = TerminalInteraction(terminal: terminal, loop: loop)
        let inbox = loop.inbox
        workspace.onBackgroundReplyEnded = { job in inbox.post(.backgroundEnded(job)) }
        workspace.voice.onSpeechEvent = { event in
            if case .failed(let error) = event { inbox.post(.speechFailed(error)) }
        }
        presenter = OutcomePresenter(workspace: workspace, terminal: terminal, loop: loop, mode: .shell)
        presenter.shell = self
    }

    /// What the line input does at the prompt (`readDuringReply` swaps `wake`, `key` and `timeout`).
    private func promptHooks() -> LineHooks {
        var hooks = LineHooks()
        hooks.prompt = { [unowned self] in prompt() }
        hooks.complete = { [workspace] line in Completion.complete(line: line, workspace: workspace) }
        hooks.multilinePaste = { [unowned self] text in pastes.summary(for: text) }
        hooks.wake = { [unowned self] wake in wakeAtPrompt(wake) }
        hooks.key = { [unowned self] key in key.isASCII ? keyAtPrompt(UInt8(key.value)) : nil }
        hooks.listen = { [unowned self] editor in dictate(in: editor) }
        return hooks
    }

    public func run() -> Int32 {
        // Out of cooked mode before the first prompt shows: a Ctrl-D typed the moment it
        // appears would otherwise meet the kernel's line editing, not libedit, and be lost.
        terminal.setKeyMode(.keys)
        defer { terminal.setKeyMode(.user) }
        terminal.catchSignals([SIGINT, SIGTERM, SIGHUP, SIGWINCH, SIGCONT])
        startNotifying()
        greet()
        while !quitRequested {
            syncHistory()
            if sendDueMessage() { continue }
            if quitWhenDone { break }
            if let line = setAside {
                setAside = nil
                if !line.isEmpty { editor.prefill(line) }
            }
            atPrompt(editor.readLine())
        }
        leaveWorkFollowed()
        endReplies()
        workspace.prepareForExit(within: loop.serversEndWithin)
        return exitCode
    }

    /// What a line read at the prompt does.
    private func atPrompt(_ read: LineRead) {
        switch read {
        case .endOfFile:
            pastes.clear()
            if !draft.isEmpty {
                draft = []
                return
            }
            terminal.write("\n")
            quitRequested = true
        case .interrupted:
            pastes.clear()
            if quitRequested { return }
            terminal.show("^C", .dim)
            draft = []
            if pendingEdit != nil {
                pendingEdit = nil
                terminal.show("not edited; your message stays as it was", .dim)
            }
            workspace.voice.stopSpeaking()
        case .setAside(let line):
            setAside = line
        case .action(let action, let line):
            if action == "edit" { editAndSend(startingWith: (draft + [pastes.expand(line)]).joined(separator: "\n")) }
        case .line(let line):
            entered(line)
        }
    }

    /// A line entered (at the prompt or below a reply): kept in the draft after a trailing
    /// backslash, else sent with the draft.
    func entered(_ line: String) {
        if line.hasSuffix("\\") {
            draft.append(pastes.expand(String(line.dropLast())))
            return
        }
        let message = (draft + [pastes.expand(line)]).joined(separator: "\n")
        draft = []
        pastes.clear()
        if let edit = pendingEdit {
            pendingEdit = nil
            finishEdit(message, then: edit)
            return
        }
        handle(message)
    }

    /// hark is ending: replies still running are stopped, and waited for (within the bound
    /// while a signal or a hangup ends hark) so that what arrived is kept as `stopped`.
    private func endReplies() {
        let running = workspace.runningJobs
        guard !running.isEmpty else { return }
        for job in running { job.stop() }
        loop.beginEnding()
        while !workspace.runningJobs.isEmpty, let left = loop.endingIn, left > 0 {
            loop.wait(EventLoop.Interest(events: { _ in true }, timeout: Int32(left * 1000) + 1))
        }
        for message in queued { terminal.show("not sent: " + Self.clip(message.text, 60), .dim) }
    }

    func greet() {
        terminal.show(Banner.document(workspace) + awayLines())
    }

    /// Loads the input history of the session being typed in.
    func syncHistory() {
        let session = workspace.currentSession
        guard session != historySession else { return }
        historySession = session
        editor.setHistory((try? workspace.inputHistory(session: session)) ?? [])
    }

    // MARK: Running lines

    func handle(_ line: String) {
        guard !line.trimmed.isEmpty else { return }
        if let watched = liveReply, queue(line, behind: watched.job) { return }
        // A new message silences the reply still being read out; a command does not.
        if !line.hasPrefix("/") || line.hasPrefix("//") { workspace.voice.stopSpeaking() }
        remember(line)
        presenter.run(line)
    }

    /// Keeps the line in the input history, unless it holds a literal secret.
    func remember(_ line: String) {
        if InputRecording.mayRecord(line) {
            try? workspace.recordInputLine(line)
            editor.addHistory(line)
        } else if !toldLineNotKept {
            toldLineNotKept = true
            terminal.show(InputRecording.note, .dim)
        }
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

    func talk(wake: Bool) {
        let talk = TalkLoop(workspace: workspace, terminal: terminal, loop: loop, turns: nil, wake: wake)
        talk.onSent = { [unowned self] line in remember(line) }
        _ = talk.run()
        terminal.setKeyMode(.keys)
        // SIGTERM or a hangup during a reply stopped the reply and the conversation; hark ends.
        if loop.endingIn != nil { quit() }
    }

    func quit() { quitRequested = true }

    var isReadingDuringReply: Bool { liveReply != nil }

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
            let edited = try terminal.edit(text)
            // What is sent is shown, as a line typed would be.
            if !edited.trimmed.isEmpty { terminal.show(edited, .dim) }
            finishEdit(edited, then: then)
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
