import FoundationEssentials
import Glibc

/// The inbox (`/inbox`), and the work hark follows after it exits.
extension Workspace {
    /// `/inbox`: what is unread across the sessions, oldest first; `/inbox ID` opens one and
    /// marks it read.
    func showInbox(_ context: CommandContext) async throws -> CommandOutcome {
        if let reference = context.arguments["ID"] {
            return .output(try openInboxItem(reference))
        }
        let items = try store.inbox(all: context.arguments.options.flag("--all"))
        guard !items.isEmpty else { return .output([StyledLine("nothing unread", .dim)]) }
        var lines = items.map(Self.inboxLine)
        lines.append(StyledLine("/inbox ID opens one and marks it read; /session NAME reads a session's all", .dim))
        return .output(lines)
    }

    /// "#42 ci · build · 14:02 · app #12 SUCCESS in 3s (thread: /build app)".
    public static func inboxLine(_ item: InboxItem) -> StyledLine {
        StyledLine([Span("#\(item.message.id) ", .dim), Span(item.message.session, .accent),
                    Span(" · \(item.kind) · \(TimeFormat.short(item.message.createdAt)) · ", .dim),
                    Span(item.headline, item.message.status == .failed ? .error : (item.read ? .dim : .plain)),
                    Span(" (thread: " + NotificationText.clean(item.threadTitle, limit: 40) + ")", .dim)])
    }

    /// One arrival in full; it is read from now on.
    public func openInboxItem(_ reference: String) throws -> Document {
        let digits = reference.hasPrefix("#") ? String(reference.dropFirst()) : reference
        guard let id = Int64(digits), let message = try store.message(id: id), message.role == .assistant else {
            throw HarkError.usage("no reply #\(MessageLine.name(reference)) in the history; /inbox lists them by number")
        }
        try store.markMessageRead(id)
        let session = config.session(named: message.session) ?? SessionConfig(name: message.session, kind: LocalBackend.name)
        return MessageFormatting.document([message], session: session)
    }

    // MARK: Work followed after hark exits

    /// hark exits while replies run: each whose work goes on at its server (a build, an A2A
    /// task) is recorded as followed, then left running there; the others are stopped as
    /// before. Returns a line per followed one.
    public func followRunningWork() -> [String] {
        var followed: [String] = []
        for job in runningJobs {
            guard let point = job.resumePoint else { continue }
            do {
                try store.follow(point, session: job.session, threadID: job.thread.id)
                job.leaveRunning()
                // What streamed so far was seen; its end comes as a reply of its own.
                if let shown = job.replyMessageID { try store.markMessageRead(shown) }
                followed.append(job.session + " · " + point.label)
            } catch {
                followed.append(job.session + " · " + point.label + ": not followed, " + error.userMessage)
            }
        }
        return followed
    }

    /// What `hark watch` recorded that is still unread: the banner's "while you were away".
    public func endedWhileAway() -> [String] {
        ((try? store.inbox(recordedByWatch: true)) ?? []).map { $0.message.session + " · " + $0.headline }
    }

    /// The shell's start: one look, in the background, at the work followed since an earlier
    /// hark exited, bounded to `seconds`. Each end found is recorded and told to `found`.
    public func lookAtFollowedWork(within seconds: Double, found: @escaping @Sendable (WorkWatcher.Recorded) -> Void) {
        guard ((try? store.followedWork()) ?? []).isEmpty == false else { return }
        let watcher = WorkWatcher(workspace: self, recorded: found)
        let look = Task.detached { await watcher.lookOnce() }
        Task.detached {
            try? await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
            look.cancel()
        }
    }
}
