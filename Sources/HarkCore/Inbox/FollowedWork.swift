import FoundationEssentials
import Glibc

/// Work left running at a server when hark exited (a build, an A2A task), or a task that
/// carries a push token while hark still runs: a row of `followed_work`.
public struct FollowedWork: Sendable, Equatable {
    public enum State: String, Sendable {
        /// A task sent with a push token; the hark that sent it still receives its reply.
        case live
        /// hark exited before it ended: `hark watch` records its end.
        case followed
        /// Its end is recorded in its thread.
        case ended
        /// Its reply ended in the hark that sent it; nothing is left to record.
        case done
    }

    public var id: Int64
    public var session: String
    public var threadID: Int64
    /// `build` or `task`.
    public var kind: String
    /// What identifies it on its server (`app#12`, a task id); nil until the server named it.
    public var key: String?
    public var details: [String: String]
    /// The token an A2A agent's push notifications must carry.
    public var pushToken: String?
    public var state: State
    public var createdAt: Date

    /// "app #12", "task 3f2a…": how a line names it.
    public var label: String { resumePoint?.label ?? details["label"] ?? kind }

    public var resumePoint: ResumePoint? {
        key.map { ResumePoint(kind: kind, key: $0, details: details) }
    }
}

/// How followed work ended, as `hark watch` records it in its thread: an unread reply.
public struct WorkEnd: Sendable, Equatable {
    /// The reply's text: a build's result and console tail, a task's final message and artifacts.
    public var text: String
    /// One line: "app #12 SUCCESS in 3s", "task completed: Booked a flight…".
    public var headline: String
    public var status: MessageStatus
    public var backendID: String?
    public var error: String?

    public init(text: String, headline: String, status: MessageStatus = .complete, backendID: String? = nil,
                error: String? = nil) {
        self.text = text
        self.headline = headline
        self.status = status
        self.backendID = backendID
        self.error = error
    }
}
