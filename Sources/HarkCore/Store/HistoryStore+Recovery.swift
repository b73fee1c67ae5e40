import FoundationEssentials
import Glibc

/// What a writer that died mid-reply left, kept.
extension HistoryStore {
    /// Replies whose writer is gone (killed, crashed) are folded and kept as `partial`. A
    /// writer that held its lock is gone when the lock is free; one that recorded only its PID
    /// (an older hark) when that PID is not alive.
    public func recoverInterruptedReplies() throws {
        let own = getpid()
        let rows = try database.query("SELECT id, writer_pid, writer_lock FROM messages WHERE writer_pid IS NOT NULL")
        guard !rows.isEmpty else { return }
        let inspector = writerLocks.inspector()
        for row in rows {
            guard let id = row["id"].int64, let pid = row["writer_pid"].int64.map({ pid_t($0) }) else { continue }
            let alive: Bool
            if row["writer_lock"].int == 1, let held = inspector?.isHeld(id) {
                alive = held
            } else {
                alive = pid != own && (kill(pid, 0) == 0 || errno == EPERM)
            }
            guard !alive else { continue }
            // Checked again under the write lock: the writer may have finished its reply and
            // exited since the rows were read, and a finished reply must stay `complete`.
            try database.transaction {
                let current = try database.scalar("SELECT writer_pid FROM messages WHERE id = ?", .integer(id))
                guard current.int64 == Int64(pid) else { return }
                try ReplyWriter.fold(database: database, messageID: id, status: .partial, error: nil, usage: nil,
                                     backendID: nil, model: nil, notes: [], now: timestamp)
            }
        }
    }
}
