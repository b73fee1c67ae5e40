import FoundationEssentials
import Glibc

/// Puts stored text into the full-text index on a connection and a thread of its own. Writers
/// store messages and reply segments with `unindexed` set (migration 008); a pass clears it a
/// few rows per transaction, and the triggers index them. A reply's stream therefore never
/// waits for FTS5's tokenizer, only, at a segment's commit, for the one transaction of the
/// indexer in flight (the write gate). Whatever a process leaves unindexed (killed mid-reply)
/// is indexed by the next that opens the history, and a search indexes first, so search still
/// finds every reply. A one-shot run defers its passes (`deferPasses`): its long reply streams
/// with no tokenizer beside it, and `hark index` indexes it after the run, in the background.
public final class FullTextIndexer: @unchecked Sendable {
    private let source: Database
    private let condition = Condition()
    private var connection: Database?
    private var threadStarted = false
    /// Passes asked for and passes done: a waiter knows its request has been served.
    private var requested = 0
    private var completed = 0
    private var failure: String?
    /// Tests hold passes back to see what the stream alone wrote.
    private var paused = false
    /// Passes asked for are noted, not run (a one-shot run; see `deferPasses`).
    private var deferred = false
    /// Callers of `drain` waiting: a deferred indexer still runs its passes for them.
    private var draining = 0
    /// Set in `hark index`: between transactions, wait while any reply streams into the history
    /// (`giveWayToReplies`).
    private var repliesToGiveWayTo: WriterLocks?

    /// Rows per transaction: each holds the write lock while FTS5 tokenizes it, about a
    /// millisecond for a 64 KB segment, which is as long as a reply's commit may wait.
    static let segmentsPerTransaction = 1

    init(database: Database) {
        source = database
    }

    /// Holds passes back until `resume` (tests: what the stream writes on its own).
    func pause() { condition.withLock { paused = true } }

    func resume() {
        condition.withLock {
            paused = false
            condition.broadcast()
        }
    }

    /// From now on, asks for passes are noted and not acted on: a one-shot run streams its
    /// reply with no indexer sharing the two cores (FTS5's tokenizer cost more CPU than the
    /// rest of a 50 MB stream; BENCHMARKS.md) and leaves what it wrote to `hark index`, which
    /// it starts in the background as it exits (`hasDeferredWork`). `drain` still indexes.
    public func deferPasses() { condition.withLock { deferred = true } }

    /// From now on, waits between transactions while a reply streams into the history, in this
    /// process or another (`hark index`, started in the background by the one-shot run before,
    /// gives way to the next one's stream). The next run's commits then wait for at most one of
    /// its transactions, and it no longer takes the CPU the stream needs: back to back, the
    /// stream slowed to a sixth without this (BENCHMARKS.md).
    func giveWayToReplies(_ locks: WriterLocks) { condition.withLock { repliesToGiveWayTo = locks } }

    /// Whether `deferPasses` was called.
    public var defersPasses: Bool { condition.withLock { deferred } }

    /// Whether passes were asked for and not run since `deferPasses`.
    public var hasDeferredWork: Bool { condition.withLock { deferred && completed < requested } }

    /// Asks for a pass in the background.
    public func kick() {
        condition.lock()
        requested += 1
        if deferred {
            condition.unlock()
            return
        }
        if !threadStarted {
            threadStarted = true
            condition.unlock()
            Threads.start(name: "hark-index") { [self] in loop() }
            return
        }
        condition.signal()
        condition.unlock()
    }

    /// Indexes everything pending now and returns when it is done (a search, the end of a
    /// one-shot run). Throws what the last pass met.
    public func drain() throws {
        condition.lock()
        // Never asked for: this process has written nothing unindexed (short replies are indexed
        // as they close), and what others left was asked for when the store opened.
        if requested == 0 {
            condition.unlock()
            return
        }
        requested += 1
        let ticket = requested
        if !threadStarted {
            // No thread yet: this thread does the pass itself.
            condition.unlock()
            try Self.indexPending(try indexingConnection()) {
                giveWay()
                return true
            }
            condition.lock()
            completed = max(completed, ticket)
            condition.unlock()
            return
        }
        draining += 1
        condition.signal()
        while completed < ticket { condition.wait() }
        draining -= 1
        let failed = failure
        condition.unlock()
        if let failed { throw HarkError.storage(failed) }
    }

    private func indexingConnection() throws -> Database {
        try condition.withLock {
            if let connection { return connection }
            let opened = try source.sibling()
            try opened.execute("PRAGMA synchronous=NORMAL")
            connection = opened
            return opened
        }
    }

    private func loop() {
        while true {
            condition.lock()
            while completed >= requested || paused || (deferred && draining == 0) { condition.wait() }
            let ticket = requested
            condition.unlock()
            var failed: String?
            var finished = true
            do {
                // A pass begun before the run deferred its passes (what a killed process left,
                // found as the store opened) stops at its next transaction.
                finished = try Self.indexPending(try indexingConnection()) {
                    if condition.withLock({ deferred && draining == 0 }) { return false }
                    giveWay()
                    return true
                }
            } catch {
                failed = (error as? SQLiteError)?.description ?? error.userMessage
            }
            condition.lock()
            if finished { completed = ticket }
            failure = failed
            condition.broadcast()
            condition.unlock()
        }
    }

    private func giveWay() {
        condition.withLock { repliesToGiveWayTo }?.waitWhileRepliesStream()
    }

    /// Indexes every pending row: messages whose text is final or under way (a reply being
    /// written with `messages.text` still empty waits), and reply segments. `between` is called
    /// before each transaction and may wait; when it returns false the pass stops there.
    /// Returns whether it indexed everything.
    @discardableResult
    static func indexPending(_ database: Database, between: () -> Bool = { true }) throws -> Bool {
        while true {
            guard between() else { return false }
            let more = try database.transaction { () -> Bool in
                try database.run("""
                    UPDATE message_more SET unindexed = NULL WHERE id IN
                        (SELECT id FROM message_more WHERE unindexed IS NOT NULL ORDER BY id LIMIT ?)
                    """, .integer(Int64(segmentsPerTransaction)))
                let segments = database.changes
                try database.run("""
                    UPDATE messages SET unindexed = NULL WHERE id IN
                        (SELECT id FROM messages WHERE unindexed IS NOT NULL AND (writer_pid IS NULL OR text != '')
                         ORDER BY id LIMIT ?)
                    """, .integer(Int64(segmentsPerTransaction)))
                return segments + database.changes > 0
            }
            if !more { return true }
        }
    }

    /// True when some stored text is not in the index yet (cheap: two partial indexes).
    static func hasPending(_ database: Database) throws -> Bool {
        try database.scalar(anyPending).int == 1
    }

    /// How many stored texts a pass would index now (`hark index` says so).
    static func pendingCount(_ database: Database) throws -> Int {
        try database.scalar(countPending).int ?? 0
    }

    /// The rows a pass indexes: reply segments, and messages whose text is final or under way.
    private static let pendingSegments = "SELECT 1 FROM message_more WHERE unindexed IS NOT NULL"
    private static let pendingMessages = "SELECT 1 FROM messages WHERE unindexed IS NOT NULL AND (writer_pid IS NULL OR text != '')"
    private static let anyPending = "SELECT EXISTS (\(pendingSegments)) OR EXISTS (\(pendingMessages))"
    private static let countPending = "SELECT (SELECT count(*) FROM (\(pendingSegments))) + (SELECT count(*) FROM (\(pendingMessages)))"
}
