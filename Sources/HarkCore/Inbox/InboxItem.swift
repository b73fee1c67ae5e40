import FoundationEssentials
import Glibc

/// One arrival in the inbox: a reply nobody watched, a build's end, a task's state, with its
/// session, thread, time and first line.
public struct InboxItem: Sendable, Equatable {
    public var message: Message
    public var threadTitle: String
    /// `reply`, `build` (a Jenkins session) or `task` (an A2A session).
    public var kind: String
    public var read: Bool

    /// The kind of arrival a session's replies are.
    public static func kind(ofSession kind: String) -> String {
        switch kind {
        case "jenkins": return "build"
        case "a2a": return "task"
        default: return "reply"
        }
    }

    /// One line that says what arrived: a build's result (its closing notice), the reply's
    /// first words, or why it failed. Server text, cleaned of control characters.
    public var headline: String {
        var line: String
        if kind == "build", let summary = message.notes.last(where: { !$0.isEmpty }) {
            line = summary
        } else if let first = message.text.lineSlices(keepingEmpty: false).first(where: { !$0.trimmingSpaces.isEmpty }) {
            line = String(first).trimmingSpaces
        } else if let error = message.error {
            line = "failed: " + error
        } else {
            line = message.notes.first ?? "(no text)"
        }
        if message.status == .failed, message.error != nil, !line.hasPrefix("failed") { line = "failed: " + line }
        return NotificationText.clean(line, limit: 120)
    }

    public var json: JSON {
        [
            "id": .number(Double(message.id)), "session": .string(message.session), "kind": .string(kind),
            "thread": .number(Double(message.threadID)), "thread_title": .string(NotificationText.clean(threadTitle, limit: 200)),
            "time": .string(TimeFormat.iso8601(message.createdAt)), "status": .string(message.status.rawValue),
            "first_line": .string(headline), "read": .bool(read),
        ]
    }
}
