import FoundationEssentials
import Glibc

/// The work hark follows after it exits (`followed_work`) and the A2A push notifications
/// received for it (`work_updates`). Each change is one statement or one transaction: an
/// end is recorded together with the state change that claims it.
extension HistoryStore {
    static let followedWork = RowDecoder<FollowedWork>(columns: """
        id, session, thread_id, kind, key, details, push_token, state, created_at
        """) { row in
        let details = (try? JSON.parse(row["details"].string ?? "{}"))?.object ?? [:]
        return FollowedWork(id: row["id"].int64 ?? 0, session: row["session"].string ?? "", threadID: row["thread_id"].int64 ?? 0,
                            kind: row["kind"].string ?? "", key: row["key"].string,
                            details: details.compactMapValues { $0.string }, pushToken: row["push_token"].string,
                            state: FollowedWork.State(rawValue: row["state"].string ?? "") ?? .done,
                            createdAt: Date(timeIntervalSince1970: row["created_at"].double ?? 0))
    }

    static func encoded(_ details: [String: String]) -> SQLValue {
        .text(JSON.object(details.mapValues { JSON.string($0) }).encoded())
    }

    /// A task about to be sent with a push notification config: its token is stored before
    /// the request goes out, so a push that comes at once is recognised.
    @discardableResult
    public func registerPushToken(_ token: String, session: String, threadID: Int64, kind: String = "task") throws -> Int64 {
        try wrap {
            try database.run("""
                INSERT INTO followed_work(session, thread_id, kind, push_token, state, created_at, updated_at)
                VALUES (?, ?, ?, ?, 'live', ?, ?)
                """, .text(session), .integer(threadID), .text(kind), .text(token), timestamp, timestamp)
            return database.lastInsertRowID
        }
    }

    /// The server named the task the token was sent with. An older row for the same task (an
    /// answer to its question starts a new exchange with a new token) gives way.
    public func nameWork(pushToken token: String, key: String, details: [String: String]) throws {
        try wrap {
            try database.transaction {
                guard let row = try database.rows(Self.followedWork, "FROM followed_work WHERE push_token = ?",
                                                  values: [.text(token)]).first, row.key != key else { return }
                try database.run("DELETE FROM followed_work WHERE session = ? AND kind = ? AND key = ? AND id <> ?",
                                 .text(row.session), .text(row.kind), .text(key), .integer(row.id))
                try database.run("UPDATE followed_work SET key = ?, details = ?, updated_at = ? WHERE id = ?",
                                 .text(key), Self.encoded(details), timestamp, .integer(row.id))
            }
        }
    }

    /// The reply carrying this token ended in the hark that sent it: later pushes are
    /// accepted and dropped.
    public func finishLiveWork(pushToken token: String) throws {
        try wrap {
            try database.run("UPDATE followed_work SET state = 'done', updated_at = ? WHERE push_token = ? AND state = 'live'",
                             timestamp, .text(token))
        }
    }

    /// hark exits while this work runs: from now on `hark watch` follows it.
    public func follow(_ point: ResumePoint, session: String, threadID: Int64) throws {
        try wrap {
            try database.run("""
                INSERT INTO followed_work(session, thread_id, kind, key, details, state, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, 'followed', ?, ?)
                ON CONFLICT(session, kind, key) DO UPDATE SET state = 'followed', thread_id = excluded.thread_id,
                    details = excluded.details, ended_message_id = NULL, updated_at = excluded.updated_at
                """, .text(session), .integer(threadID), .text(point.kind), .text(point.key), Self.encoded(point.details),
                timestamp, timestamp)
        }
    }

    /// Everything `hark watch` has left to follow, oldest first.
    public func followedWork() throws -> [FollowedWork] {
        try wrap {
            try database.rows(Self.followedWork, "FROM followed_work WHERE state = 'followed' AND key IS NOT NULL ORDER BY id")
        }
    }

    public func work(pushToken token: String) throws -> FollowedWork? {
        try wrap { try database.rows(Self.followedWork, "FROM followed_work WHERE push_token = ?", values: [.text(token)]).first }
    }

    public func work(id: Int64) throws -> FollowedWork? {
        try wrap { try database.rows(Self.followedWork, "FROM followed_work WHERE id = ?", values: [.integer(id)]).first }
    }

    /// A push notification as received, stored before it is answered.
    public func storeUpdate(workID: Int64, body: String) throws {
        try wrap {
            try database.run("INSERT INTO work_updates(work_id, body, received_at) VALUES (?, ?, ?)",
                             .integer(workID), .text(body), timestamp)
        }
    }

    /// The push notifications received for some work, in order.
    public func updates(workID: Int64) throws -> [String] {
        try wrap {
            try database.query("SELECT body FROM work_updates WHERE work_id = ? ORDER BY id", .integer(workID))
                .compactMap { $0["body"].string }
        }
    }

    /// Records how the work ended as an unread reply in its thread, in the transaction that
    /// moves it from `followed` to `ended`. Returns the message's id; nil when another
    /// process recorded it first (or it is no longer followed), and then nothing is written.
    @discardableResult
    public func recordEnd(of work: FollowedWork, _ end: WorkEnd) throws -> Int64? {
        try wrap {
            try database.transaction {
                try database.run("UPDATE followed_work SET state = 'ended', updated_at = ? WHERE id = ? AND state = 'followed'",
                                 timestamp, .integer(work.id))
                guard database.changes == 1 else { return nil }
                try database.run("""
                    INSERT INTO messages(thread_id, session, role, text, status, created_at, updated_at, backend_id, length,
                                         notes, error)
                    VALUES (?, ?, 'assistant', ?, ?, ?, ?, ?, ?, ?, ?)
                    """, .integer(work.threadID), .text(work.session), .text(end.text), .text(end.status.rawValue),
                    timestamp, timestamp, SQLValue(end.backendID), .integer(Int64(end.text.utf8.count)),
                    .text(end.headline), SQLValue(end.error))
                let id = database.lastInsertRowID
                try database.run("UPDATE followed_work SET ended_message_id = ? WHERE id = ?", .integer(id), .integer(work.id))
                try database.run("UPDATE threads SET updated_at = ? WHERE id = ?", timestamp, .integer(work.threadID))
                return id
            }
        }
    }
}
