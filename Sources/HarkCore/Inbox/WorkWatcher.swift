import FoundationEssentials
import Glibc

/// Follows the work hark left running to its end and records each end in its thread as an
/// unread reply: what `hark watch` runs, and the shell's look at its start. Each end is
/// recorded in the transaction that claims it (`HistoryStore.recordEnd`), so two watchers
/// never record one end twice; a watcher killed at any point leaves the work followed.
public final class WorkWatcher: @unchecked Sendable {
    public struct Recorded: Sendable, Equatable {
        public var work: FollowedWork
        public var end: WorkEnd
        public var messageID: Int64

        /// "ci · app #12 SUCCESS in 3s".
        public var line: String { work.session + " · " + NotificationText.clean(end.headline, limit: 160) }

        public var notification: HarkNotification {
            HarkNotification(session: work.session, what: work.kind == "build" ? "build ended" : "task", words: end.headline)
        }
    }

    let workspace: Workspace
    /// Told each end as it is recorded, and each problem (a server that cannot be reached).
    let recorded: @Sendable (Recorded) -> Void
    let problem: @Sendable (String) -> Void
    /// Work whose failed looks were said once already.
    private let told = Locked(Set<Int64>())

    public init(workspace: Workspace, recorded: @escaping @Sendable (Recorded) -> Void,
                problem: @escaping @Sendable (String) -> Void = { _ in }) {
        self.workspace = workspace
        self.recorded = recorded
        self.problem = problem
    }

    var store: HistoryStore { workspace.store }

    /// One look at everything followed, at once. Returns how many are left running.
    @discardableResult
    public func lookOnce() async -> Int {
        let items = (try? store.followedWork()) ?? []
        await withTaskGroup(of: Void.self) { group in
            for item in items { group.addTask { _ = await self.check(item, askServer: true) } }
        }
        return ((try? store.followedWork()) ?? []).count
    }

    /// Looks at one piece of work and records its end if it has ended. True when it has
    /// (recorded here or elsewhere), or cannot be followed at all.
    @discardableResult
    public func check(_ work: FollowedWork, askServer: Bool) async -> Bool {
        guard let backend = follower(of: work) else { return true }
        do {
            let updates = try store.updates(workID: work.id)
            guard let end = try await backend.look(at: work, updates: updates, askServer: askServer) else { return false }
            record(work, end)
            return true
        } catch {
            say(work, error)
            return false
        }
    }

    /// The session's backend, if it can follow work; the user is told once when it cannot.
    func follower(of work: FollowedWork) -> FollowsWork? {
        guard workspace.config.session(named: work.session) != nil else {
            sayOnce(work, "session \(work.session) is no longer in the config; \(work.label) is not followed")
            return nil
        }
        do {
            guard let backend = try workspace.backend(for: work.session) as? FollowsWork else {
                sayOnce(work, "session \(work.session) cannot follow \(work.label)")
                return nil
            }
            return backend
        } catch {
            sayOnce(work, error.userMessage)
            return nil
        }
    }

    func record(_ work: FollowedWork, _ end: WorkEnd) {
        do {
            guard let id = try store.recordEnd(of: work, end) else { return }
            recorded(Recorded(work: work, end: end, messageID: id))
        } catch {
            problem("could not record the end of \(work.label): \(error.userMessage)")
        }
    }

    private func say(_ work: FollowedWork, _ error: Error) {
        sayOnce(work, "\(work.session) · \(work.label): \(error.userMessage) (looking again later)")
    }

    private func sayOnce(_ work: FollowedWork, _ text: String) {
        guard told.update({ $0.insert(work.id).inserted }) else { return }
        problem(text)
    }

    // MARK: Following

    /// Follows one piece of work until it ends: waits for its end where the server can say it,
    /// else looks again, waiting longer each time (up to `longest` seconds).
    public func follow(_ work: FollowedWork, longest: Double = 30) async {
        guard let backend = follower(of: work) else { return }
        do {
            if let end = try await backend.waitForEnd(of: work) {
                record(work, end)
                return
            }
        } catch is CancellationError {
            return
        } catch {
            say(work, error)
        }
        var wait = backend.followInterval
        while !Task.isCancelled {
            if await check(work, askServer: true) { return }
            guard (try? await workspace.environment.clock.sleep(wait)) != nil else { return }
            wait = min(wait * 1.5, longest)
        }
    }
}
