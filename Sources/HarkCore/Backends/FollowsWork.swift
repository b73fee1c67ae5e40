/// A kind whose server keeps working after hark exits (a Jenkins build, an A2A task) and can
/// be asked about that work again: what `hark watch` and the shell's start use.
public protocol FollowsWork: Backend {
    /// One look: how the work ended (or that it waits for the user), or nil while it goes on.
    /// `updates`: what the server pushed for it (A2A push notifications, as received);
    /// `askServer`: false when only they should be read (a push woke the watcher).
    func look(at work: FollowedWork, updates: [String], askServer: Bool) async throws -> WorkEnd?
    /// Waits for the end without polling where the server can say it (A2A SubscribeToTask);
    /// nil when it cannot, and the caller looks again from time to time.
    func waitForEnd(of work: FollowedWork) async throws -> WorkEnd?
    /// Seconds to wait before the first look again; the watcher waits longer each time.
    var followInterval: Double { get }
}

extension FollowsWork {
    public func waitForEnd(of work: FollowedWork) async throws -> WorkEnd? { nil }
}
