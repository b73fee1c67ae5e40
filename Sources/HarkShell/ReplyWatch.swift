import FoundationEssentials
import Glibc
import HarkCore

/// One reply being watched until it ends: what its signals, events and keys do. Ctrl-C stops
/// it (keeping what arrived), Ctrl-Z (or Ctrl-C on a build's console) lets it go on in the
/// background, SIGTERM, SIGQUIT and SIGHUP stop it and end hark, a question it asks takes the
/// keys. Waited on by `run` (one-shot mode, a shell whose output is a pipe) or by the shell's
/// live line, which edits the next line meanwhile (`Shell.readDuringReply`).
final class ReplyWatch {
    let job: ReplyJob
    let view: ReplyView
    let loop: EventLoop
    let terminal: Terminal
    weak var shell: ShellControls?
    /// A question can be asked (a person at a terminal sees the reply).
    let asks: Bool
    /// How it ended: the reply's outcome, or nil while it runs or once it went to the background.
    private(set) var outcome: ReplyOutcome?
    private(set) var detached = false
    /// The stop did not end the reply in time; the outcome is taken as `stopped`.
    private(set) var abandoned = false
    /// A question of the reply's being answered (ReplyQuestion): it takes the keys meanwhile.
    private var question: ReplyQuestion?
    /// An agent's form being asked (ReplyForm): lines typed go to it meanwhile.
    private var form: ReplyForm?
    /// What is typed for the form without a line editor (the terminal in its line mode).
    private var formBytes: [UInt8] = []
    /// Keys typed meanwhile, for the next prompt (`run` only).
    private var typedAhead: [UInt8] = []

    init(job: ReplyJob, view: ReplyView, loop: EventLoop, terminal: Terminal, shell: ShellControls?, asks: Bool) {
        self.job = job
        self.view = view
        self.loop = loop
        self.terminal = terminal
        self.shell = shell
        self.asks = asks
    }

    deinit {
        question?.answer(nil)
        form?.answer(.cancel)
    }

    /// A form is being asked: lines entered answer it.
    var fillsForm: Bool { form != nil }

    /// What the line being edited answers while a form is asked: `mcp tickets · Name`.
    var formPrompt: String? {
        guard let conversation = form?.conversation else { return nil }
        return conversation.question.asker + " · " + (conversation.currentField?.label ?? "yes, change or cancel")
    }

    var isOver: Bool { outcome != nil || detached }

    /// Milliseconds until something is due without news: the spinner's next frame, the end
    /// of the bound on a stop while hark is ending; nil to wait for news.
    var timeout: Int32? {
        var due: Int32?
        if view.wantsSpinner && question == nil && form == nil { due = 100 }
        if let left = loop.endingIn { due = min(due ?? Int32.max, max(0, Int32(left * 1000))) }
        return due
    }

    /// Waits for the reply in the loop, keys included: the watch without a line editor.
    func run(keys: Bool) {
        while !isOver {
            let job = self.job
            let wake = loop.wait(EventLoop.Interest(keys: keys || question != nil || form != nil, signals: true,
                                                    events: { Self.concerns($0, job) }, timeout: timeout))
            take(signals: wake.signals)
            if wake.keys {
                var keys = loop.takeKeys()[...]
                while let key = keys.popFirst(), !isOver {
                    if self.key(key, live: false) == nil { typedAhead.append(key) }
                }
                typedAhead += keys
            }
            take(events: wake.events)
            tick(timedOut: wake.timedOut)
        }
        loop.unread(typedAhead)
    }

    /// The events a watch of `job` takes without a line editor: its own, speech failing, a
    /// question. A reply ending in the background waits for the prompt.
    static func concerns(_ event: ShellEvent, _ job: ReplyJob) -> Bool {
        switch event {
        case .reply(let from, _), .replyEnded(let from, _): return from === job
        case .speechFailed, .question, .form, .tell: return true
        default: return false
        }
    }

    func take(signals: [Int32]) {
        for signal in signals {
            switch signal {
            case SIGINT where form != nil:
                // The terminal in its line mode turns Ctrl-C into SIGINT: it dismisses the form.
                endForm(.cancel, [form?.conversation.dismissedLine ?? "Cancelled."])
            case SIGINT:
                interrupt()
            case SIGTERM, SIGHUP:
                // hark ends: the reply stops (what arrived is kept) and is waited for only so long.
                job.stop()
                shell?.quit()
                loop.beginEnding()
                question?.answer(nil)
                question = nil
                if form != nil { endForm(.cancel, []) }
            default:
                break
            }
        }
    }

