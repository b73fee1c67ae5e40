import FoundationEssentials
import Glibc
import HarkCore

/// What only the interactive shell can do with an outcome: it owns the draft and the line.
protocol ShellControls: AnyObject {
    /// Text into the input line (all but its last line into the draft).
    func prefill(_ text: String)
    /// $EDITOR on `text` (or on the draft when empty), then send what comes back.
    func editDraft(_ text: String)
    func listen()
    /// The hands-free loop (`/talk`), until it is told to stop.
    func talk(wake: Bool)
    func quit()
    /// `/edit last`: the message to edit, and what to do with the edited text.
    func editMessage(_ text: String, then: @escaping @Sendable (String) async throws -> CommandOutcome)
    /// A reply ended, or asks something: notified when it happened out of sight (Shell+Notify).
    func notifyEnded(_ job: ReplyJob, watched: Bool, rang: Bool)
    func notifyQuestion(_ prompt: String, isForm: Bool, session: String)
    /// Edits lines below the reply `watch` follows until it ends (`Shell+Live`).
    func readDuringReply(_ watch: ReplyWatch, flow: OutputFlow)
    /// A reply is being watched while a line is edited below it.
    var isReadingDuringReply: Bool { get }
}

/// Runs a line and shows what it produced, in the shell and in one-shot mode: the one place a
/// `CommandOutcome` is acted on (and, in `OutcomePresenter+Watch`, a reply is watched). The
/// tests see it at work by driving the shell with a fake terminal.
final class OutcomePresenter {
    enum Mode: Equatable {
        /// The interactive shell: keys act on a streaming reply; outcomes that need a person
        /// (the input line, the editor, dictation) go to the shell.
        case shell
        /// One line, then exit (`hark -s NAME "message"`): the reply on stdout as it comes (or
        /// as JSON lines), read aloud with `speak`, the exit status telling how it went.
        case oneShot(json: Bool, speak: Bool)
    }

    let workspace: Workspace
    let terminal: Terminal
    let loop: EventLoop
    let mode: Mode
    /// Set in `.shell` mode.
    weak var shell: ShellControls?
    /// One-shot `--code`: only the reply's fenced code blocks are printed, once it is whole.
    var codeOnly = false
    /// One-shot: the reply has arrived and is still being read aloud (`/talk` shows it).
    var onSpeaking: (() -> Void)?
    /// Who reads each reply aloud, as it starts: `/talk` silences it when the user talks over it.
    var onReplySpeaker: ((ReplySpeaker) -> Void)?

    var json: Bool {
        if case .oneShot(let json, _) = mode { return json }
        return false
    }

    init(workspace: Workspace, terminal: Terminal, loop: EventLoop, mode: Mode) {
        self.workspace = workspace
        self.terminal = terminal
        self.loop = loop
        self.mode = mode
    }

    /// Runs one line through the workspace (with what was piped into a one-shot hark) and shows
    /// the outcome; returns the exit status.
    @discardableResult
    func run(_ line: String, piped: PipedInput? = nil) -> Int32 {
        let workspace = self.workspace
        do {
            let outcome = try blocking { try await workspace.execute(line, piped: piped) }
            if line.trimmed.hasPrefix("!"), case .reply(let job) = outcome { showSent(job) }
            return present(outcome)
        } catch {
            return fail(error)
        }
    }

    /// What `!cmd` sent (the command's output), dim, its first lines: the user did not type it.
    private func showSent(_ job: ReplyJob) {
        guard shell != nil, let id = job.userMessageID, let sent = try? workspace.message(id: id) else { return }
        let lines = sent.text.lineSlices()
        var shown = lines.prefix(Self.sentLines).map { StyledLine("│ " + $0, .dim) }
        if lines.count > Self.sentLines { shown.append(StyledLine("│ … \(lines.count - Self.sentLines) more lines", .dim)) }
        terminal.show([StyledLine("sent:", .dim)] + shown)
    }

    static let sentLines = 8

    func present(_ outcome: CommandOutcome) -> Int32 {
        switch outcome {
        case .none, .events, .summary:
            break
        case .copy(let text, let what):
            do {
                guard let said = try terminal.copy(text, what: what) else { break }
                if shell != nil { terminal.show(said, .success) } else { terminal.writeError("hark: " + said + "\n") }
            } catch {
                return fail(error)
            }
        case .editMessage(let text, let then):
            guard let shell else { return fail(HarkError.usage("that command needs the interactive shell")) }
            shell.editMessage(text, then: then)
        case .output(var document):
            if shell == nil {
                // One-shot: notes on the way ("logged in to …") go to stderr, so stdout is the
                // answer alone.
                for note in document where note.isNote { terminal.writeError("hark: " + note.plainText + "\n") }
                document.removeAll { $0.isNote }
                terminal.show(document)
            } else {
                // A command's output (/help, /history, /voice) taller than the screen is paged.
                terminal.showLong(document)
            }
        case .reply(let job):
            guard shell?.isReadingDuringReply != true else {
                // Below another reply: this one goes on in the background, announced when done.
                job.detach()
                terminal.show("↪ \(job.session) answers in the background; you will hear when it is done", .dim)
                return 0
            }
            return watch(job)
        case .page(let text):
            if shell != nil { terminal.page(terminal.forScreen(console: text)) } else { terminal.write(terminal.forScreen(console: text)) }
        case .clearScreen:
            if shell != nil { terminal.clearScreen() }
        case .quit:
            shell?.quit()
        case .prefill(let text):
            guard let shell else {
                terminal.write(text + "\n")
                break
            }
            shell.prefill(text)
        case .editDraft(let text):
            guard let shell else { return fail(HarkError.usage("that command needs the interactive shell")) }
            shell.editDraft(text)
        case .editConfig:
            guard shell != nil else { return fail(HarkError.usage("that command needs the interactive shell")) }
            editConfig()
        case .listen:
            guard let shell else {
                return fail(HarkError.usage("/listen needs the interactive shell; hark --listen dictates a message from a script"))
            }
            shell.listen()
        case .talk(let wake):
            guard let shell else {
                return fail(HarkError.usage("/talk needs the interactive shell; hark talk -s SESSION talks from a script"))
            }
            shell.talk(wake: wake)
        }
        return 0
    }

    /// An error as the user sees it (and, with --json, as a JSON line); returns its exit status.
    @discardableResult
    func fail(_ error: Error) -> Int32 {
        if json {
            terminal.write(JSON.object(["type": "error", "message": .string(error.userMessage),
                                        "exit_code": .number(Double(error.exitCode.rawValue))]).encoded() + "\n")
        }
        terminal.showError(error)
        return error.exitCode.rawValue
    }

    private func editConfig() {
        do {
            try terminal.editFile(workspace.config.path)
            try workspace.reloadConfig()
            terminal.show("config reloaded", .success)
            for warning in workspace.warnings { terminal.show("warning: " + warning, .warning) }
        } catch {
            terminal.showError(error)
        }
    }
}
