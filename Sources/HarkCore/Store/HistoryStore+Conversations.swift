import FoundationEssentials
import Glibc

/// What a backend that sends the conversation needs of a thread: its summary, the turns
/// after it, and the token guess corrected by the server's last count.
public struct ThreadContext: Sendable, Equatable {
    public var summary: ThreadSummary?
    /// Oldest first: stopped and partial replies count (the user saw them), failed and empty
    /// ones do not, nor messages replaced by `/edit last`.
    public var turns: [Turn]
    /// The ids of `turns`' messages, for `/compact` to say which it summarised.
    public var messageIDs: [Int64]
    /// Older turns after the summary that the backend's window left out (not read).
    public var notLoaded: Int
    public var estimator: TokenEstimator
}

/// The history's side of long conversations: the context sent with a message, summaries
/// (`/compact`), messages replaced by `/edit last`, and forks.
extension HistoryStore {
    /// The thread's earlier turns, read once for a message (before `messageID`, the one being
    /// answered, when given): the latest summary, the newest turns after it that `window`
    /// allows (only those are read), and the calibration from the thread's last reply the
    /// server counted (else the session's).
    public func context(threadID: Int64, session: String, before messageID: Int64? = nil,
                        window: TurnWindow) throws -> ThreadContext {
        try wrap {
            let summary = try self.summary(threadID: threadID, before: messageID)
            let after = summary?.throughMessageID ?? 0
            let messages = try newestMessages(threadID: threadID, after: after, before: messageID, window: window)
            let notLoaded = try messages.first.map { try contextMessages(threadID: threadID, after: after, before: $0.id) } ?? 0
            let counted = try database.query("""
                SELECT prompt_estimate, prompt_tokens FROM messages
                WHERE session = ?1 AND role = 'assistant' AND prompt_estimate IS NOT NULL AND prompt_tokens IS NOT NULL
                  AND id < ?3
                ORDER BY thread_id = ?2 DESC, id DESC LIMIT 1
                """, .text(session), .integer(threadID), .integer(messageID ?? Int64.max)).first
            let (turns, ids) = try turns(of: messages, threadID: threadID)
            return ThreadContext(summary: summary, turns: turns, messageIDs: ids, notLoaded: notLoaded,
                                 estimator: TokenEstimator(calibratedBy: counted?["prompt_estimate"].int, actual: counted?["prompt_tokens"].int))
        }
    }

    // MARK: Summaries

    /// The thread's latest summary, made before `messageID` when given.
    public func summary(threadID: Int64, before messageID: Int64? = nil) throws -> ThreadSummary? {
        try wrap {
            try database.query("""
                SELECT text, turns, through_message FROM thread_notes
                WHERE thread_id = ? AND kind = 'summary' AND through_message < ? ORDER BY id DESC LIMIT 1
                """, .integer(threadID), .integer(messageID ?? Int64.max)).first.map { row in
                ThreadSummary(text: row["text"].string ?? "", turns: row["turns"].int ?? 0, throughMessageID: row["through_message"].int64 ?? 0)
            }
        }
    }

    public func addSummary(threadID: Int64, _ summary: ThreadSummary) throws {
        try wrap {
            try database.run("""
                INSERT INTO thread_notes(thread_id, kind, text, through_message, turns, created_at)
                VALUES (?, 'summary', ?, ?, ?, ?)
                """, .integer(threadID), .text(summary.text), .integer(summary.throughMessageID),
                .integer(Int64(summary.turns)), timestamp)
        }
    }

    // MARK: Editing the last message

    /// `/edit last`: adds `text` as the thread's new last message and marks `old` and
    /// everything after it (its replies) as superseded by it, in one transaction. Nothing is
    /// deleted. Returns the new message's id.
    public func replaceLastMessage(_ old: Message, with text: String) throws -> Int64 {
        try wrap {
            try database.transaction {
                let id = try addMessage(threadID: old.threadID, session: old.session, role: old.role, text: text)
                try database.run("""
                    UPDATE messages SET superseded_by = ?1
                    WHERE thread_id = ?2 AND id >= ?3 AND id < ?1 AND superseded_by IS NULL
                    """, .integer(id), .integer(old.threadID), .integer(old.id))
                return id
            }
        }
    }

