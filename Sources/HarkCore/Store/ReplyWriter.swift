import FoundationEssentials
import Glibc

/// Writes one reply while it streams, each piece committed before it is shown, so what the
/// user saw is always stored. Text is kept in segments of 16 to 64 KB (the first in
/// `messages.text`, the rest in `message_more`), each ending after a space or a line end so
/// that no word is split between two: a network read that brings a segment's worth is written
/// straight into segments, smaller pieces wait in `message_parts` until enough has gathered.
/// Segments are written unindexed; FullTextIndexer indexes them on its own connection and
/// thread, so the stream never waits for the tokenizer (BENCHMARKS.md). Memory stays at what
/// one read brings, however long the reply.
public final class ReplyWriter: @unchecked Sendable {
    public let messageID: Int64
    public let threadID: Int64
    private let store: HistoryStore
    private var finished = false
    /// The text not yet in a segment, exactly as `message_parts` holds it: less than a segment.
    private var pending: [UInt8] = []
    private var partSequence: Int64 = 0
    private var sink: SegmentSink
    private var storedBytes = 0
    private var insertPart: Statement?

    init(store: HistoryStore, messageID: Int64, threadID: Int64) {
        self.store = store
        self.messageID = messageID
        self.threadID = threadID
        sink = SegmentSink(messageID: messageID, next: 0)
    }

    public func append(_ text: String) throws {
        guard !text.isEmpty, !finished else { return }
        var text = text
        let database = store.database
        try store.wrap {
            let wroteSegments = try text.withUTF8 { bytes -> Bool in
                if pending.count + bytes.count < ReplySegments.minBytes {
                    try storePart(bytes)
                    pending.append(contentsOf: bytes)
                    return false
                }
                try database.transaction { try fold(adding: bytes, final: false) }
                return true
            }
            storedBytes += text.utf8.count
            if wroteSegments { store.indexer.kick() }
        }
    }

    public func finish(status: MessageStatus, error: String? = nil, usage: Usage? = nil, backendID: String? = nil,
                       model: String? = nil, notes: [String] = [], promptEstimate: Int? = nil,
                       timing: ReplyTiming? = nil) throws {
        guard !finished else { return }
        finished = true
        defer { store.replyStreaming(false) }
        let database = store.database
        // A reply that fits in one segment is indexed here, in the same commit: a millisecond
        // at most, and no second connection or thread for a short answer.
        let indexNow = sink.next == 0
        try store.wrap {
            try database.transaction {
                try fold(adding: UnsafeBufferPointer(start: nil, count: 0), final: true)
                try Self.close(database: database, messageID: messageID, status: status, error: error, usage: usage,
                               backendID: backendID, model: model, notes: notes, length: .integer(Int64(storedBytes)),
                               now: store.timestamp)
                if promptEstimate != nil || timing != nil {
                    try database.run("""
                        UPDATE messages SET prompt_estimate = ?, first_byte_ms = ?, stream_ms = ? WHERE id = ?
                        """, SQLValue(promptEstimate), SQLValue(timing?.firstByteMilliseconds),
                        SQLValue(timing?.streamMilliseconds), .integer(messageID))
                }
                if indexNow {
                    // With the message it answers (Workspace.send stores that one for this).
                    try database.run("""
                        UPDATE messages SET unindexed = NULL
                        WHERE unindexed IS NOT NULL AND thread_id = ?1 AND id <= ?2 AND writer_pid IS NULL
                        """, .integer(threadID), .integer(messageID))
                }
                try database.run("UPDATE threads SET updated_at = ? WHERE id = ?", store.timestamp, .integer(threadID))
            }
            insertPart = nil
            sink.statements = nil
        }
        store.writerLocks.release(messageID)
        if !indexNow { store.indexer.kick() }
    }

    /// One piece too small for a segment, committed on its own.
    private func storePart(_ bytes: UnsafeBufferPointer<UInt8>) throws {
        let database = store.database
        try database.locked {
            if insertPart == nil {
                insertPart = try database.prepare("INSERT INTO message_parts(message_id, seq, text) VALUES (?, ?, ?)")
            }
            let statement = insertPart!
            try statement.bind([.integer(messageID), .integer(partSequence)])
            try statement.bindText(inPlace: bytes, at: 3)
            defer { statement.reset() }
            try database.stepWriting(statement)
            partSequence += 1
        }
    }

