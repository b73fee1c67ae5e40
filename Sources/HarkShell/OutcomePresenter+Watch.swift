import FoundationEssentials
import Glibc
import HarkCore

/// Watching a reply until it ends: the one watch loop, for the shell and for one-shot mode.
extension OutcomePresenter {
    /// Shows `job` as it streams; returns the exit status its end deserves. In the shell,
    /// Ctrl-C stops it (keeping what arrived), Ctrl-Z (or Ctrl-C on a build's console) lets it
    /// finish in the background, and other keys typed meanwhile wait for the next prompt. In a
    /// pipe the job's own task writes straight to stdout (no hop through this thread), which
    /// keeps up with a fast stream.
    func watch(_ job: ReplyJob) -> Int32 {
        let interactive = mode == .shell
        let format: ReplyView.Format = json ? .json : (terminal.capabilities.isTTY && !codeOnly ? .terminal : .plain)
        let terminal = self.terminal
        // With --code the text is held back: the blocks are printed from the stored reply.
        let codeOnly = self.codeOnly
        let view = ReplyView(format: format, capabilities: terminal.capabilities,
                             markdown: BackendRegistry.repliesAreMarkdown(kind: job.kind), width: { terminal.size.columns },
                             output: { if !codeOnly { terminal.write($0) } }, errorOutput: { terminal.writeError($0) })
        if interactive && job.session != workspace.currentSession { view.header(job.session) }
        let observer: ReplyObserver = !interactive && format != .terminal
            ? DirectObserver(view: view, inbox: loop.inbox) : InboxObserver(inbox: loop.inbox)
        let speaker: ReplySpeaker?
        do {
            speaker = try replySpeaker(for: job)
        } catch {
            job.stop()
            return fail(error)
        }
        job.attach(speaker.map { SpeakingObserver(observer, speaker: $0) } ?? observer)
        if interactive { terminal.setKeyMode(.keys) }
        let keys = interactive && terminal.hasKeyboard
        var typedAhead: [UInt8] = []
        var outcome: ReplyOutcome?
        // A question of the reply's being answered (ReplyQuestion): it takes the keys meanwhile.
        var question: ReplyQuestion?
        let asks = terminal.hasKeyboard && format == .terminal
        loop.watchingReply.update { $0 = asks }
        defer {
            loop.watchingReply.update { $0 = false }
            question?.answer(nil)
        }
        while outcome == nil {
            let wake = loop.wait(EventLoop.Interest(keys: keys || question != nil, signals: true, events: { Self.concerns($0, job) },
                                                    timeout: view.wantsSpinner && question == nil ? 100 : nil))
            for signal in wake.signals where [SIGINT, SIGTERM, SIGHUP].contains(signal) {
                if interactive && signal == SIGINT && job.interruptDetaches {
                    return detach(job, view, typedAhead, "↪ detached; \(job.session) goes on in the background")
                }
                job.stop()
                if signal != SIGINT { shell?.quit() }
            }
            if wake.keys {
                var keys = loop.takeKeys()
                while !keys.isEmpty {
                    let key = keys.removeFirst()
                    if let asked = question {
                        guard let choice = asked.choice(for: key) else { continue }
                        view.answered(choice.map(String.init) ?? "")
                        asked.answer(choice)
                        question = nil
                        continue
                    }
                    if key == 0x03 && !job.interruptDetaches {
                        job.stop()
                    } else if key == 0x1A || key == 0x03 {
                        return detach(job, view, typedAhead + keys,
                                      "↪ \(job.session) goes on in the background; you will hear when it is done")
                    } else {
                        typedAhead.append(key)
                    }
                }
            }
            for event in wake.events {
                switch event {
                case .reply(_, let replyEvent): view.render(replyEvent)
                case .replyEnded(_, let ended): outcome = ended
                case .question(let asked):
                    guard asks, question == nil else {
                        asked.answer(nil)
                        break
                    }
                    if !interactive { terminal.setKeyMode(.keys) }
                    question = asked
                    view.ask(asked.prompt)
                    shell?.notifyQuestion(asked.prompt, session: job.session)
                case .speechFailed(let error):
                    if interactive { view.aside("hark: " + error.userMessage) } else { terminal.showError(error) }
                default: break
                }
            }
            if question == nil { view.tickSpinner() }
        }
        loop.unread(typedAhead)
        view.end(outcome!, messageID: job.replyMessageID)
        shell?.notifyEnded(job, watched: true, rang: false)
        if let id = job.replyMessageID { try? workspace.store.markRead(session: job.session, upTo: id) }
        return ended(job, outcome!, speaking: speaker != nil)
    }

