import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// A reply's writer is known by the lock it holds, not by its PID: a hark in another PID
/// namespace (a container sharing the data folder) records a PID that means nothing here, or
/// the PID of someone else, or even this process's own. (The real thing, two harks in two PID
/// namespaces, is in CrashSafetyTests.)
@Suite struct WriterLocksTests {
    let directory = TemporaryDirectory()

    func makeStore() throws -> HistoryStore {
        let store = try HistoryStore(path: directory.file("history.db"))
        try store.ensureSession("bot", kind: "openai")
        return store
    }

    func openRows(_ store: HistoryStore) throws -> Int {
        try store.database.scalar("SELECT count(*) FROM messages WHERE writer_pid IS NOT NULL").int ?? -1
    }

    @Test func aReplyStillBeingWrittenIsNotFoldedWhateverPIDItRecorded() throws {
        let store = try makeStore()
        let thread = try store.createThread(session: "bot", title: "t")
        let writer = try store.beginReply(threadID: thread.id, session: "bot")
        try writer.append("still streaming")
        #expect(try store.database.scalar("SELECT writer_lock FROM messages WHERE id = ?", .integer(writer.messageID)).int == 1)
        // As another namespace's hark would have it: a PID that is no process here, then the
        // PID of the process opening the history (two containers, both harks PID 1).
        for pid in [Int64(2_147_483_646), Int64(getpid())] {
            try store.database.run("UPDATE messages SET writer_pid = ? WHERE id = ?", .integer(pid), .integer(writer.messageID))
            let other = try HistoryStore(path: directory.file("history.db"))
            #expect(try openRows(other) == 1, "a reply being written (pid \(pid)) was folded")
            #expect(try other.message(id: writer.messageID)?.text == "still streaming")
        }
        try writer.append(", and done")
        try writer.finish(status: .complete)
        let done = try #require(try store.message(id: writer.messageID))
        #expect(done.status == .complete)
        #expect(done.text == "still streaming, and done")
        #expect(try store.database.scalar("SELECT writer_lock FROM messages WHERE id = ?", .integer(writer.messageID)) == .null)
    }

    /// The kernel drops a dead writer's lock: closing the store's descriptor is what dying does.
    @Test func aReplyWhoseWriterLetGoIsFoldedAsPartial() throws {
        var store: HistoryStore? = try makeStore()
        let thread = try store!.createThread(session: "bot", title: "t")
        let writer = try store!.beginReply(threadID: thread.id, session: "bot")
        try writer.append("cut short")
        let id = writer.messageID
        store!.writerLocks.release(id)
        store = nil
        let reopened = try HistoryStore(path: directory.file("history.db"))
        #expect(try openRows(reopened) == 0)
        #expect(try reopened.message(id: id)?.status == .partial)
        #expect(try reopened.message(id: id)?.text == "cut short")
    }

    /// Rows an older hark left (its PID only, no lock) are judged by the PID as before.
    @Test func rowsWithoutALockAreJudgedByTheirPID() throws {
        let store = try makeStore()
        let thread = try store.createThread(session: "bot", title: "t")
        for (text, pid) in [("dead writer", Int64(2_147_483_646)), ("live writer", Int64(getppid()))] {
            let writer = try store.beginReply(threadID: thread.id, session: "bot")
            try writer.append(text)
            store.writerLocks.release(writer.messageID)
            try store.database.run("UPDATE messages SET writer_pid = ?, writer_lock = NULL WHERE id = ?",
                                   .integer(pid), .integer(writer.messageID))
        }
        let reopened = try HistoryStore(path: directory.file("history.db"))
        let open = try reopened.database.query("SELECT text FROM message_parts").compactMap { $0["text"].string }
        #expect(open == ["live writer"])
    }

    @Test func theLockFileIsPrivate() throws {
        let store = try makeStore()
        let thread = try store.createThread(session: "bot", title: "t")
        _ = try store.beginReply(threadID: thread.id, session: "bot")
        var info = stat()
        #expect(stat(directory.file("history.db-writers"), &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
    }

    /// Back-to-back one-shot runs each start a background `hark index`: the second waits in
    /// the kernel for the first to end instead of taking turns with it at the write lock.
    @Test func aSecondIndexerWaitsForTheFirstToEnd() throws {
        let path = directory.file("history.db")
        var first: WriterLocks? = WriterLocks(databasePath: path)
        #expect(first!.waitForIndexingTurn())
        var info = stat()
        #expect(stat(path + "-writers", &info) == 0)
        let returned = DispatchSemaphore(value: 0)
        let second = WriterLocks(databasePath: path)
        nonisolated(unsafe) var secondGotItsTurn = false
        Thread.detachNewThread {
            secondGotItsTurn = second.waitForIndexingTurn()
            returned.signal()
        }
        // The kernel lists a blocked request with "->" in /proc/locks (by the file's inode).
        let waiting = try #require(waitForBlockedLock(inode: UInt64(info.st_ino)), "the second indexer never waited")
        #expect(returned.wait(timeout: .now()) == .timedOut, "the second indexer went on while the first held its turn: \(waiting)")
        first = nil
        #expect(returned.wait(timeout: .now() + 60) == .success)
        #expect(secondGotItsTurn)
        #expect(first == nil)
    }

    private func waitForBlockedLock(inode: UInt64) -> String? {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let locks = ProcLocks.read()
            if let line = locks.split(separator: "\n").first(where: { $0.contains("->") && $0.contains(":\(inode) ") }) {
                return String(line)
            }
            usleep(2_000)
        }
        return nil
    }
}