    /// Writes the segments that the pending text and `bytes` complete (all of it when `final`);
    /// what is left replaces the parts. Inside the caller's transaction.
    private func fold(adding bytes: UnsafeBufferPointer<UInt8>, final: Bool) throws {
        let database = store.database
        let rest: [UInt8]
        if pending.isEmpty {
            // The common case for a fast stream: the read is cut where it lies, with no copy.
            let cut = ReplySegments.cut(bytes, final: final)
            for range in cut.segments { try sink.write(UnsafeBufferPointer(rebasing: bytes[range]), database: database) }
            rest = Array(bytes[cut.rest...])
        } else if bytes.count >= ReplySegments.maxBytes, pending.count <= ReplySegments.maxBytes * 3 / 4 {
            // A long read after a word left waiting: only the first segment holds text of both
            // (it ends at three quarters of a segment or more, past the waiting text), so only
            // that much is joined; the rest is cut where it lies, as cutting the whole joined
            // text would cut it. Joining it all copied every read.
            var head = pending
            head.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[..<ReplySegments.maxBytes]))
            let firstEnd = try head.withUnsafeBufferPointer { all -> Int in
                let end = ReplySegments.cut(all, final: final).segments[0].upperBound
                try sink.write(UnsafeBufferPointer(rebasing: all[..<end]), database: database)
                return end
            }
            let after = UnsafeBufferPointer(rebasing: bytes[(firstEnd - pending.count)...])
            let cut = ReplySegments.cut(after, final: final)
            for range in cut.segments { try sink.write(UnsafeBufferPointer(rebasing: after[range]), database: database) }
            rest = Array(after[cut.rest...])
        } else {
            var combined = pending
            combined.append(contentsOf: bytes)
            rest = try combined.withUnsafeBufferPointer { all in
                let cut = ReplySegments.cut(all, final: final)
                for range in cut.segments { try sink.write(UnsafeBufferPointer(rebasing: all[range]), database: database) }
                return Array(all[cut.rest...])
            }
        }
        if !pending.isEmpty || partSequence > 0 {
            try database.run("DELETE FROM message_parts WHERE message_id = ?", .integer(messageID))
        }
        pending = []
        if !rest.isEmpty {
            try rest.withUnsafeBufferPointer { try storePart($0) }
            pending = rest
        }
    }

    /// Records how a reply ended; its text is already in segments.
    static func close(database: Database, messageID: Int64, status: MessageStatus, error: String?, usage: Usage?,
                      backendID: String?, model: String?, notes: [String], length: SQLValue, now: SQLValue) throws {
        try database.run("""
            UPDATE messages SET
                status = ?2, error = ?3, updated_at = ?4, writer_pid = NULL, writer_lock = NULL, length = ?10,
                prompt_tokens = coalesce(?5, prompt_tokens), completion_tokens = coalesce(?6, completion_tokens),
                total_tokens = coalesce(?7, total_tokens), backend_id = coalesce(?8, backend_id),
                model = coalesce(?9, model), notes = coalesce(?11, notes)
            WHERE id = ?1
            """, .integer(messageID), .text(status.rawValue), SQLValue(error), now,
            SQLValue(usage?.promptTokens), SQLValue(usage?.completionTokens), SQLValue(usage?.totalTokens),
            SQLValue(backendID), SQLValue(model), length, SQLValue(notes.isEmpty ? nil : notes.joined(separator: "\n")))
    }

    /// Folds the parts a dead writer left (crash recovery) and records how the reply ended.
    static func fold(database: Database, messageID: Int64, status: MessageStatus, error: String?, usage: Usage?,
                     backendID: String?, model: String?, notes: [String], now: SQLValue) throws {
        try database.transaction {
            var text: [UInt8] = []
            for row in try database.query("SELECT text FROM message_parts WHERE message_id = ? ORDER BY seq",
                                          .integer(messageID)) {
                text.append(contentsOf: (row["text"].string ?? "").utf8)
            }
            var sink = try SegmentSink.resuming(messageID: messageID, database: database)
            try text.withUnsafeBufferPointer { all in
                for range in ReplySegments.cut(all, final: true).segments {
                    try sink.write(UnsafeBufferPointer(rebasing: all[range]), database: database)
                }
            }
            try database.run("DELETE FROM message_parts WHERE message_id = ?", .integer(messageID))
            try close(database: database, messageID: messageID, status: status, error: error, usage: usage,
                      backendID: backendID, model: model, notes: notes, length: .null, now: now)
        }
    }
}

/// Where a reply's next segment goes: the first into `messages.text`, later ones into
/// `message_more`, all marked for the indexer.
struct SegmentSink {
    let messageID: Int64
    /// The number of segments written so far (0: `messages.text` is next).
    var next: Int64
    var statements: (first: Statement, more: Statement)?

    init(messageID: Int64, next: Int64) {
        self.messageID = messageID
        self.next = next
    }

    /// For a reply that already has text (one a crashed writer left): after its last segment.
    static func resuming(messageID: Int64, database: Database) throws -> SegmentSink {
        let row = try database.query("""
            SELECT m.text != '' AS has_text, (SELECT max(seq) FROM message_more WHERE message_id = m.id) AS last_seq
            FROM messages m WHERE m.id = ?
            """, .integer(messageID)).first
        let hasFirst = row?["has_text"].int == 1 || row?["last_seq"] != .null
        return SegmentSink(messageID: messageID, next: hasFirst ? (row?["last_seq"].int64 ?? -1) + 2 : 0)
    }

    mutating func write(_ bytes: UnsafeBufferPointer<UInt8>, database: Database) throws {
        guard bytes.count > 0 else { return }
        if statements == nil {
            statements = (try database.prepare("UPDATE messages SET text = ?, unindexed = 1 WHERE id = ?"),
                          try database.prepare("INSERT INTO message_more(message_id, seq, text, unindexed) VALUES (?, ?, ?, 1)"))
        }
        let statement: Statement
        if next == 0 {
            statement = statements!.first
            try statement.bindText(inPlace: bytes, at: 1)
            try statement.bind([.integer(messageID)], from: 2)
        } else {
            statement = statements!.more
            try statement.bind([.integer(messageID), .integer(next - 1)])
            try statement.bindText(inPlace: bytes, at: 3)
        }
        defer { statement.reset() }
        try database.stepWriting(statement)
        next += 1
    }
}
