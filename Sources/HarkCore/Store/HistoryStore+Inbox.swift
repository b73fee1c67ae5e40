import FoundationEssentials
import Glibc

/// The inbox: replies nobody has read yet, across sessions. A reply is unread while it is
/// newer than its session's `last_seen_message` (switching to the session, or watching the
/// reply, reads it) and was not opened from the inbox on its own (`read_at`).
extension HistoryStore {
    /// What makes a finished reply unread, on `messages m JOIN sessions s`.
    static let unreadCondition = """
        m.role = 'assistant' AND m.id > s.last_seen_message AND m.writer_pid IS NULL AND m.read_at IS NULL
        """

    static let inboxItems = RowDecoder<InboxItem>(columns: metadataColumns + """
        , substr(m.text, 1, 2000) AS text, t.title AS title, s.kind AS session_kind,
        (m.id <= s.last_seen_message OR m.read_at IS NOT NULL) AS is_read
        """) { row in
        InboxItem(message: metadata(row, text: row["text"].string ?? ""), threadTitle: row["title"].string ?? "",
                  kind: InboxItem.kind(ofSession: row["session_kind"].string ?? ""), read: row["is_read"].int == 1)
    }

    /// Unread arrivals, oldest first; `all`: the newest `limit` replies, read or not;
    /// `recordedByWatch`: only the ends `hark watch` recorded.
    public func inbox(all: Bool = false, limit: Int = 50, recordedByWatch: Bool = false) throws -> [InboxItem] {
        try wrap {
            let from = "FROM messages m JOIN sessions s ON s.name = m.session JOIN threads t ON t.id = m.thread_id "
            if all {
                return try database.rows(Self.inboxItems, from + """
                    WHERE m.role = 'assistant' AND m.writer_pid IS NULL AND m.superseded_by IS NULL ORDER BY m.id DESC LIMIT ?
                    """, values: [.integer(Int64(limit))]).reversed()
            }
            let watched = recordedByWatch ? " AND m.id IN (SELECT ended_message_id FROM followed_work)" : ""
            return try database.rows(Self.inboxItems, from + "WHERE \(Self.unreadCondition)\(watched) ORDER BY m.id")
        }
    }

    /// How many arrivals are unread: `hark inbox --count`, for status bars.
    public func unreadCount() throws -> Int {
        try wrap {
            try database.scalar("""
                SELECT count(*) FROM messages m JOIN sessions s ON s.name = m.session WHERE \(Self.unreadCondition)
                """).int ?? 0
        }
    }

    /// Opening one reply from the inbox reads it alone; the rest of its session stays unread.
    public func markMessageRead(_ id: Int64) throws {
        try wrap {
            try database.run("UPDATE messages SET read_at = ? WHERE id = ? AND read_at IS NULL", timestamp, .integer(id))
        }
    }
}
