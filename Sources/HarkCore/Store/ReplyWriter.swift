import FoundationEssentials
import Glibc

/// Writes one reply while it streams. Each `append` is its own small commit into
/// `message_parts`, made before the text is shown, so what the user saw is always stored.
/// Parts are folded into indexed segments of about a megabyte (the first in `messages.text`,
/// the rest in `message_more`) whenever that much has gathered and when the reply ends, so a
/// reply of any length is written in constant memory and the full-text index is updated once
/// per megabyte, not once per token.
public final class ReplyWriter: @unchecked Sendable {
    public let messageID: Int64
    public let threadID: Int64
    private let store: HistoryStore
    private var sequence: Int64 = 0
    private var finished = false
    private var appendStatement: Statement?
    private var unfoldedBytes = 0

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
            unfoldedBytes += text.utf8.count
            if unfoldedBytes >= SegmentFolder.segmentBytes {
                try SegmentFolder.fold(database: store.database, messageID: messageID, final: false)
                unfoldedBytes = 0
            }
        }
    }

    public func finish(status: MessageStatus, error: String? = nil, usage: Usage? = nil, backendID: String? = nil,
                       model: String? = nil, notes: [String] = [], promptEstimate: Int? = nil,
                       timing: ReplyTiming? = nil) throws {
        guard !finished else { return }
        finished = true
        appendStatement = nil
        try store.wrap {
            try Self.fold(database: store.database, messageID: messageID, status: status, error: error, usage: usage,
                          backendID: backendID, model: model, notes: notes, now: store.timestamp)
            if promptEstimate != nil || timing != nil {
                try store.database.run("""
                    UPDATE messages SET prompt_estimate = ?, first_byte_ms = ?, stream_ms = ? WHERE id = ?
                    """, SQLValue(promptEstimate), SQLValue(timing?.firstByteMilliseconds),
                    SQLValue(timing?.streamMilliseconds), .integer(messageID))
            }
            try store.database.run("UPDATE threads SET updated_at = ? WHERE id = ?", store.timestamp, .integer(threadID))
        }
        store.writerLocks.release(messageID)
    }

    /// Folds whatever parts remain and records how the reply ended.
    static func fold(database: Database, messageID: Int64, status: MessageStatus, error: String?, usage: Usage?,
                     backendID: String?, model: String?, notes: [String], now: SQLValue) throws {
        try database.transaction {
            try SegmentFolder.fold(database: database, messageID: messageID, final: true)
            try database.run("""
                UPDATE messages SET
                    status = ?2, error = ?3, updated_at = ?4, writer_pid = NULL, writer_lock = NULL,
                    prompt_tokens = coalesce(?5, prompt_tokens), completion_tokens = coalesce(?6, completion_tokens),
                    total_tokens = coalesce(?7, total_tokens), backend_id = coalesce(?8, backend_id),
                    model = coalesce(?9, model), notes = coalesce(?10, notes)
                WHERE id = ?1
                """, .integer(messageID), .text(status.rawValue), SQLValue(error), now,
                SQLValue(usage?.promptTokens), SQLValue(usage?.completionTokens), SQLValue(usage?.totalTokens),
                SQLValue(backendID), SQLValue(model), SQLValue(notes.isEmpty ? nil : notes.joined(separator: "\n")))
        }
    }
}

/// Moves a reply's parts into segments, a megabyte at a time, cutting at a line end (or a
/// space) so that no word is split between two segments of the full-text index.
enum SegmentFolder {
    static let segmentBytes = 1 << 20

    static func fold(database: Database, messageID: Int64, final: Bool) throws {
        try database.transaction {
            while true {
                // The parts that make up the next segment, in order, up to its size.
                var taken: [(seq: Int64, text: String)] = []
                var size = 0
                let statement = try database.prepare("SELECT seq, text FROM message_parts WHERE message_id = ? ORDER BY seq")
                try statement.bind([.integer(messageID)])
                while size < segmentBytes, try statement.step() {
                    let row = statement.row()
                    let text = row[1].string ?? ""
                    taken.append((row[0].int64 ?? 0, text))
                    size += text.utf8.count
                }
                guard !taken.isEmpty, final || size >= segmentBytes else { return }
                var segment = taken.map(\.text).joined()
                var leftover = ""
                if size >= segmentBytes {
                    let cut = cutPoint(in: segment)
                    leftover = String(segment[cut...])
                    segment = String(segment[..<cut])
                }
                try write(segment: segment, messageID: messageID, database: database)
                try database.run("DELETE FROM message_parts WHERE message_id = ? AND seq <= ?",
                                 .integer(messageID), .integer(taken.last!.seq))
                if !leftover.isEmpty {
                    // Back in the place of the last part taken, before the parts that follow it.
                    try database.run("INSERT INTO message_parts(message_id, seq, text) VALUES (?, ?, ?)",
                                     .integer(messageID), .integer(taken.last!.seq), .text(leftover))
                }
                if size < segmentBytes { return }
            }
        }
    }

    /// Where to end a full segment: after the last newline in its final quarter, else after the
    /// last space, else at the size itself.
    static func cutPoint(in text: String) -> String.Index {
        let utf8 = text.utf8
        let limit = utf8.index(utf8.startIndex, offsetBy: min(segmentBytes, utf8.count))
        let floor = utf8.index(utf8.startIndex, offsetBy: min(segmentBytes * 3 / 4, utf8.count))
        if let newline = utf8[floor..<limit].lastIndex(of: 0x0A) { return utf8.index(after: newline) }
        if let space = utf8[floor..<limit].lastIndex(of: 0x20) { return utf8.index(after: space) }
        // No break: cut at the limit, moved back off any UTF-8 continuation byte.
        var index = limit
        while index > utf8.startIndex, index < utf8.endIndex, utf8[index] & 0xC0 == 0x80 {
            index = utf8.index(before: index)
        }
        return index
    }

    /// The first segment is the message's text; later ones go to message_more.
    static func write(segment: String, messageID: Int64, database: Database) throws {
        guard !segment.isEmpty else { return }
        let current = try database.scalar("SELECT length(CAST(text AS BLOB)) FROM messages WHERE id = ?", .integer(messageID))
        let hasMore = try database.scalar("SELECT count(*) FROM message_more WHERE message_id = ?", .integer(messageID)).int ?? 0
        if (current.int ?? 0) == 0 && hasMore == 0 {
            try database.run("UPDATE messages SET text = ? WHERE id = ?", .text(segment), .integer(messageID))
        } else if hasMore == 0 && (current.int ?? 0) + segment.utf8.count <= segmentBytes {
            // A reply folded at its end after a small first fold: still one segment.
            try database.run("UPDATE messages SET text = text || ? WHERE id = ?", .text(segment), .integer(messageID))
        } else {
            try database.run("""
                INSERT INTO message_more(message_id, seq, text)
                VALUES (?1, coalesce((SELECT max(seq) + 1 FROM message_more WHERE message_id = ?1), 0), ?2)
                """, .integer(messageID), .text(segment))
        }
    }
}
