import FoundationEssentials
import Glibc

/// Sessions, threads, messages and input history in one SQLite file (WAL, shared by every
/// running hark). The user's message is written before it is sent; a reply is written while
/// it streams (see ReplyWriter), so a crash loses nothing that had arrived.
public final class HistoryStore: @unchecked Sendable {
    public let database: Database
    /// Indexes stored text for search on a thread of its own (nil when opened read-only).
    public let indexer: FullTextIndexer!
    private let clock: HarkClock
    private var now: @Sendable () -> Date { clock.now }
    let writerLocks: WriterLocks
    /// Said to the user once (by the command line): the data folder was made private.
    public private(set) var notices: [String] = []

    public init(path: String, clock: HarkClock = .system) throws {
        if let note = HistoryFiles.makePrivate(databasePath: path) { notices.append(note) }
        writerLocks = WriterLocks(databasePath: path)
        do {
            database = try Database(path: path)
            // Every message is stored before it is sent: with a history that cannot take it,
            // nothing may be sent. Reading it is for the read-only commands.
            if database.isReadOnly { throw HarkError.storage(HistoryFiles.readOnlyReason(path)) }
            indexer = FullTextIndexer(database: database)
            self.clock = clock
            if let reason = try Migrations.newerSchema(database) {
                throw HarkError.storage("\(path) was made by a newer hark (\(reason)); upgrade hark, "
                    + "or read it with hark history, search or export, which open it read-only")
            }
            try Self.retryingBusy(clock) { try database.execute("PRAGMA journal_mode=WAL") }
            try database.execute("PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON; PRAGMA wal_autocheckpoint=\(Self.checkpointPages)")
            try Self.retryingBusy(clock) { try Migrations.migrate(database, clock: clock) }
            try recoverInterruptedReplies()
            // What a killed process left unindexed is indexed now, in the background.
            if try FullTextIndexer.hasPending(database) { indexer.kick() }
        } catch let error as SQLiteError {
            throw HarkError.storage(error.description)
        }
    }

    private init(database: Database, clock: HarkClock) {
        self.database = database
        self.clock = clock
        indexer = nil
        writerLocks = WriterLocks(databasePath: database.path)
    }

    /// The history opened for reading only, for `hark search`, `hark history` and `hark
    /// export`: no migration check, no crash recovery, no write lock, so a search costs what
    /// its query costs (BENCHMARKS.md). Nil when there is no file yet or it lacks a step of
    /// this version's schema; the caller then opens it the usual way, which creates or
    /// migrates it. A file from a newer hark (steps this one does not know) is read: its
    /// older tables are all there, as steps are only ever added. `searching`: nil too when
    /// some text is not in the full-text index yet (a process was killed mid-reply), so the
    /// caller's writable store indexes it before searching; unless the user may not write the
    /// file (a history kept read-only): then what is indexed is searched.
    public static func openForReading(path: String, searching: Bool = false) -> HistoryStore? {
        Database.preparePageCache(pages: 120)
        guard let database = try? Database(path: path, readOnly: true),
              let rows = try? database.query("SELECT name FROM schema_migrations"),
              Set(Migrations.all.map(\.name)).isSubset(of: rows.compactMap { $0["name"].string })
        else { return nil }
        if searching && (try? FullTextIndexer.hasPending(database)) != false && access(path, W_OK) == 0 { return nil }
        return HistoryStore(database: database, clock: .system)
    }

    /// Waits until the indexer has indexed everything written so far: before a process ends,
    /// so that it leaves nothing unindexed behind it. `givingWayToReplies` (`hark index`, in
    /// the background): the indexer waits between its transactions while any reply streams
    /// into the history, so the stream neither waits for its commits nor shares the CPU with it.
    public func finishIndexing(givingWayToReplies: Bool = false) throws {
        if givingWayToReplies { indexer?.giveWayToReplies(writerLocks) }
        try indexer?.drain()
    }

    /// How many stored texts (messages and reply segments) are not in the full-text index yet.
    public func unindexedCount() throws -> Int {
        try wrap { try FullTextIndexer.pendingCount(database) }
    }

