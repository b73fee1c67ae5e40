import FoundationEssentials
import Glibc

/// A session's threads: made, found by title or number, renamed, deleted.
extension HistoryStore {
    /// Threads with their message counts: `FROM threads t` follows.
    static let threads = RowDecoder<ChatThread>(columns: """
        t.id AS id, t.session AS session, t.title AS title, t.backend_id AS backend_id, t.created_at AS created_at,
        t.updated_at AS updated_at, (SELECT count(*) FROM messages m WHERE m.thread_id = t.id AND m.superseded_by IS NULL) AS messages
        """) { row in
        ChatThread(id: row["id"].int64 ?? 0, session: row["session"].string ?? "", title: row["title"].string ?? "",
                   backendID: row["backend_id"].string, createdAt: Date(timeIntervalSince1970: row["created_at"].double ?? 0),
                   updatedAt: Date(timeIntervalSince1970: row["updated_at"].double ?? 0), messageCount: row["messages"].int ?? 0)
    }

    public func thread(id: Int64) throws -> ChatThread? {
        try wrap { try database.rows(Self.threads, "FROM threads t WHERE t.id = ?", values: [.integer(id)]).first }
    }

    /// The thread the session is on, or nil when its next message starts a new one.
    public func currentThread(session: String) throws -> ChatThread? {
        try wrap {
            try database.rows(Self.threads, "FROM threads t JOIN sessions s ON s.current_thread = t.id WHERE s.name = ?",
                              values: [.text(session)]).first
        }
    }

    public func setCurrentThread(session: String, threadID: Int64?) throws {
        try wrap {
            try database.run("UPDATE sessions SET current_thread = ? WHERE name = ?", SQLValue(threadID), .text(session))
        }
    }

    public func threads(session: String) throws -> [ChatThread] {
        try wrap {
            try database.rows(Self.threads, "FROM threads t WHERE t.session = ? ORDER BY t.updated_at DESC, t.id DESC",
                              values: [.text(session)])
        }
    }

    @discardableResult
    public func createThread(session: String, title: String, backendID: String? = nil) throws -> ChatThread {
        try wrap {
            try database.transaction {
                try database.run("""
                    INSERT INTO threads(session, title, backend_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
                    """, .text(session), .text(title), SQLValue(backendID), timestamp, timestamp)
                let id = database.lastInsertRowID
                try database.run("UPDATE sessions SET current_thread = ? WHERE name = ?", .integer(id), .text(session))
                return try database.rows(Self.threads, "FROM threads t WHERE t.id = ?", values: [.integer(id)]).first!
            }
        }
    }

    /// A thread by id, exact title, unique title prefix, or backend id.
    public func findThread(session: String, _ reference: String) throws -> ChatThread? {
        let all = try threads(session: session)
        // `#6` as /threads prints it, or 6.
        let number = reference.hasPrefix("#") ? String(reference.dropFirst()) : reference
        if let id = Int64(number), let match = all.first(where: { $0.id == id }) { return match }
        let lowered = reference.lowercased()
        if let match = all.first(where: { $0.title.lowercased() == lowered }) { return match }
        let prefixed = all.filter { $0.title.lowercased().hasPrefix(lowered) }
        if prefixed.count == 1 { return prefixed[0] }
        return all.first(where: { $0.backendID == reference })
    }

    public func renameThread(id: Int64, title: String) throws {
        try wrap { try database.run("UPDATE threads SET title = ? WHERE id = ?", .text(title), .integer(id)) }
    }

    public func setThreadBackendID(id: Int64, backendID: String) throws {
        try wrap { try database.run("UPDATE threads SET backend_id = ? WHERE id = ?", .text(backendID), .integer(id)) }
    }

    public func deleteThread(id: Int64) throws {
        try wrap {
            try database.transaction {
                try database.run("UPDATE sessions SET current_thread = NULL WHERE current_thread = ?", .integer(id))
                try database.run("DELETE FROM messages WHERE thread_id = ?", .integer(id))
                try database.run("DELETE FROM threads WHERE id = ?", .integer(id))
            }
        }
    }
}
