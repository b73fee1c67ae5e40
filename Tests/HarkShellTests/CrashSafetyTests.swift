import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// The history survives `kill -9`: hark is killed at random moments of 100 streamed replies.
/// Afterwards the database is intact, every message the server received is in it, and every
/// stored reply is a prefix of what the server sent and holds at least what hark had printed.
@Suite struct CrashSafetyTests {
    static let words = (0..<300).map { "w\($0) " }
    static let fullReply = words.joined()

    final class Holds: @unchecked Sendable {
        private let lock = NSLock()
        private var gates: [String: (gate: Gate, sendFirst: Int)] = [:]
        func set(_ question: String, gate: Gate, sendFirst: Int) { lock.withLock { gates[question] = (gate, sendFirst) } }
        func get(_ question: String) -> (gate: Gate, sendFirst: Int)? { lock.withLock { gates[question] } }
    }

    @Test func killedAtRandomMomentsTheHistoryKeepsWhatArrived() async throws {
        let holds = Holds()
        // Each reply sends its first K words, then holds the stream until the test has killed hark.
        let server = try TestOpenAIServer { body in
            let question = body["messages"]?.array?.last?["content"]?.string ?? ""
            guard let hold = holds.get(question) else { return [.text("?"), .done] }
            let first = Self.words.prefix(hold.sendFirst).map { TestOpenAIServer.Step.text($0) }
            let rest = Self.words.dropFirst(hold.sendFirst).map { TestOpenAIServer.Step.text($0) }
            return first + [.wait(hold.gate)] + rest + [.done]
        }
        let home = TestHome(config: "[session bot]\nkind = openai\nurl = \(server.baseURL)\n")
        var generator = SplitMix(seed: 20261122)
        var printed: [String: String] = [:]
        for round in 0..<100 {
            let question = "question \(round)"
            let gate = Gate()
            let sendFirst = Int(generator.next() % UInt64(Self.words.count))
            holds.set(question, gate: gate, sendFirst: sendFirst)
            let sentBytes = Self.words.prefix(sendFirst).joined().utf8.count
            // Kill after a random part of what will have been printed (0: as soon as it starts).
            let killAfter = sentBytes == 0 ? 0 : Int(generator.next() % UInt64(sentBytes + 1))
            let process = try RunningProcess([BuiltProducts.hark, "-s", "bot", "--new-thread", question],
                                             environment: home.environment)
            // Reading and waiting block: off the concurrency pool, which other tests need.
            let status = try await offThePool {
                _ = process.readStdout(atLeast: killAfter)
                process.kill(SIGKILL)
                return process.wait()
            }
            #expect(status == 128 + SIGKILL)
            gate.open()
            printed[question] = process.stdoutText
        }

        let store = try HistoryStore(path: home.paths.historyDatabase)  // folds what the killed ones left
        #expect(try store.database.scalar("PRAGMA integrity_check").string == "ok")
        let asked = Set(server.bodies.compactMap { $0["messages"]?.array?.last?["content"]?.string })
        var replies = 0
        for thread in try store.threads(session: "bot") {
            let messages = try store.messages(threadID: thread.id)
            guard let user = messages.first(where: { $0.role == .user }) else { continue }
            let shown = printed[user.text] ?? ""
            for reply in messages where reply.role == .assistant {
                replies += 1
                #expect(Self.fullReply.hasPrefix(reply.text), "\(user.text): stored text is not what the server sent")
                #expect(reply.text.hasPrefix(shown), "\(user.text): stored less than hark had printed")
                #expect(reply.status == .partial || reply.status == .complete)
            }
        }
        let stored = Set(try store.recentMessages(session: "bot", limit: 1000).filter { $0.role == .user }.map(\.text))
        #expect(asked.isSubset(of: stored), "every message the server received is in the history")
        #expect(replies > 50, "most rounds were killed mid-reply (\(replies) replies)")
        #expect(try store.database.scalar("SELECT count(*) FROM messages WHERE writer_pid IS NOT NULL").int == 0)
    }

    /// Killed in the middle of a long reply, before its segments were all indexed: the next
    /// start (here a search) indexes what was left, and search finds the reply.
    @Test func aReplyKilledMidStreamIsFoundByTheNextSearch() async throws {
        let gate = Gate()
        // 40 pieces of about 10 KB: several segments are written before the stream stops.
        let pieces = (0..<40).map { piece in (0..<1000).map { "p\(piece)w\($0) " }.joined() }
        let server = try TestOpenAIServer { _ in pieces.map { TestOpenAIServer.Step.text($0) } + [.wait(gate), .done] }
        let home = TestHome(config: "[session bot]\nkind = openai\nurl = \(server.baseURL)\n")
        let process = try RunningProcess([BuiltProducts.hark, "-s", "bot", "--new-thread", "long one"],
                                         environment: home.environment)
        let all = pieces.joined().utf8.count
        let status = try await offThePool {
            _ = process.readStdout(atLeast: all)
            process.kill(SIGKILL)
            return process.wait()
        }
        gate.open()
        #expect(status == 128 + SIGKILL)
        let search = try await offThePool {
            try Subprocess.run([BuiltProducts.hark, "search", "--json", "p39w999"], environment: home.environment,
                               streams: .captured(input: Data()))
        }
        let hit = try JSON.parse(String(decoding: search.stdout, as: UTF8.self).trimmingCharacters(in: .newlines))
        #expect(hit["snippet"]?.string?.contains("p39w999") == true)
        #expect(hit["length"]?.int == all)
        #expect(hit["status"]?.string == "partial")
        let store = try HistoryStore(path: home.paths.historyDatabase)
        #expect(try store.database.scalar("""
            SELECT (SELECT count(*) FROM message_more WHERE unindexed IS NOT NULL)
                 + (SELECT count(*) FROM messages WHERE unindexed IS NOT NULL)
            """).int == 0, "nothing is left unindexed")
        #expect(try store.search("p0w0").count == 1, "the first segment is in the index too")
    }

    @Test func fourProcessesSendingAtOnceStoreExactlyEveryMessage() async throws {
        let server = try TestOpenAIServer(script: TestOpenAIServer.streaming(["fine"]))
        let home = TestHome(config: "[session bot]\nkind = openai\nurl = \(server.baseURL)\n")
        let environment = home.environment
        try await withThrowingTaskGroup(of: [String].self) { group in
            for worker in 0..<4 {
                group.addTask {
                    var problems: [String] = []
                    for index in 0..<100 {
                        let result = try await offThePool {
                            try Subprocess.run([BuiltProducts.hark, "-s", "bot", "w\(worker) m\(index)"],
                                               environment: environment, streams: .captured(input: Data()))
                        }
                        let stderr = String(decoding: result.stderr, as: UTF8.self)
                        if result.status != 0 || !stderr.isEmpty { problems.append("w\(worker) m\(index): \(result.status) \(stderr)") }
                    }
                    return problems
                }
            }
            for try await problems in group { #expect(problems.isEmpty, "\(problems.prefix(3))") }
        }
        let store = try HistoryStore(path: home.paths.historyDatabase)
        #expect(try store.messageCount() == 800)
        #expect(try store.database.scalar("SELECT count(*) FROM messages WHERE role = 'assistant' AND status = 'complete'").int == 400)
        #expect(try store.database.scalar("PRAGMA integrity_check").string == "ok")
    }
}
