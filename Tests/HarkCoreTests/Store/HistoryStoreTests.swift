import Foundation
import Testing
import TestSupport
@testable import HarkCore

@Suite struct HistoryStoreTests {
    let directory = TemporaryDirectory()

    func makeStore() throws -> HistoryStore {
        let store = try HistoryStore(path: directory.file("history.db"))
        try store.ensureSession("local", kind: "local")
        try store.ensureSession("bot", kind: "openai")
        return store
    }

    /// Replies beginning and ending at once on one store, as a shell's foreground and background
    /// replies do: one beginning holds the connection (its transaction) and notes that a reply
    /// streams; one ending notes it and sets the connection's checkpointing. With a lock of its
    /// own for that note, the two took their locks in opposite orders and hung for good.
    @Test func repliesBeginningAndEndingAtOnceDoNotDeadlock() async throws {
        let store = try makeStore()
        let thread = try store.createThread(session: "bot", title: "t")
        let finished = try await offThePool { () -> Bool in
            let done = DispatchGroup()
            for _ in 0..<2 {
                done.enter()
                Thread.detachNewThread {
                    for _ in 0..<300 {
                        if let writer = try? store.beginReply(threadID: thread.id, session: "bot") {
                            try? writer.finish(status: .complete)
                        }
                    }
                    done.leave()
                }
            }
            // Generous: 600 replies take well under a second; a deadlock never ends.
            return done.wait(timeout: .now() + 120) == .success
        }
        #expect(finished, "two threads beginning and ending replies hung")
        // (Hung threads hold the connection: it can only be read when they finished.)
        if finished {
            #expect(try store.database.scalar("SELECT count(*) FROM messages WHERE role = 'assistant'").int == 600)
        }
    }

    @Test func usesWALAndForeignKeys() throws {
        let store = try makeStore()
        #expect(try store.database.scalar("PRAGMA journal_mode").string == "wal")
        #expect(try store.database.scalar("PRAGMA foreign_keys").int == 1)
    }

    @Test func threadsAreCreatedFoundRenamedAndDeleted() throws {
        let store = try makeStore()
        #expect(try store.currentThread(session: "bot") == nil)
        let first = try store.createThread(session: "bot", title: "Refunds")
        let second = try store.createThread(session: "bot", title: "Shipping delays", backendID: "abc-123")
        #expect(try store.currentThread(session: "bot")?.id == second.id)
        #expect(try store.findThread(session: "bot", "refunds")?.id == first.id)
        #expect(try store.findThread(session: "bot", "Ship")?.id == second.id)
        #expect(try store.findThread(session: "bot", String(first.id))?.id == first.id)
        #expect(try store.findThread(session: "bot", "abc-123")?.id == second.id)
        #expect(try store.findThread(session: "bot", "nothing") == nil)
        try store.renameThread(id: first.id, title: "Returns")
        #expect(try store.thread(id: first.id)?.title == "Returns")
        try store.addMessage(threadID: second.id, session: "bot", role: .user, text: "hello")
        try store.deleteThread(id: second.id)
        #expect(try store.currentThread(session: "bot") == nil)
        #expect(try store.messageCount() == 0)
    }

    @Test func aReplyIsReadableWhileStreamingAndFoldedWhenDone() throws {
        let store = try makeStore()
        let thread = try store.createThread(session: "bot", title: "t")
        try store.addMessage(threadID: thread.id, session: "bot", role: .user, text: "tell me")
        let writer = try store.beginReply(threadID: thread.id, session: "bot", model: "m1")
        try writer.append("Hello, ")
        try writer.append("wörld")
        var reply = try #require(try store.message(id: writer.messageID))
        #expect(reply.text == "Hello, wörld")
        #expect(reply.status == .partial)
        #expect(try store.search("wörld").isEmpty, "not indexed while it is being written")
        try writer.finish(status: .complete, usage: Usage(promptTokens: 3, completionTokens: 2, totalTokens: 5))
        reply = try #require(try store.message(id: writer.messageID))
        #expect(reply.text == "Hello, wörld")
        #expect(reply.status == .complete)
        #expect(reply.usage == Usage(promptTokens: 3, completionTokens: 2, totalTokens: 5))
        #expect(reply.model == "m1")
        #expect(try store.database.scalar("SELECT count(*) FROM message_parts").int == 0)
        #expect(try store.search("world").map(\.message.id) == [writer.messageID], "diacritics folded")
    }

