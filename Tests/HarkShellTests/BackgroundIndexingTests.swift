import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// A one-shot run does not wait for the full-text index: it exits once its reply is out and
/// stored, and `hark index`, started in the background, indexes what the reply left.
@Suite struct BackgroundIndexingTests {
    /// 40 pieces of about 10 KB: a reply of several segments, which a run leaves unindexed.
    static let pieces = (0..<40).map { piece in (0..<1000).map { "p\(piece)w\($0) " }.joined() }

    @Test func aOneShotLeavesItsLongReplyToABackgroundIndexer() async throws {
        let server = try TestOpenAIServer { _ in Self.pieces.map { TestOpenAIServer.Step.text($0) } + [.done] }
        let home = TestHome(config: "[session bot]\nkind = openai\nurl = \(server.baseURL)\n")
        // Captured: this returns when stdout and stderr close, so the indexer must not hold them.
        let run = try await offThePool {
            try Subprocess.run([BuiltProducts.hark, "-s", "bot", "--new-thread", "long one"], environment: home.environment,
                               streams: .captured(input: Data()))
        }
        #expect(run.status == 0)
        #expect(run.stdout.count >= Self.pieces.joined().utf8.count)
        // posix_spawn returns once the indexer runs its program, so when hark has ended the
        // indexer is either listed here or done already.
        for pid in Self.indexers(dataHome: home.directory.path + "/data") {
            #expect(ProcessExit.wait(for: pid, seconds: 60), "hark index \(pid) ended")
        }
        let database = try Database(path: home.paths.historyDatabase, readOnly: true)
        #expect(try database.scalar("""
            SELECT (SELECT count(*) FROM message_more WHERE unindexed IS NOT NULL)
                 + (SELECT count(*) FROM messages WHERE unindexed IS NOT NULL)
            """).int == 0, "nothing is left unindexed")
        // Straight from the index, not through `hark search` (which would index first).
        for word in ["p0w0", "p20w500", "p39w999"] {
            #expect(try database.scalar("""
                SELECT (SELECT count(*) FROM messages_fts WHERE messages_fts MATCH ?1)
                     + (SELECT count(*) FROM message_more_fts WHERE message_more_fts MATCH ?1)
                """, .text(word)).int == 1, "\(word) is in the index")
        }
    }

    /// `hark index` by hand: what a store left unindexed (its passes held back) is indexed, and
    /// a second run says there is nothing to do.
    @Test func harkIndexIndexesWhatWasLeftAndSaysSo() async throws {
        let home = TestHome(config: "[session ci]\nkind = openai\nurl = http://127.0.0.1:9/v1\n")
        do {
            let store = try HistoryStore(path: home.paths.historyDatabase)
            try store.ensureSession("ci", kind: "openai")
            let thread = try store.createThread(session: "ci", title: "long")
            store.indexer.deferPasses()
            let writer = try store.beginReply(threadID: thread.id, session: "ci")
            try writer.append(Self.pieces.joined())
            try writer.finish(status: .complete)
            #expect(try store.unindexedCount() > 2)
        }
        let first = try await offThePool {
            try Subprocess.run([BuiltProducts.hark, "index"], environment: home.environment, streams: .captured(input: Data()))
        }
        #expect(first.status == 0)
        #expect(String(decoding: first.stdout, as: UTF8.self).hasPrefix("indexed "))
        #expect(try HistoryStore(path: home.paths.historyDatabase).unindexedCount() == 0)
        let second = try await offThePool {
            try Subprocess.run([BuiltProducts.hark, "index"], environment: home.environment, streams: .captured(input: Data()))
        }
        #expect(String(decoding: second.stdout, as: UTF8.self) == "the search index is up to date\n")
    }

    /// `hark index` in the background gives way to a reply that streams into the history (the
    /// next one-shot run's): between its transactions it waits, in the kernel, for the reply's
    /// writer lock, and indexes the rest once the reply has ended.
    @Test func aBackgroundIndexerWaitsWhileAReplyStreams() async throws {
        let home = TestHome(config: "[session ci]\nkind = openai\nurl = http://127.0.0.1:9/v1\n")
        let store = try HistoryStore(path: home.paths.historyDatabase)
        try store.ensureSession("ci", kind: "openai")
        let thread = try store.createThread(session: "ci", title: "long")
        store.indexer.deferPasses()
        let before = try store.beginReply(threadID: thread.id, session: "ci")
        try before.append(Self.pieces.joined())
        try before.finish(status: .complete)
        let streaming = try store.beginReply(threadID: thread.id, session: "ci")
        try streaming.append("first words ")
        // Its output on a pipe, as a one-shot run starts it.
        let indexer = try RunningProcess([BuiltProducts.hark, "index"], environment: home.environment)
        let writers = home.paths.historyDatabase + "-writers"
        var info = stat()
        #expect(stat(writers, &info) == 0)
        // The kernel lists a process waiting for a lock in /proc/locks ("->"), and offers no
        // event for it: the list is read again each millisecond until hark index waits there
        // (or has ended, which it must not while the reply streams).
        var waiting = false
        for _ in 0..<60_000 where !waiting && ProcessExit.isRunning(indexer.pid) {
            waiting = ProcLocks.someoneWaits(inode: UInt64(info.st_ino))
            if !waiting { usleep(1000) }
        }
        #expect(waiting, "hark index did not wait for the streaming reply")
        try streaming.append(Self.pieces.joined())
        try streaming.finish(status: .complete)
        #expect(await indexer.wait() == 0, "\(indexer.stderrText)")
        #expect(try store.unindexedCount() == 0)
    }

    /// The `hark index` processes whose history is under `dataHome` (other tests run theirs).
    static func indexers(dataHome: String) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> pid_t? in
            guard let pid = pid_t(entry),
                  let command = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline"),
                  command.split(separator: 0).dropFirst().first.map({ String(decoding: $0, as: UTF8.self) }) == "index",
                  let environment = FileManager.default.contents(atPath: "/proc/\(entry)/environ")
            else { return nil }
            let wanted = Data("XDG_DATA_HOME=\(dataHome)".utf8)
            return environment.split(separator: 0).contains(where: { Data($0) == wanted }) ? pid : nil
        }
    }
}
