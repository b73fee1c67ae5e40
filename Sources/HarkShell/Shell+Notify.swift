import FoundationEssentials
import Glibc
import HarkCore

/// Telling the user what ended while they looked elsewhere: a notification (the terminal's,
/// the desktop's, or the bell, as `notify` says) when the terminal is not focused or it
/// happened in another session; the work followed after hark exits, and what ended of it
/// while hark was not running.
extension Shell {
    /// At the start: focus reports on, and one look (in the background, bounded) at the work
    /// an earlier hark left running.
    func startNotifying() {
        terminal.reportFocus(true)
        let inbox = loop.inbox
        workspace.lookAtFollowedWork(within: 10) { recorded in inbox.post(.workEnded(recorded)) }
    }

    /// The banner's lines about what `hark watch` recorded while hark was not running.
    func awayLines() -> Document {
        let ended = workspace.endedWhileAway()
        guard !ended.isEmpty else { return [] }
        let shown = ended.prefix(5).map { StyledLine("  " + $0) }
        return [StyledLine("while you were away (/inbox lists them):", .accent)] + shown
            + (ended.count > 5 ? [StyledLine("  … and \(ended.count - 5) more", .dim)] : [])
    }

    /// A reply ended: notified when it ended out of sight (another session, or an unfocused
    /// terminal). `rang`: the notice above the prompt already rang the bell.
    func notifyEnded(_ job: ReplyJob, watched: Bool, rang: Bool) {
        guard let outcome = job.outcome else { return }
        var notification = HarkNotification.replyEnded(session: job.session, kind: job.kind, outcome: outcome,
                                                       summary: job.lastNotice ?? job.text)
        if let reason = job.finishReason, reason == "input-required" || reason == "auth-required" {
            notification.what = reason == "input-required" ? "task asks for input" : "task asks for authorization"
        }
        notify(notification, session: job.session, watched: watched, rang: rang)
    }

    /// A watched reply asks something while the terminal is not focused: a choice of keys
    /// (may this tool run? approve or deny?) or a form's question, whoever asks it (a tool, an
    /// agent, a workflow).
    func notifyQuestion(_ prompt: String, isForm: Bool, session: String) {
        notify(HarkNotification(session: session, what: isForm ? "asks you a question" : "asks you to choose", words: prompt),
               session: session, watched: true, rang: false)
    }

    /// An earlier hark's work ended (found at the start).
    func notifyWorkEnded(_ recorded: WorkWatcher.Recorded) {
        notify(recorded.notification, session: recorded.work.session, watched: false, rang: true)
    }

    private func notify(_ notification: HarkNotification, session: String, watched: Bool, rang: Bool) {
        guard NotificationPolicy.shouldNotify(session: session, current: workspace.currentSession, focus: loop.focus.focus,
                                              watched: watched) else { return }
        let settings = NotifySettings.of(workspace.config.session(named: session), in: workspace.config)
        let terminal = self.terminal
        let notifier = terminal.notifier()
        guard let channel = notifier.channel(for: notification, settings) else { return }
        if channel == .bell && rang { return }
        notifier.notify(notification, settings)
    }

    /// Whether the notice of a reply ending rings the bell: not with `notify = off` in `[hark]`.
    var noticeRings: Bool { NotifySettings.of(nil, in: workspace.config).mode != .off }

    /// hark exits: what goes on at its server is followed from now on; said once.
    func leaveWorkFollowed() {
        let followed = workspace.followRunningWork()
        guard !followed.isEmpty else { return }
        terminal.write(ansi.wrap("followed after exit (hark watch records how it ends): " + followed.joined(separator: ", "), .dim)
            + "\n")
    }

    /// The line an earlier hark's work ending shows above the prompt.
    func notice(for recorded: WorkWatcher.Recorded) -> String {
        ansi.wrap("↩ while you were away: " + recorded.line, recorded.end.status == .failed ? .error : .accent)
    }
}

extension Terminal {
    /// Notifications written to this terminal when it is one; else desktop ones only.
    func notifier() -> Notifier {
        guard capabilities.isTTY else { return Notifier(write: nil) }
        let write: @Sendable (String) -> Void = { [self] text in self.write(text) }
        return Notifier(write: write)
    }
}