    @Test func anOrphanedReplyIsRecoveredAsPartialOnOpen() throws {
        var store: HistoryStore? = try makeStore()
        let thread = try store!.createThread(session: "bot", title: "t")
        let writer = try store!.beginReply(threadID: thread.id, session: "bot")
        try writer.append("half a sent")
        // Pretend the writer was a process that died: the kernel dropped its lock with it, and
        // its pid cannot exist.
        store!.writerLocks.release(writer.messageID)
        try store!.database.run("UPDATE messages SET writer_pid = 2147483646 WHERE id = ?", .integer(writer.messageID))
        store = nil
        let reopened = try HistoryStore(path: directory.file("history.db"))
        let message = try #require(try reopened.message(id: writer.messageID))
        #expect(message.status == .partial)
        #expect(message.text == "half a sent")
        #expect(try reopened.search("sent").count == 1)
    }

    @Test func turnsSkipFailedAndEmptyReplies() throws {
        let store = try makeStore()
        let thread = try store.createThread(session: "bot", title: "t")
        try store.addMessage(threadID: thread.id, session: "bot", role: .user, text: "q1")
        let ok = try store.beginReply(threadID: thread.id, session: "bot")
        try ok.append("a1")
        try ok.finish(status: .stopped)
        try store.addMessage(threadID: thread.id, session: "bot", role: .user, text: "q2")
        let failed = try store.beginReply(threadID: thread.id, session: "bot")
        try failed.append("junk")
        try failed.finish(status: .failed, error: "HTTP 500")
        #expect(try store.newestTurns(threadID: thread.id, window: TurnWindow(messages: 40)) == [
            Turn(role: .user, text: "q1"), Turn(role: .assistant, text: "a1"), Turn(role: .user, text: "q2"),
        ])
        #expect(try store.context(threadID: thread.id, session: "bot", window: TurnWindow(messages: 40)).turns == [
            Turn(role: .user, text: "q1"), Turn(role: .assistant, text: "a1"), Turn(role: .user, text: "q2"),
        ])
    }

    /// The newest turns that fit a count and a size, oldest first; only those are read.
    @Test func newestTurnsStopAtTheCountAndTheBudget() throws {
        let store = try makeStore()
        let thread = try store.createThread(session: "bot", title: "t")
        var ids: [Int64] = []
        for (index, text) in ["one", String(repeating: "x", count: 5000), "three", "four", "five"].enumerated() {
            ids.append(try store.addMessage(threadID: thread.id, session: "bot", role: index % 2 == 0 ? .user : .assistant,
                                            text: text))
        }
        #expect(try store.newestTurns(threadID: thread.id, window: TurnWindow(messages: 2)).map(\.text) == ["four", "five"])
        #expect(try store.newestTurns(threadID: thread.id, window: TurnWindow(messages: 10, bytes: 100)).map(\.text)
                == ["three", "four", "five"], "the 5000-byte turn does not fit, nor anything older")
        #expect(try store.newestTurns(threadID: thread.id, before: ids[4], window: TurnWindow(messages: 1)).map(\.text)
                == ["four"])
        #expect(try store.newestTurns(threadID: thread.id, window: .none).isEmpty)
        #expect(try store.newestTurns(threadID: thread.id, window: TurnWindow(messages: 10, bytes: 0)).isEmpty)
    }

    @Test func rowsAreReadByTheNamesTheirQuerySelects() throws {
        let store = try makeStore()
        let decoder = RowDecoder<String>(columns: "'b' AS second, 'a' AS first") { row in
            (row["first"].string ?? "") + (row["second"].string ?? "")
        }
        #expect(try store.database.rows(decoder, "") == ["ab"])
    }

    @Test func unreadCountsFollowFinishedRepliesUntilRead() throws {
        let store = try makeStore()
        let thread = try store.createThread(session: "bot", title: "t")
        let streaming = try store.beginReply(threadID: thread.id, session: "bot")
        try streaming.append("…")
        #expect(try store.unreadCounts().isEmpty, "a reply still streaming is not unread yet")
        try streaming.finish(status: .complete)
        #expect(try store.unreadCounts() == ["bot": 1])
        #expect(try store.oldestUnreadSession() == "bot")
        try store.markRead(session: "bot")
        #expect(try store.unreadCounts().isEmpty)
    }

    /// The read-only store `hark search` uses: nil until the file exists with this version's
    /// schema; then it finds hits across threads, newest first, with each thread's title, and
    /// cannot write.
    @Test func aReadOnlyStoreSearchesAcrossThreadsAndCannotWrite() throws {
        #expect(HistoryStore.openForReading(path: directory.file("history.db")) == nil)
        let store = try makeStore()
        let older = try store.createThread(session: "local", title: "older")
        let newer = try store.createThread(session: "bot", title: "newer")
        let first = try store.addMessage(threadID: older.id, session: "local", role: .user, text: "the kettle whistles")
        _ = try store.addMessage(threadID: older.id, session: "local", role: .user, text: "unrelated")
        let second = try store.addMessage(threadID: newer.id, session: "bot", role: .user, text: "a kettle again")
        let reader = try #require(HistoryStore.openForReading(path: directory.file("history.db")))
        let hits = try reader.search("kettle")
        #expect(hits.map(\.message.id) == [second, first])
        #expect(hits.map(\.threadTitle) == ["newer", "older"])
        #expect(try reader.search("kettle", session: "local").map(\.message.id) == [first])
        #expect(try reader.search("kettle", limit: 1).map(\.message.id) == [second])
        #expect(throws: (any Error).self) { try reader.createThread(session: "local", title: "nope") }
        try store.database.execute("DELETE FROM schema_migrations WHERE name = (SELECT max(name) FROM schema_migrations)")
        #expect(HistoryStore.openForReading(path: directory.file("history.db")) == nil, "an older schema is migrated first")
    }

    @Test func searchQuotesWhatTheUserTypedAndSupportsPrefixes() throws {
        let store = try makeStore()
        let thread = try store.createThread(session: "local", title: "notes")
        try store.addMessage(threadID: thread.id, session: "local", role: .user, text: "don't forget: AND-gate \"quotes\"")
        try store.addMessage(threadID: thread.id, session: "local", role: .user, text: "buy milk")
        #expect(try store.search("don't").count == 1)
        #expect(try store.search("AND-gate").count == 1)
        #expect(try store.search("\"quotes").count == 1)
        #expect(try store.search("mil*").count == 1)
        #expect(try store.search("NEAR(").isEmpty)
        #expect(try store.search("   ").isEmpty)
        let hit = try #require(try store.search("milk").first)
        #expect(hit.snippet.contains("\u{1}milk\u{2}"))
        #expect(hit.threadTitle == "notes")
    }

    @Test func inputHistoryIsPerSessionOldestFirst() throws {
        let store = try makeStore()
        try store.addInputLine(session: "bot", line: "one")
        try store.addInputLine(session: "local", line: "other")
        try store.addInputLine(session: "bot", line: "two")
        #expect(try store.inputHistory(session: "bot") == ["one", "two"])
        #expect(try store.inputHistory(session: "bot", limit: 1) == ["two"])
    }

    @Test func twoConnectionsWriteConcurrentlyWithoutLockErrors() async throws {
        let path = directory.file("shared.db")
        let setup = try HistoryStore(path: path)
        try setup.ensureSession("bot", kind: "openai")
        let thread = try setup.createThread(session: "bot", title: "t")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    let store = try HistoryStore(path: path)
                    for index in 0..<50 {
                        try store.addMessage(threadID: thread.id, session: "bot", role: .user, text: "w\(worker) m\(index)")
                        let writer = try store.beginReply(threadID: thread.id, session: "bot")
                        try writer.append("r")
                        try writer.finish(status: .complete)
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try setup.messageCount() == 400)
    }
}