    /// The events a watch of `job` takes: its own, and speech failing. A reply ending in the
    /// background waits for the prompt.
    static func concerns(_ event: ShellEvent, _ job: ReplyJob) -> Bool {
        switch event {
        case .reply(let from, _), .replyEnded(let from, _): return from === job
        case .speechFailed, .question: return true
        default: return false
        }
    }

    private func detach(_ job: ReplyJob, _ view: ReplyView, _ typedAhead: [UInt8], _ aside: String) -> Int32 {
        job.detach()
        loop.unread(typedAhead)
        view.aside(aside)
        return 0
    }

    /// The reply ended: in one-shot mode, wait until it has been heard; the status says how it went.
    private func ended(_ job: ReplyJob, _ outcome: ReplyOutcome, speaking: Bool) -> Int32 {
        if !interactiveMode {
            if speaking, outcome != .stopped, !loop.waitForSpeech(workspace.voice.speechOutput()) {
                return HarkError.ExitCode.interrupted.rawValue
            }
            let late = loop.wait(EventLoop.Interest(events: { if case .speechFailed = $0 { return true }; return false },
                                                    timeout: 0))
            for case .speechFailed(let error) in late.events { terminal.showError(error) }
        }
        if codeOnly, outcome == .complete { return printCode(job) }
        switch outcome {
        case .complete:
            if let reason = job.finishReason, BackendRegistry.kind(named: job.kind)?.failingFinishReasons.contains(reason) == true {
                return HarkError.ExitCode.backend.rawValue
            }
            return 0
        case .stopped:
            return HarkError.ExitCode.interrupted.rawValue
        case .failed(let error, _):
            terminal.showError(error)
            return error.exitCode.rawValue
        }
    }

    private var interactiveMode: Bool { mode == .shell }

    /// `--code`: the reply's code blocks, each followed by a line feed; 1 (as `hark search`
    /// without a hit) when it has none.
    private func printCode(_ job: ReplyJob) -> Int32 {
        let text = job.replyMessageID.flatMap { try? workspace.store.message(id: $0) }?.text ?? job.text
        let blocks = CodeBlocks.extract(from: text)
        guard !blocks.isEmpty else {
            terminal.writeError("hark: the reply has no code block\n")
            return 1
        }
        terminal.write(blocks.map { $0.code + "\n" }.joined())
        return 0
    }

    /// Who reads the reply aloud: in the shell, whoever the session's voice settings name
    /// (a problem is said and the reply shown anyway); in one-shot mode, only with --speak,
    /// and a problem is the command's error.
    private func replySpeaker(for job: ReplyJob) throws -> ReplySpeaker? {
        switch mode {
        case .shell:
            do {
                let session = try workspace.session(named: job.session)
                return try workspace.voice.replySpeaker(for: session, config: workspace.config, paths: workspace.paths)
            } catch {
                terminal.showError(error)
                return nil
            }
        case .oneShot(_, let speak):
            guard speak else { return nil }
            let session = try workspace.session(named: job.session)
            return try workspace.voice.replySpeaker(for: session, config: workspace.config, paths: workspace.paths, forced: true)
        }
    }
}
