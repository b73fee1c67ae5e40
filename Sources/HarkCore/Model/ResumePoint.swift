/// What a reply's server needs to find its work again after hark exits: a Jenkins build (its
/// job and number, or its queue item while it waits), an A2A task (its task and context ids).
/// A backend says it with `.resumable` while the reply runs; when hark exits before the reply
/// ends, the workspace records it as followed work, which `hark watch` follows to its end.
public struct ResumePoint: Sendable, Equatable {
    /// `build` or `task`: how the inbox names what ended.
    public var kind: String
    /// What identifies it on its server, unique within the session (`app#12`, a task id).
    public var key: String
    /// What the backend reads back to look at it again.
    public var details: [String: String]

    /// "app #12", "task 3f2a9c01": how a line names it (a task's id is long and all alike).
    /// Both come from the server: no control character of theirs reaches the terminal.
    public var label: String {
        NotificationText.clean(details["label"] ?? (kind == "task" ? "task " + String(key.prefix(8)) : key), limit: 80)
    }

    public init(kind: String, key: String, details: [String: String] = [:]) {
        self.kind = kind
        self.key = key
        self.details = details
    }
}
