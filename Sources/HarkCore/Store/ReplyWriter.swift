import Foundation

/// Writes one reply while it streams. Each `append` is its own small commit into
/// `message_parts`, made before the text is shown, so what the user saw is always stored;
/// `finish` folds the parts into the message row once (one full-text index update, not one
/// per token).
public final class ReplyWriter: @unchecked Sendable {
    public let messageID: Int64
    public let threadID: Int64
    private let store: HistoryStore
    private var sequence: Int64 = 0
    private var finished = false
    private var appendStatement: Statement?

    init(store: HistoryStore, messageID: Int64, threadID: Int64) {
        self.store = store
        self.messageID = messageID
        self.threadID = threadID
    }

    public func append(_ text: String) throws {
        guard !text.isEmpty, !finished else { return }
        try store.wrap {
            try store.database.locked {
                if appendStatement == nil {
                    appendStatement = try store.database.prepare(
                        "INSERT INTO message_parts(message_id, seq, text) VALUES (?, ?, ?)")
                }
                let statement = appendStatement!
                statement.reset()
                try statement.bind([.integer(messageID), .integer(sequence), .text(text)])
                _ = try statement.step()
                sequence += 1
            }
        }
    }

    public func finish(status: MessageStatus, error: String? = nil, usage: Usage? = nil, backendID: String? = nil,
                       model: String? = nil) throws {
        guard !finished else { return }
        finished = true
        appendStatement = nil
        try store.wrap {
            try Self.fold(database: store.database, messageID: messageID, status: status, error: error, usage: usage,
                          backendID: backendID, model: model, now: store.timestamp)
            try store.database.run("UPDATE threads SET updated_at = ? WHERE id = ?", store.timestamp, .integer(threadID))
        }
    }

    static func fold(database: Database, messageID: Int64, status: MessageStatus, error: String?, usage: Usage?,
                     backendID: String?, model: String?, now: SQLValue) throws {
        try database.transaction {
            try database.run("""
                UPDATE messages SET
                    text = text || coalesce((SELECT group_concat(p.text, '') FROM
                        (SELECT text FROM message_parts WHERE message_id = ?1 ORDER BY seq) p), ''),
                    status = ?2, error = ?3, updated_at = ?4, writer_pid = NULL,
                    prompt_tokens = coalesce(?5, prompt_tokens), completion_tokens = coalesce(?6, completion_tokens),
                    total_tokens = coalesce(?7, total_tokens), backend_id = coalesce(?8, backend_id),
                    model = coalesce(?9, model)
                WHERE id = ?1
                """, .integer(messageID), .text(status.rawValue), SQLValue(error), now,
                SQLValue(usage?.promptTokens), SQLValue(usage?.completionTokens), SQLValue(usage?.totalTokens),
                SQLValue(backendID), SQLValue(model))
            try database.run("DELETE FROM message_parts WHERE message_id = ?", .integer(messageID))
        }
    }
}
