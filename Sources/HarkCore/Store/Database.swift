import CSQLite
import FoundationEssentials
import Glibc

/// One SQLite connection. Calls are serialised by a lock, so a Database can be shared by the
/// shell thread and the tasks recording replies; other processes coordinate through WAL and
/// the busy timeout.
public final class Database: @unchecked Sendable {
    let handle: OpaquePointer
    public let path: String
    private let lock = Lock(recursive: true)
    /// Held by whichever of this process's connections to the file is writing (see WriteGate).
    let gate: WriteGate
    /// Writes of this connection give way to the foreground's (the indexer's connection).
    var writesInBackground = false

    /// `readOnly` opens an existing file for reading only (it is never created).
    public init(path: String, readOnly: Bool = false, busyTimeoutMilliseconds: Int32 = 10_000) throws {
        var connection: OpaquePointer?
        let flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &connection, flags, nil)
        guard code == SQLITE_OK, let connection else {
            let message = connection.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let connection { sqlite3_close_v2(connection) }
            throw SQLiteError(code: code, message: "cannot open \(path): \(message)", sql: nil)
        }
        self.handle = connection
        self.path = path
        self.gate = WriteGate.shared(for: path)
        sqlite3_extended_result_codes(connection, 1)
        // The last connection to close would checkpoint the WAL into the database and delete
        // it, with three or four fdatasyncs: paid by every one-shot `hark -s bot "…"` and
        // every `hark search`, it was most of what a one-shot message costs beyond curl's
        // (BENCHMARKS.md). The WAL stays and is checkpointed by SQLite's automatic checkpoint,
        // once per 1,000 pages written. Durability is that of synchronous=NORMAL either way.
        hark_sqlite3_skip_checkpoint_on_close(connection)
        sqlite3_busy_timeout(connection, busyTimeoutMilliseconds)
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    /// True when SQLite opened the file for reading only: asked to, or (asked for reading and
    /// writing) because the user may not write it.
    public var isReadOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }

    /// Hands SQLite `pages` slots of page cache in one block whose memory the kernel fills in
    /// a single call (MAP_POPULATE), instead of a page fault for each page a query reads: a
    /// search of a large history reads about a hundred pages, and those faults were a tenth
    /// of `hark search` (BENCHMARKS.md). Only before SQLite's first use in the process;
    /// later calls do nothing. Pages beyond these come from malloc as before.
    public static func preparePageCache(pages: Int) {
        let header = Int(hark_sqlite3_pcache_header_size())
        guard header >= 0 else { return }
        let slot = (4096 + header + 7) & ~7
        let memory = mmap(nil, slot * pages, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0)
        guard let memory, memory != MAP_FAILED else { return }
        if hark_sqlite3_config_pagecache(memory, Int32(slot), Int32(pages)) != SQLITE_OK {
            munmap(memory, slot * pages)
        }
    }

    /// Runs `body` with the connection to itself.
    public func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// Runs one or more statements that return no rows.
    public func execute(_ sql: String) throws {
        try locked {
            var errorMessage: UnsafeMutablePointer<CChar>?
            let code = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
            if code != SQLITE_OK {
                let message = errorMessage.map { String(cString: $0) } ?? lastErrorMessage
                sqlite3_free(errorMessage)
                throw SQLiteError(code: code, message: message, sql: sql)
            }
        }
    }

    public func prepare(_ sql: String) throws -> Statement {
        try locked { try Statement(database: self, sql: sql) }
    }

    /// Prepares, binds and runs a statement that returns no rows.
    public func run(_ sql: String, _ values: SQLValue...) throws {
        try locked {
            let statement = try Statement(database: self, sql: sql)
            try statement.bind(values)
            try stepWriting(statement)
        }
    }

    /// Steps a statement to its end; one that writes outside a transaction takes the write
    /// gate, as a transaction does.
    func stepWriting(_ statement: Statement) throws {
        try locked {
            if sqlite3_get_autocommit(handle) != 0 && !statement.isReadOnly {
                try gate.withLock(background: writesInBackground) { while try statement.step() {} }
            } else {
                while try statement.step() {}
            }
        }
    }

    /// All rows of a query, each read by its columns' names.
    public func query(_ sql: String, _ values: SQLValue...) throws -> [NamedRow] {
        try query(sql, values: values)
    }

    public func query(_ sql: String, values: [SQLValue]) throws -> [NamedRow] {
        try locked {
            let statement = try Statement(database: self, sql: sql)
            try statement.bind(values)
            let names = statement.columnNames
            var rows: [NamedRow] = []
            while try statement.step() { rows.append(statement.row(names: names)) }
            return rows
        }
    }

    /// The rows of `SELECT <decoder's columns> <rest>`, decoded.
    public func rows<Value>(_ decoder: RowDecoder<Value>, _ rest: String, values: [SQLValue] = []) throws -> [Value] {
        try locked {
            let statement = try Statement(database: self, sql: "SELECT " + decoder.columns + " " + rest)
            try statement.bind(values)
            let names = statement.columnNames
            var decoded: [Value] = []
            while try statement.step() { decoded.append(decoder.decode(statement.row(names: names))) }
            return decoded
        }
    }

    /// The one value a query selects (`SELECT count(*) …`), or null when it selects no row.
    public func scalar(_ sql: String, _ values: SQLValue...) throws -> SQLValue {
        try locked {
            let statement = try Statement(database: self, sql: sql)
            try statement.bind(values)
            guard try statement.step() else { return .null }
            return statement.firstValue()
        }
    }

    public var lastInsertRowID: Int64 { locked { sqlite3_last_insert_rowid(handle) } }
    public var changes: Int { locked { Int(sqlite3_changes(handle)) } }

    /// A write transaction taken with BEGIN IMMEDIATE, so that concurrent writers wait on the
    /// busy timeout at the start instead of failing when a read lock cannot be upgraded.
    /// Inside another transaction it joins that one, so steps that are
    /// atomic on their own can also be parts of a larger step.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try locked {
            if sqlite3_get_autocommit(handle) == 0 { return try body() }
            return try gate.withLock(background: writesInBackground) {
                try execute("BEGIN IMMEDIATE")
                do {
                    let result = try body()
                    try execute("COMMIT")
                    return result
                } catch {
                    try? execute("ROLLBACK")
                    throw error
                }
            }
        }
    }

    /// Another connection to the same file, sharing this one's write gate: for work on a
    /// thread of its own (the full-text indexer) that must not wait on this connection's lock.
    public func sibling(inBackground: Bool = true) throws -> Database {
        let database = try Database(path: path)
        database.writesInBackground = inBackground
        return database
    }

    var lastErrorMessage: String { String(cString: sqlite3_errmsg(handle)) }

    func check(_ code: Int32, sql: String?) throws {
        if code != SQLITE_OK && code != SQLITE_ROW && code != SQLITE_DONE {
            throw SQLiteError(code: code, message: lastErrorMessage, sql: sql)
        }
    }
}