    /// `hark index`: the history at `path` opened, what is not in the full-text index yet
    /// indexed; returns how many texts that was.
    public static func indexPending(path: String, givingWayToReplies: Bool) throws -> Int {
        // In the background, one `hark index` at a time; the others wait before opening the
        // history (whose opening would start indexing) and then find little or nothing left.
        let turn = WriterLocks(databasePath: path)
        if givingWayToReplies { _ = turn.waitForIndexingTurn() }
        defer { withExtendedLifetime(turn) {} }
        let store = try HistoryStore(path: path)
        let pending = try store.unindexedCount()
        try store.finishIndexing(givingWayToReplies: givingWayToReplies)
        return pending
    }

    /// Switching to WAL and the first migration can meet SQLITE_BUSY without the busy handler
    /// being consulted; a few short retries cover two processes starting together.
    @discardableResult
    private static func retryingBusy<T>(_ clock: HarkClock, _ body: () throws -> T) throws -> T {
        var attempt = 0
        while true {
            do { return try body() } catch let error as SQLiteError where error.isBusy && attempt < 50 {
                attempt += 1
                clock.pause(0.02)
            }
        }
    }

    var timestamp: SQLValue { .real(now().timeIntervalSince1970) }

    /// The WAL is checkpointed once it holds this many pages (SQLite's default is 1,000). Every
    /// hark that starts with no other one running reads the whole WAL back and checksums it
    /// (SQLite's recovery): with a WAL of 1,000 pages that was a quarter of a one-shot round
    /// trip's instructions (BENCHMARKS.md); a one-shot exchange writes about 25 pages.
    static let checkpointPages = 256

    /// Replies streaming now; kept under the connection's own (recursive) lock. A lock of its
    /// own deadlocked: a reply beginning holds the connection's lock (its transaction) and
    /// wanted this one, while a reply ending held this one and wanted the connection's, and
    /// the shell then waited on the connection for good, deaf to SIGTERM.
    private var streaming = 0

    /// While a reply streams, this connection does not checkpoint the WAL: a checkpoint's
    /// fdatasyncs in the middle of a commit stalled the stream (BENCHMARKS.md). The indexer's
    /// connection checkpoints meanwhile, after its own commits, on its own thread.
    func replyStreaming(_ started: Bool) {
        database.locked {
            streaming += started ? 1 : -1
            guard streaming == (started ? 1 : 0) else { return }
            // A one-shot run that leaves its reply's indexing to `hark index` leaves the
            // checkpoint to it too: copying the reply's pages into the database, with two
            // fdatasyncs, came between the reply's end and the run's exit.
            if !started && indexer?.defersPasses == true { return }
            try? database.execute("PRAGMA wal_autocheckpoint=\(started ? 0 : Self.checkpointPages)")
        }
    }