    /// `/retry`: the replies `message` had (every message after it, up to `through`) no longer
    /// stand; they are kept, marked as superseded by it. The retry's reply, written after
    /// `through`, is untouched.
    public func supersedeReplies(to message: Message, through lastID: Int64) throws {
        try wrap {
            try database.run("""
                UPDATE messages SET superseded_by = ?1
                WHERE thread_id = ?2 AND id > ?1 AND id <= ?3 AND superseded_by IS NULL
                """, .integer(message.id), .integer(message.threadID), .integer(lastID))
        }
    }

    /// The newest message of a thread, superseded or not.
    public func lastMessageID(threadID: Int64) throws -> Int64? {
        try wrap {
            try database.scalar("SELECT max(id) FROM messages WHERE thread_id = ?", .integer(threadID)).int64
        }
    }

    // MARK: Forks

    /// A new thread holding copies of `thread`'s first `count` messages (all when nil; those
    /// replaced by `/edit last` and replies still streaming are not copied), with the summary
    /// that covers them. It becomes the session's current thread; the original is untouched.
    /// Copies keep their times, usage and timings; they are not news, so they are marked read.
    public func forkThread(_ thread: ChatThread, messages count: Int?, title: String,
                           backendID: String?) throws -> (thread: ChatThread, copied: Int) {
        try wrap {
            try database.transaction {
                let ids = try database.query("""
                    SELECT id FROM messages WHERE thread_id = ? AND superseded_by IS NULL AND writer_pid IS NULL
                    ORDER BY id LIMIT ?
                    """, .integer(thread.id), .integer(Int64(count ?? -1))).compactMap { $0["id"].int64 }
                let fork = try createThread(session: thread.session, title: title, backendID: backendID)
                var copies: [Int64: Int64] = [:]
                for id in ids {
                    try database.run("""
                        INSERT INTO messages(thread_id, session, role, text, status, created_at, updated_at, model,
                                             prompt_tokens, completion_tokens, total_tokens, error, prompt_estimate,
                                             first_byte_ms, stream_ms, piped_from)
                        SELECT ?1, session, role, text, status, created_at, updated_at, model, prompt_tokens,
                               completion_tokens, total_tokens, error, prompt_estimate, first_byte_ms, stream_ms, piped_from
                        FROM messages WHERE id = ?2
                        """, .integer(fork.id), .integer(id))
                    let copy = database.lastInsertRowID
                    try database.run("""
                        INSERT INTO message_more(message_id, seq, text) SELECT ?1, seq, text FROM message_more
                        WHERE message_id = ?2 ORDER BY seq
                        """, .integer(copy), .integer(id))
                    copies[id] = copy
                }
                for note in try database.query("""
                    SELECT kind, text, through_message, turns, created_at FROM thread_notes WHERE thread_id = ? ORDER BY id
                    """, .integer(thread.id)) {
                    guard let through = note["through_message"].int64, let copy = copies[through] else { continue }
                    try database.run("""
                        INSERT INTO thread_notes(thread_id, kind, text, through_message, turns, created_at)
                        VALUES (?, ?, ?, ?, ?, ?)
                        """, .integer(fork.id), note["kind"], note["text"], .integer(copy), note["turns"],
                        note["created_at"])
                }
                if let last = copies.values.max() {
                    try database.run("UPDATE sessions SET last_seen_message = max(last_seen_message, ?) WHERE name = ?",
                                     .integer(last), .text(thread.session))
                }
                let made = try database.rows(Self.threads, "FROM threads t WHERE t.id = ?", values: [.integer(fork.id)]).first
                return (made ?? fork, ids.count)
            }
        }
    }
}
