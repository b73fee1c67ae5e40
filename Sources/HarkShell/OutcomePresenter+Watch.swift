import FoundationEssentials
import Glibc
import HarkCore

/// Watching a reply until it ends, for the shell and for one-shot mode.
extension OutcomePresenter {
    /// Shows `job` as it streams; returns the exit status its end deserves. In the shell,
    /// with a terminal for the reply, the next line is edited below it meanwhile
    /// (`Shell.readDuringReply`); otherwise keys typed meanwhile wait for the next prompt. In
    /// a pipe the job's own task writes straight to stdout (no hop through this thread), which
    /// keeps up with a fast stream. See `ReplyWatch` for Ctrl-C, Ctrl-Z and signals.
    func watch(_ job: ReplyJob) -> Int32 {
        let interactive = mode == .shell
        let format: ReplyView.Format = json ? .json : (terminal.capabilities.isTTY && !codeOnly ? .terminal : .plain)
        let terminal = self.terminal
        let live = interactive && terminal.hasKeyboard && format == .terminal && shell != nil
        let flow = live ? OutputFlow(terminal: terminal) : nil
        // With --code the text is held back: the blocks are printed from the stored reply.
        let codeOnly = self.codeOnly
        let view = ReplyView(format: format, capabilities: terminal.capabilities,
                             markdown: BackendRegistry.repliesAreMarkdown(kind: job.kind), width: { terminal.size.columns },
                             clock: workspace.environment.clock, output: { text in
                                 if codeOnly { return }
                                 if let flow { flow.reply(text) } else { terminal.write(text) }
                             }, errorOutput: { terminal.writeError($0) })
        flow?.replyRowEnded = { [weak view] in view?.rowEndedElsewhere() }
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
        if let speaker { onReplySpeaker?(speaker) }
        job.attach(speaker.map { SpeakingObserver(observer, speaker: $0) } ?? observer)
        if interactive { terminal.setKeyMode(.keys) }
        let asks = terminal.hasKeyboard && format == .terminal
        let watch = ReplyWatch(job: job, view: view, loop: loop, terminal: terminal, shell: shell, asks: asks)
        loop.watchingReply.update { $0 = asks }
        defer { loop.watchingReply.update { $0 = false } }
        if let flow, let shell {
            shell.readDuringReply(watch, flow: flow)
        } else {
            watch.run(keys: interactive && terminal.hasKeyboard)
        }
        guard let outcome = watch.outcome else { return 0 }  // in the background
        endView(view, job, outcome)
        shell?.notifyEnded(job, watched: true, rang: false)
        if let id = job.replyMessageID { try? workspace.markRead(session: job.session, upTo: id) }
        return ended(job, outcome, speaking: speaker != nil && !watch.abandoned)
    }

    /// The reply's last lines. A reply stopped before its first byte says so: nothing of it
    /// was kept.
    private func endView(_ view: ReplyView, _ job: ReplyJob, _ outcome: ReplyOutcome) {
        guard outcome == .stopped, job.replyMessageID == nil, mode == .shell, terminal.capabilities.isTTY else {
            return view.end(outcome, messageID: job.replyMessageID)
        }
        view.end(.complete, messageID: nil)
        terminal.show("(stopped before any reply arrived)", .dim)
    }

    /// The reply ended: in one-shot mode, wait until it has been heard; the status says how it went.
    private func ended(_ job: ReplyJob, _ outcome: ReplyOutcome, speaking: Bool) -> Int32 {
        if !interactiveMode {
            if speaking, outcome != .stopped, workspace.voice.isSpeaking { onSpeaking?() }
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
        let text = job.replyMessageID.flatMap { try? workspace.message(id: $0) }?.text ?? job.text
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