/// One lock per database file for this process's connections to it. SQLite lets one connection
/// write at a time and makes the others wait in its busy handler, which sleeps in steps of
/// milliseconds; connections of one process that take this lock before they write wait on a
/// condition instead. A background connection (the indexer's) also lets every foreground
/// writer waiting go first, so a reply's commit waits at most for one indexing transaction.
/// Other processes still meet SQLite's busy timeout.
final class WriteGate: @unchecked Sendable {
    private let condition = Condition()
    private var owner: pthread_t?
    private var depth = 0
    private var foregroundWaiting = 0
    private nonisolated(unsafe) static var gates: [(path: String, gate: WriteGate)] = []
    private static let registry = Lock()

    static func shared(for path: String) -> WriteGate {
        registry.withLock {
            if let known = gates.first(where: { $0.path == path }) { return known.gate }
            let gate = WriteGate()
            gates.append((path, gate))
            return gate
        }
    }

    /// Runs `body` holding the gate; the thread holding it may take it again.
    func withLock<T>(background: Bool = false, _ body: () throws -> T) rethrows -> T {
        let me = pthread_self()
        condition.lock()
        if let owner, pthread_equal(owner, me) != 0 {
            depth += 1
        } else {
            if !background { foregroundWaiting += 1 }
            while owner != nil || (background && foregroundWaiting > 0) { condition.wait() }
            if !background { foregroundWaiting -= 1 }
            owner = me
            depth = 1
        }
        condition.unlock()
        defer {
            condition.lock()
            depth -= 1
            if depth == 0 {
                owner = nil
                condition.broadcast()
            }
            condition.unlock()
        }
        return try body()
    }
}