    /// The reply's events; others (another reply's, dictation's) are not this watch's.
    func take(events: [ShellEvent]) {
        for event in events {
            switch event {
            case .reply(let from, let replyEvent) where from === job: view.render(replyEvent)
            case .replyEnded(let from, let ended) where from === job: outcome = outcome ?? ended
            case .question(let asked):
                guard asks, question == nil, loop.endingIn == nil else {
                    asked.answer(nil)
                    break
                }
                if shell == nil { terminal.setKeyMode(.keys) }
                question = asked
                view.ask(asked.prompt)
                shell?.notifyQuestion(asked.prompt, isForm: false, session: job.session)
            case .form(let asked):
                guard asks, form == nil, question == nil, loop.endingIn == nil else {
                    asked.answer(nil)
                    break
                }
                form = asked
                formBytes = []
                view.questionLines(asked.conversation.begin())
                // Without a line editor the terminal's own line mode reads the answers.
                if shell == nil { terminal.setKeyMode(.user) }
                promptForm()
                shell?.notifyQuestion(asked.conversation.question.message, isForm: true, session: job.session)
            case .tell(let line):
                view.render(.notice(line))
            case .speechFailed(let error):
                if shell != nil { view.aside("hark: " + error.userMessage) } else { terminal.showError(error) }
            default:
                break
            }
        }
    }

    /// The wait timed out or woke: the spinner turns, and a stop that outlived its bound is
    /// given up on.
    func tick(timedOut: Bool) {
        if question == nil { view.tickSpinner() }
        if outcome == nil, let left = loop.endingIn, left <= 0 {
            abandoned = true
            outcome = .stopped
        }
    }

    /// A key typed while the reply streams: the answer to a question, Ctrl-C, Ctrl-Z. Returns
    /// nil for a key this watch leaves alone (typed ahead, or for the live line to edit).
    func key(_ key: UInt8, live: Bool) -> ReadDecision? {
        if form != nil { return formKey(key, live: live) }
        if let asked = question {
            guard let choice = asked.choice(for: key) else { return .keepReading }
            view.answered(choice.map(String.init) ?? "")
            asked.answer(choice)
            question = nil
            return .keepReading
        }
        switch key {
        case 0x03:
            return interrupt() ? .setAside : .keepReading
        case 0x1A:
            detach("↪ \(job.session) goes on in the background; you will hear when it is done")
            return .setAside
        default:
            return nil
        }
    }

    /// A key while a form is asked: the line editor edits the answer (live), or the terminal's
    /// line mode sends it whole, Enter last. Ctrl-C and Ctrl-D dismiss the form; Ctrl-Z waits.
    private func formKey(_ key: UInt8, live: Bool) -> ReadDecision? {
        if key == 0x03 || (key == 0x04 && !live) {
            endForm(.cancel, [form?.conversation.dismissedLine ?? "Cancelled."])
            return .keepReading
        }
        switch key {
        case 0x1A:
            return .keepReading
        case 0x0A, 0x0D:
            if live { return nil }
            let line = String(decoding: formBytes, as: UTF8.self)
            formBytes = []
            view.answeredByTerminal()
            formLine(line)
            return .keepReading
        default:
            if live { return nil }
            formBytes.append(key)
            return .keepReading
        }
    }

    /// A line entered for the form: its next question, or its end.
    func formLine(_ line: String) {
        guard let asked = form else { return }
        switch asked.conversation.take(line) {
        case .ask(let lines):
            view.questionLines(lines)
            promptForm()
        case .done(let outcome, let lines):
            endForm(outcome, lines)
        }
    }

    private func endForm(_ outcome: QuestionOutcome, _ lines: [String]) {
        guard let asked = form else { return }
        form = nil
        formBytes = []
        if !lines.isEmpty { view.questionLines(lines) }
        if shell == nil { terminal.setKeyMode(.keys) }
        asked.answer(outcome)
    }

    /// Without a line editor: where the answer is typed.
    private func promptForm() {
        if shell == nil { view.ask("› ") }
    }

    /// Ctrl-C: stops the reply, or sends a build's console to the background. True when it
    /// went to the background.
    @discardableResult
    private func interrupt() -> Bool {
        guard shell != nil, job.interruptDetaches else {
            job.stop()
            return false
        }
        detach("↪ detached; \(job.session) goes on in the background")
        return true
    }

    private func detach(_ aside: String) {
        job.detach()
        detached = true
        view.aside(aside)
    }
}