/// What `/info` and `hark stats` read: tokens summed, speeds as medians of the last replies.
@Suite struct UsageStatsTests {
    @Test func tokensAreSummedAndSpeedsAreMediansOfTheLastReplies() throws {
        let directory = TemporaryDirectory()
        let store = try HistoryStore(path: directory.file("history.db"))
        let thread = try store.createThread(session: "bot", title: "t")
        for (index, (firstByte, stream, tokens)) in [(200, 1000, 10), (400, 2000, 60), (1000, 500, 5)].enumerated() {
            try store.addMessage(threadID: thread.id, session: "bot", role: .user, text: "q\(index)")
            let reply = try store.beginReply(threadID: thread.id, session: "bot")
            try reply.append("a\(index)")
            try reply.finish(status: .complete, usage: Usage(promptTokens: 100 * (index + 1), completionTokens: tokens),
                             promptEstimate: 90, timing: ReplyTiming(firstByteMilliseconds: firstByte, streamMilliseconds: stream))
        }
        let stats = try store.stats(session: "bot")
        #expect(stats.messages == 6 && stats.replies == 3)
        #expect(stats.promptTokens == 600 && stats.completionTokens == 75)
        #expect(stats.lastPromptTokens == 300)
        #expect(stats.firstByteSeconds == 0.4)
        #expect(stats.tokensPerSecond == 10)  // 10, 30 and 10 tokens a second
        #expect(try store.stats(threadID: thread.id) == stats)
        #expect(stats.summary == "6 messages · 600 tokens in · 75 out")
        #expect(stats.speed == "first byte 0.40 s · 10.0 tokens/s")
        #expect(try store.message(id: 2)?.promptEstimate == 90)
    }
}
