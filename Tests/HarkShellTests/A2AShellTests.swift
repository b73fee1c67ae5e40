import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// The a2a kind from scripts: the `hark` binary against the official SDK's server
/// (`Tests/Fixtures/a2a/agent.py`), its output, exit codes and signals.
@Suite struct A2AShellTests {
    func hark(_ arguments: [String], home: TestHome) async throws -> HarkRun { try await HarkRun.run(arguments, home.environment) }

    func home(_ agent: TestA2AAgent, _ sessions: [String: String]) -> TestHome {
        TestHome(config: sessions.keys.sorted().map { "[session \($0)]\nkind = a2a\nurl = \(sessions[$0]!)\n" }.joined(separator: "\n"))
    }

    @Test func jsonShowsStatusArtifactTextAndTheFinalState() async throws {
        let agent = try await TestA2AAgent.shared()
        let run = try await hark(["-s", "echo", "--json", "hello json"], home: home(agent, ["echo": agent.url("echo")]))
        #expect(run.status == 0)
        let events = try run.stdout.split(separator: "\n").map { try JSON.parse(String($0)) }
        // Chunks come as they arrive (one text object or more); the rest in order.
        let types = events.map { $0["type"]?.string ?? "" }
        #expect(types.filter { $0 != "text" } == ["thread", "status", "artifact", "status", "done"])
        #expect(events.filter { $0["type"]?.string == "text" }.compactMap { $0["text"]?.string }.joined() == "hello json")
        #expect(events[1]["text"]?.string == "working: echoing…")
        #expect(events[2]["name"]?.string == "echo")
        let done = try #require(events.last)
        #expect(done["status"]?.string == "complete")
        #expect(done["finish_reason"]?.string == "completed")
    }

    @Test func exitCodesSayUnreachableAuthAndProtocol() async throws {
        let agent = try await TestA2AAgent.shared()
        let refusing = try RefusingPort()
        let home = home(agent, ["down": refusing.baseURL, "secure": agent.url("secure"), "grpc": agent.url("grpc"),
                                "echo": agent.url("echo")])
        let down = try await hark(["-s", "down", "hi"], home: home)
        #expect(down.status == 4)
        #expect(down.stderr.hasPrefix("hark: cannot reach 127.0.0.1:"))
        let secure = try await hark(["-s", "secure", "hi"], home: home)
        #expect(secure.status == 5)
        #expect(secure.stderr == "hark: secure agent requires an HTTP Bearer token (scheme \"bearer\"); set auth = bearer:SECRET "
                + "for session secure (SECRET is env:VAR, file:PATH or cmd:COMMAND)\n")
        let grpc = try await hark(["-s", "grpc", "hi"], home: home)
        #expect(grpc.status == 6)
        #expect(grpc.stderr == "hark: grpc agent offers only GRPC; hark speaks A2A over JSON-RPC\n")
        let failed = try await hark(["-s", "echo", "fail"], home: home)
        #expect(failed.status == 6)
        #expect(failed.stderr == "hark: the agent's task failed: the flight API is down\n")
        let rejected = try await hark(["-s", "echo", "reject"], home: home)
        #expect(rejected.status == 6)
        #expect(rejected.stdout == "I only book flights")
    }

    @Test func aQuestionIsAnsweredByTheNextRunAndFilesByALaterOne() async throws {
        let agent = try await TestA2AAgent.shared()
        let home = home(agent, ["echo": agent.url("echo")])
        #expect(try await hark(["-s", "echo", "ask"], home: home).stdout == "Which city?")
        // Another process: the waiting task is remembered with the thread's context.
        let answer = try await hark(["-s", "echo", "Porto"], home: home)
        #expect(answer.stdout == "Booked a flight to Porto.", "\(answer.stderr)")
        let files = try await hark(["-s", "echo", "files"], home: home)
        #expect(files.stderr == "hark: file 1: report.csv (25 B, text/csv); /download 1 saves it\n")
        // This process never saw the bytes: they are fetched again from the task.
        let target = home.directory.path + "/report.csv"
        let saved = try await hark(["-s", "echo", "/download 1 \(target)"], home: home)
        #expect(saved.status == 0, "\(saved.stderr)")
        #expect(FileManager.default.contents(atPath: target) == Data("flight,price\nZRH-LIS,120\n".utf8))
    }

    @Test func sigintCancelsTheTaskAndKeepsThePartialReply() async throws {
        let agent = try await TestA2AAgent.shared()
        let home = home(agent, ["echo": agent.url("echo")])
        let process = try ChildProcess([BuiltProducts.hark, "-s", "echo", "--json", "slow"], environment: home.environment)
        try await process.waitFor(stdout: "started ")
        process.signal(SIGINT)
        #expect(try await process.waitForExit() == 130)
        let done = try JSON.parse(String(process.stdout.split(separator: "\n").last ?? ""))
        #expect(done["status"]?.string == "stopped")
        let store = try #require(HistoryStore.openForReading(path: home.paths.historyDatabase))
        let reply = try #require(try store.lastMessage(session: "echo", role: .assistant))
        #expect(reply.status == .stopped)
        #expect(reply.text == "started ")
        #expect(try await agent.taskState("echo", id: reply.backendID ?? "") == "TASK_STATE_CANCELED")
    }
}