    func wrap<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as SQLiteError { throw HarkError.storage(error.description) }
    }

    // MARK: Sessions

    public func ensureSession(_ name: String, kind: String) throws {
        try wrap {
            // Read first: most starts find the row as it was, and a read takes no write lock.
            let known = try database.scalar("SELECT kind FROM sessions WHERE name = ?", .text(name))
            if known.string == kind { return }
            try database.run("""
                INSERT INTO sessions(name, kind, created_at) VALUES (?, ?, ?)
                ON CONFLICT(name) DO UPDATE SET kind = excluded.kind
                """, .text(name), .text(kind), timestamp)
        }
    }

    /// Replies that finished in each session since the user last looked at it.
    public func unreadCounts() throws -> [String: Int] {
        try wrap {
            var counts: [String: Int] = [:]
            for row in try database.query("""
                SELECT m.session AS session, count(*) AS unread FROM messages m JOIN sessions s ON s.name = m.session
                WHERE \(Self.unreadCondition)
                GROUP BY m.session
                """) {
                if let name = row["session"].string, let count = row["unread"].int { counts[name] = count }
            }
            return counts
        }
    }

    /// The session whose oldest unread reply is the oldest of all.
    public func oldestUnreadSession() throws -> String? {
        try wrap {
            try database.scalar("""
                SELECT m.session FROM messages m JOIN sessions s ON s.name = m.session
                WHERE \(Self.unreadCondition)
                ORDER BY m.id LIMIT 1
                """).string
        }
    }

    public func unreadMessages(session: String) throws -> [Message] {
        try wrap {
            try database.rows(Self.messages, """
                FROM messages m JOIN sessions s ON s.name = m.session
                WHERE m.session = ? AND \(Self.unreadCondition)
                ORDER BY m.id
                """, values: [.text(session)])
        }
    }

    public func markRead(session: String, upTo messageID: Int64? = nil) throws {
        try wrap {
            if let messageID {
                try database.run("""
                    UPDATE sessions SET last_seen_message = max(last_seen_message, ?) WHERE name = ?
                    """, .integer(messageID), .text(session))
            } else {
                try database.run("""
                    UPDATE sessions SET last_seen_message = max(last_seen_message,
                        coalesce((SELECT max(id) FROM messages WHERE session = ?1 AND writer_pid IS NULL), 0))
                    WHERE name = ?1
                    """, .text(session))
            }
        }
    }

    // MARK: Messages

    /// Text of a message: its first segment, the further segments of a long reply, and the
    /// parts of a reply still streaming or cut off.
    static let textColumn = """
        m.text || coalesce((SELECT group_concat(s.text, '') FROM
            (SELECT text FROM message_more WHERE message_id = m.id ORDER BY seq) s), '')
               || coalesce((SELECT group_concat(p.text, '') FROM
            (SELECT text FROM message_parts WHERE message_id = m.id ORDER BY seq) p), '')
        """

    /// A message's size in bytes, without reading its text when it was recorded (rows from
    /// before migration 008, and replies still being written, are measured).
    static let lengthColumn = """
        coalesce(m.length, length(CAST(m.text AS BLOB))
            + coalesce((SELECT sum(length(CAST(text AS BLOB))) FROM message_more WHERE message_id = m.id), 0)
            + coalesce((SELECT sum(length(CAST(text AS BLOB))) FROM message_parts WHERE message_id = m.id), 0))
        """

    static let metadataColumns = """
        m.id AS id, m.thread_id AS thread_id, m.session AS session, m.role AS role, m.status AS status,
        m.created_at AS created_at, m.backend_id AS backend_id, m.prompt_tokens AS prompt_tokens,
        m.completion_tokens AS completion_tokens, m.total_tokens AS total_tokens, m.error AS error, m.model AS model,
        m.notes AS notes, m.superseded_by AS superseded_by, m.prompt_estimate AS prompt_estimate,
        m.first_byte_ms AS first_byte_ms, m.stream_ms AS stream_ms, m.piped_from AS piped_from
        """

    /// A message as a row of `messages m`, without its text.
    static func metadata(_ row: NamedRow, text: String) -> Message {
        let usage: Usage?
        if row["prompt_tokens"] != .null || row["completion_tokens"] != .null || row["total_tokens"] != .null {
            usage = Usage(promptTokens: row["prompt_tokens"].int, completionTokens: row["completion_tokens"].int,
                          totalTokens: row["total_tokens"].int)
        } else {
            usage = nil
        }
        return Message(id: row["id"].int64 ?? 0, threadID: row["thread_id"].int64 ?? 0, session: row["session"].string ?? "",
                       role: MessageRole(rawValue: row["role"].string ?? "") ?? .user, text: text,
                       status: MessageStatus(rawValue: row["status"].string ?? "") ?? .complete,
                       createdAt: Date(timeIntervalSince1970: row["created_at"].double ?? 0),
                       backendID: row["backend_id"].string, usage: usage, error: row["error"].string,
                       model: row["model"].string,
                       notes: row["notes"].string.map { $0.split(separator: "\n").map(String.init) } ?? [],
                       supersededBy: row["superseded_by"].int64, promptEstimate: row["prompt_estimate"].int,
                       timing: row["first_byte_ms"] == .null ? nil
                           : ReplyTiming(firstByteMilliseconds: row["first_byte_ms"].int ?? 0,
                                         streamMilliseconds: row["stream_ms"].int ?? 0),
                       pipedFrom: row["piped_from"].int)
    }

    /// Whole messages, text and all: `FROM messages m` follows.
    static let messages = RowDecoder<Message>(columns: metadataColumns + ", " + textColumn + " AS text") { row in
        metadata(row, text: row["text"].string ?? "")
    }

    /// Search hits: the message without its text, its size, its thread's title and the snippet.
    static let hits = RowDecoder<SearchHit>(columns: metadataColumns + ", " + lengthColumn
                                                + " AS length, t.title AS title, best.snippet AS snippet") { row in
        SearchHit(message: metadata(row, text: ""), threadTitle: row["title"].string ?? "",
                  snippet: row["snippet"].string ?? "", length: row["length"].int ?? 0)
    }

    /// Records a message that is complete as written (the user's, or an imported one).
    /// `indexWithReply`: a message about to be answered is indexed with its reply, in the
    /// reply's closing commit, instead of in a full-text transaction of its own. `pipedFrom`:
    /// where in `text` (a byte offset) the text piped into hark begins.
    @discardableResult
    public func addMessage(threadID: Int64, session: String, role: MessageRole, text: String,
                           status: MessageStatus = .complete, backendID: String? = nil,
                           createdAt: Date? = nil, indexWithReply: Bool = false, pipedFrom: Int? = nil) throws -> Int64 {
        try wrap {
            try database.transaction {
                let time = createdAt.map { SQLValue.real($0.timeIntervalSince1970) } ?? timestamp
                try database.run("""
                    INSERT INTO messages(thread_id, session, role, text, status, created_at, updated_at, backend_id, length,
                                         unindexed, piped_from)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, .integer(threadID), .text(session), .text(role.rawValue), .text(text), .text(status.rawValue),
                    time, time, SQLValue(backendID), .integer(Int64(text.utf8.count)), indexWithReply ? 1 : .null,
                    pipedFrom.map { .integer(Int64($0)) } ?? .null)
                let id = database.lastInsertRowID
                try database.run("UPDATE threads SET updated_at = ? WHERE id = ?", timestamp, .integer(threadID))
                return id
            }
        }
    }

    /// Puts a message stored with `indexWithReply` into the index now (it got no reply).
    public func indexNow(messageID: Int64) throws {
        try wrap {
            try database.run("UPDATE messages SET unindexed = NULL WHERE id = ? AND unindexed IS NOT NULL", .integer(messageID))
        }
    }

    /// Opens a reply row that the writer fills as text arrives.
    /// The row is written with its writer's lock already held (see WriterLocks), in one
    /// transaction, so no other hark can see it open without the lock.
    public func beginReply(threadID: Int64, session: String, model: String? = nil) throws -> ReplyWriter {
        try wrap {
            try database.transaction {
                try database.run("""
                    INSERT INTO messages(thread_id, session, role, text, status, created_at, updated_at, model, writer_pid,
                                         writer_lock, unindexed)
                    VALUES (?, ?, 'assistant', '', 'partial', ?, ?, ?, ?, 1, 1)
                    """, .integer(threadID), .text(session), timestamp, timestamp, SQLValue(model),
                    .integer(Int64(getpid())))
                let id = database.lastInsertRowID
                if !writerLocks.hold(id) {
                    try database.run("UPDATE messages SET writer_lock = NULL WHERE id = ?", .integer(id))
                }
                replyStreaming(true)
                return ReplyWriter(store: self, messageID: id, threadID: threadID)
            }
        }
    }

    public func message(id: Int64) throws -> Message? {
        try wrap { try database.rows(Self.messages, "FROM messages m WHERE m.id = ?", values: [.integer(id)]).first }
    }

    /// The thread's messages in order; the last `limit` when given. Messages replaced by
    /// `/edit last` only with `superseded`.
    public func messages(threadID: Int64, limit: Int? = nil, superseded: Bool = false) throws -> [Message] {
        try wrap {
            let filter = superseded ? "" : " AND m.superseded_by IS NULL"
            return try database.rows(Self.messages, "FROM messages m WHERE m.thread_id = ?\(filter) ORDER BY m.id DESC LIMIT ?",
                                     values: [.integer(threadID), .integer(Int64(limit ?? -1))]).reversed()
        }
    }

    /// The last messages across a session's threads, or all sessions, oldest first.
    public func recentMessages(session: String?, limit: Int) throws -> [Message] {
        try wrap {
            if let session {
                return try database.rows(Self.messages, "FROM messages m WHERE m.session = ? ORDER BY m.id DESC LIMIT ?",
                                         values: [.text(session), .integer(Int64(limit))]).reversed()
            }
            return try database.rows(Self.messages, "FROM messages m ORDER BY m.id DESC LIMIT ?",
                                     values: [.integer(Int64(limit))]).reversed()
        }
    }

    /// The newest turns of a thread, oldest first, as context for a backend: at most
    /// `window.messages` of them, and no more than `window.bytes` of text together (the newest
    /// that fit; an older turn is never sent without the newer ones). Stopped and partial
    /// replies count (the user saw them); failed and empty ones do not, nor messages replaced
    /// by `/edit last`, nor replies still being written. Only the turns chosen are read: what
    /// it costs depends on what is sent, not on the thread's size.
    public func newestTurns(threadID: Int64, before messageID: Int64? = nil, window: TurnWindow) throws -> [Turn] {
        try turns(of: try newestMessages(threadID: threadID, before: messageID, window: window), threadID: threadID).turns
    }

    /// The messages of `newestTurns`, after `after` (a summary's last message) when given.
    func newestMessages(threadID: Int64, after: Int64? = nil, before messageID: Int64? = nil,
                        window: TurnWindow) throws -> [Message] {
        guard window.messages > 0 else { return [] }
        return try wrap {
            let eligible = """
                m.thread_id = ?1 AND m.status != 'failed' AND m.superseded_by IS NULL AND m.writer_pid IS NULL
                    AND \(Self.lengthColumn) > 0
                """
            let sizes = try database.query("""
                SELECT m.id AS id, \(Self.lengthColumn) AS length FROM messages m
                WHERE \(eligible) AND m.id > ?4 AND m.id < ?2 ORDER BY m.id DESC LIMIT ?3
                """, .integer(threadID), .integer(messageID ?? Int64.max), .integer(Int64(window.messages)),
                .integer(after ?? 0))
            var chosen: [Int64] = []
            var total = 0
            for row in sizes {
                let size = row["length"].int ?? 0
                if let budget = window.bytes, total + size > budget { break }
                total += size
                chosen.append(row["id"].int64 ?? 0)
            }
            guard let oldest = chosen.last, let newest = chosen.first else { return [] }
            return try database.rows(Self.messages, "FROM messages m WHERE \(eligible) AND m.id BETWEEN ?2 AND ?3 ORDER BY m.id",
                                     values: [.integer(threadID), .integer(oldest), .integer(newest)])
        }
    }

    /// How many messages of a thread between two ids (exclusive) could have gone as context:
    /// the older turns a window left out.
    func contextMessages(threadID: Int64, after: Int64, before: Int64) throws -> Int {
        try wrap {
            try database.scalar("""
                SELECT count(*) FROM messages
                WHERE thread_id = ? AND id > ? AND id < ? AND status != 'failed' AND superseded_by IS NULL
                """, .integer(threadID), .integer(after), .integer(before)).int ?? 0
        }
    }

    public func lastMessage(threadID: Int64, role: MessageRole) throws -> Message? {
        try wrap {
            try database.rows(Self.messages, """
                FROM messages m WHERE m.thread_id = ? AND m.role = ? AND m.superseded_by IS NULL ORDER BY m.id DESC LIMIT 1
                """,
                              values: [.integer(threadID), .text(role.rawValue)]).first
        }
    }

    public func lastMessage(session: String, role: MessageRole) throws -> Message? {
        try wrap {
            try database.rows(Self.messages, "FROM messages m WHERE m.session = ? AND m.role = ? ORDER BY m.id DESC LIMIT 1",
                              values: [.text(session), .text(role.rawValue)]).first
        }
    }

    public func messageCount() throws -> Int {
        try wrap { try database.scalar("SELECT count(*) FROM messages").int ?? 0 }
    }
}
