import CSQLite
import FoundationEssentials
import Glibc

/// `hark backup FILE` and `hark restore FILE`, through SQLite's online backup API: a backup
/// is one consistent snapshot taken while other hark processes go on writing (WAL readers do
/// not stop writers), and a restore copies the file into the live history under SQLite's own
/// locks, so a running hark sees the restored history at its next read instead of writing
/// into a file that was moved away. Both files are private (0600), like the history.
public enum HistoryBackup {
    public struct Summary: Sendable, Equatable {
        public var bytes: Int
        public var messages: Int
        public var forms: Int
        public var documents: Int
    }

    /// Writes a consistent copy of the history at `source` into `destination` (a new file,
    /// renamed into place when complete, so it is never seen half written).
    @discardableResult
    public static func backup(from source: String, to destination: String, clock: HarkClock = .system) throws -> Summary {
        guard FileWalk.stamp(source) != nil else { throw HarkError.usage("there is no history at \(source) to back up yet") }
        let temporary = destination + ".part-\(getpid())"
        try createPrivate(temporary)
        do {
            let from = try Database(path: source)
            let into = try Database(path: temporary)
            try copy(from: from, into: into, clock: clock)
            // One self-contained file: no -wal beside it to forget.
            try into.execute("PRAGMA journal_mode=DELETE")
            let summary = try self.summary(into, path: temporary)
            guard rename(temporary, destination) == 0 else {
                throw HarkError.io("cannot write \(destination): \(String(cString: strerror(errno)))")
            }
            return summary
        } catch {
            unlink(temporary)
            if let error = error as? SQLiteError { throw HarkError.storage(error.description) }
            throw error
        }
    }

    /// Checks `file` (integrity_check, a hark history this hark knows) and copies it into the
    /// history at `live`, after a backup of the current one beside it (named by the clock's
    /// date). Returns that backup's path.
    public static func restore(from file: String, into live: String, clock: HarkClock = .system) throws -> String? {
        guard FileWalk.stamp(file) != nil else { throw HarkError.usage("no file at \(file)") }
        do {
            let incoming = try Database(path: file, readOnly: true)
            try check(incoming, name: file)
            var kept: String?
            if FileWalk.stamp(live) != nil {
                let path = live + ".before-restore-" + stamp(clock.now())
                try backup(from: live, to: path, clock: clock)
                kept = path
            } else {
                try createPrivate(live)
            }
            let target = try Database(path: live)
            try copy(from: incoming, into: target, clock: clock)
            let verdict = try target.scalar("PRAGMA quick_check").string
            guard verdict == "ok" else {
                throw HarkError.storage("the restored history does not check out (\(verdict ?? "no answer"))"
                    + (kept.map { "; the one before is at \($0)" } ?? ""))
            }
            return kept
        } catch let error as SQLiteError {
            throw HarkError.storage(error.description)
        }
    }

    /// Whether a file can be restored: undamaged, a hark history, none of its steps unknown.
    static func check(_ database: Database, name: String) throws {
        let problems = try database.query("PRAGMA integrity_check").compactMap { $0["integrity_check"].string }
        guard problems == ["ok"] else {
            throw HarkError.storage("\(name) is damaged (integrity_check: \(problems.prefix(3).joined(separator: "; "))); "
                + "nothing was changed")
        }
        guard (try? database.query("SELECT name FROM schema_migrations")) != nil else {
            throw HarkError.usage("\(name) is not a hark history (it has no schema_migrations); nothing was changed")
        }
        if let newer = try Migrations.newerSchema(database) {
            throw HarkError.usage("\(name) was made by a newer hark (\(newer)); upgrade hark to restore it; nothing was changed")
        }
    }

    /// All pages in one step: the source is read in one transaction, a snapshot however much
    /// is written meanwhile. Busy or locked (a writer committing, a checkpoint) is waited out.
    static func copy(from source: Database, into destination: Database, clock: HarkClock) throws {
        try destination.locked {
            try source.locked {
                guard let backup = sqlite3_backup_init(destination.handle, "main", source.handle, "main") else {
                    throw SQLiteError(code: sqlite3_errcode(destination.handle), message: destination.lastErrorMessage, sql: nil)
                }
                var code: Int32
                var waited = 0
                repeat {
                    code = sqlite3_backup_step(backup, -1)
                    if code == SQLITE_BUSY || code == SQLITE_LOCKED {
                        waited += 1
                        if waited > 1_000 { break }
                        clock.pause(0.01)
                    }
                } while code == SQLITE_OK || code == SQLITE_BUSY || code == SQLITE_LOCKED
                let finished = sqlite3_backup_finish(backup)
                if code != SQLITE_DONE {
                    throw SQLiteError(code: code, message: String(cString: sqlite3_errstr(code)), sql: nil)
                }
                if finished != SQLITE_OK {
                    throw SQLiteError(code: finished, message: destination.lastErrorMessage, sql: nil)
                }
            }
        }
    }

    static func summary(_ database: Database, path: String) throws -> Summary {
        func count(_ table: String) -> Int { (try? database.scalar("SELECT count(*) FROM \(table)").int) ?? 0 }
        return Summary(bytes: FileWalk.stamp(path)?.size ?? 0, messages: count("messages"), forms: count("local_forms"),
                       documents: count("local_documents"))
    }

    /// A new file only its owner can read, before SQLite opens it (SQLite would make it 0644).
    static func createPrivate(_ path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            let reason = errno == EEXIST ? "it exists" : String(cString: strerror(errno))
            throw HarkError.io("cannot create \(path): \(reason)")
        }
        _ = fchmod(fd, 0o600)
        close(fd)
    }

    /// `20260307-101500`.
    static func stamp(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970)
        var parts = tm()
        localtime_r(&seconds, &parts)
        return String(cFormat: "%04d%02d%02d-%02d%02d%02d", Int32(parts.tm_year) + 1900, Int32(parts.tm_mon) + 1,
                      Int32(parts.tm_mday), Int32(parts.tm_hour), Int32(parts.tm_min), Int32(parts.tm_sec))
    }
}
