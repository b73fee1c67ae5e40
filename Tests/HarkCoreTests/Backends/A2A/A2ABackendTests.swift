import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// The a2a kind against the official SDK's server (`Tests/Fixtures/a2a/agent.py`, a2a-sdk
/// 1.3.0): the SDK does the protocol, the fixture's executors decide what to say.
@Suite struct A2ABackendTests {
    static func home(_ agent: TestA2AAgent, _ name: String, extra: String = "") -> TestHome {
        TestHome(config: "[hark]\ndefault = \(name)\n\n[session \(name)]\nkind = a2a\nurl = \(agent.url(name))\n\(extra)\n")
    }

    static func texts(_ workspace: Workspace, session: String) throws -> [String] {
        try workspace.store.recentMessages(session: session, limit: 50).filter { $0.role == .assistant }.map(\.text)
    }

    @Test func aStreamedReplyShowsStatusChunksAndTheEndAndKeepsItsContextPerThread() async throws {
        let agent = try await TestA2AAgent.shared()
        let workspace = try Self.home(agent, "echo").workspace()
        let transcript = Transcript(workspace)
        let output = await transcript.type("hello there friend")
        #expect(output == "> hello there friend\n· working: echoing…\nhello there friend\n· completed\n")
        let thread = try #require(try workspace.currentThread())
        let context = try #require(thread.backendID)
        let reply = try #require(try workspace.store.lastMessage(session: "echo", role: .assistant))
        #expect(reply.status == .complete)
        #expect(try await agent.call("echo", method: "GetTask", params: ["id": .string(reply.backendID ?? "")])["result"]?["contextId"]?.string
                == context)
        // The agent's memory is per context: this thread's, then a new thread's.
        #expect(await transcript.type("memory").contains("2 messages in this context"))
        _ = await transcript.type("/thread new")
        #expect(await transcript.type("memory").contains("1 messages in this context"))
        #expect(try workspace.currentThread()?.backendID != context)
    }

    @Test func aContextStartedElsewhereIsAdoptedAsAThread() async throws {
        let agent = try await TestA2AAgent.shared()
        let started = try await agent.call("echo", method: "SendMessage", params: [
            "message": ["messageId": "elsewhere-1", "role": "ROLE_USER", "parts": [["text": "memory"]]]])
        let context = try #require(started["result"]?["task"]?["contextId"]?.string)
        let transcript = Transcript(try Self.home(agent, "echo").workspace())
        #expect(await transcript.type("/thread \(context)").contains("adopted server session \(context)"))
        #expect(await transcript.type("memory").contains("2 messages in this context"))
    }

    @Test func anotherSessionSendsWithAtNameAndForwardsItsReply() async throws {
        let agent = try await TestA2AAgent.shared()
        let home = TestHome(config: "[hark]\ndefault = echo\n\n[session echo]\nkind = a2a\nurl = \(agent.url("echo"))\n\n"
                            + "[session legacy]\nkind = a2a\nurl = \(agent.url("legacy"))\n")
        let transcript = Transcript(try home.workspace())
        #expect(await transcript.type("@legacy hi from echo") == "> @legacy hi from echo\nlegacy ›\n· working: echoing…\nhi from echo\n· completed\n")
        _ = await transcript.type("pass this on")
        #expect(await transcript.type("/forward legacy") == "> /forward legacy\nlegacy ›\n· working: echoing…\npass this on\n· completed\n")
    }

    @Test func inputRequiredIsAnsweredInTheSameTask() async throws {
        let agent = try await TestA2AAgent.shared()
        let workspace = try Self.home(agent, "echo").workspace()
        let transcript = Transcript(workspace)
        let question = await transcript.type("ask about flights")
        #expect(question.hasSuffix("Which city?\n· input-required: your next message answers the agent\n"))
        let asked = try #require(try workspace.store.lastMessage(session: "echo", role: .assistant))
        let answer = await transcript.type("Lisbon")
        #expect(answer.contains("Booked a flight to Lisbon."))
        let booked = try #require(try workspace.store.lastMessage(session: "echo", role: .assistant))
        #expect(booked.backendID == asked.backendID)
        #expect(try await agent.taskState("echo", id: booked.backendID ?? "") == "TASK_STATE_COMPLETED")
        // Answered: the next message starts a task of its own.
        _ = await transcript.type("again")
        #expect(try workspace.store.lastMessage(session: "echo", role: .assistant)?.backendID != booked.backendID)
    }

    @Test func failedRejectedAndAuthRequiredTasksSayHowTheyEnded() async throws {
        let agent = try await TestA2AAgent.shared()
        let workspace = try Self.home(agent, "echo").workspace()
        let transcript = Transcript(workspace)
        #expect(await transcript.type("fail") == "> fail\n· working: echoing…\nhark: the agent's task failed: the flight API is down\n")
        let failed = try #require(try workspace.store.lastMessage(session: "echo", role: .assistant))
        #expect(failed.status == .failed)
        #expect(failed.error == "the agent's task failed: the flight API is down")
        #expect(await transcript.type("reject").hasSuffix("I only book flights\n· rejected\n"))
        #expect(A2ABackend.failingFinishReasons.contains("rejected"))
        #expect(await transcript.type("message") == "> message\njust a message\n· completed\n")
        #expect(await transcript.type("auth").hasSuffix(
            "sign in at http://127.0.0.1/login first\n· auth-required: authenticate as the agent says, then reply to go on\n"))
    }

    @Test func filesAreListedAndSavedAndDataIsCompactJSON() async throws {
        let agent = try await TestA2AAgent.shared()
        let home = Self.home(agent, "echo")
        let workspace = try home.workspace()
        let transcript = Transcript(workspace)
        let output = await transcript.type("files")
        #expect(output.contains("Here is the report.\n{\"cheapest\":\"ZRH-LIS\",\"flights\":1}\n"))
        let notice = try #require(output.split(separator: "\n").first { $0.contains("report.csv") })
        let number = try #require(notice.split(separator: " ").dropFirst(2).first.flatMap { Int($0.dropLast()) })
        #expect(notice == "» file \(number): report.csv (25 B, text/csv); /download \(number) saves it")
        #expect(await transcript.type("/files").contains("\(number)  report.csv  25 B  text/csv"))
        let target = home.directory.path + "/saved.csv"
        #expect(await transcript.type("/download \(number) \(target)").contains("saved report.csv (25 B) to \(target)"))
        #expect(FileManager.default.contents(atPath: target) == Data("flight,price\nZRH-LIS,120\n".utf8))
    }

    @Test func attachedFilesGoAsFileParts() async throws {
        let agent = try await TestA2AAgent.shared()
        let home = Self.home(agent, "echo")
        let path = home.directory.write("notes.txt", "twelve bytes")
        let transcript = Transcript(try home.workspace())
        _ = await transcript.type("/attach \(path)")
        #expect(await transcript.type("here you go").contains("received notes.txt (12 bytes)"))
    }

    @Test func stoppingCancelsTheTaskAndKeepsWhatArrived() async throws {
        let agent = try await TestA2AAgent.shared()
        let workspace = try Self.home(agent, "echo").workspace()
        let output = await Transcript(workspace).type("slow") { job in
            while job.text != "started " { await Task.yield() }
            job.stop()
        }
        #expect(output.hasSuffix("started\n(stopped; what arrived is kept)\n"))
        let reply = try #require(try workspace.store.lastMessage(session: "echo", role: .assistant))
        #expect(reply.status == .stopped)
        #expect(try await agent.taskState("echo", id: reply.backendID ?? "") == "TASK_STATE_CANCELED")
    }

    @Test func aDroppedStreamIsResumedBySubscribingToTheTask() async throws {
        let agent = try await TestA2AAgent.shared()
        let workspace = try Self.home(agent, "echo").workspace()
        let output = await Transcript(workspace).type("drop")
        #expect(output.contains("before the drop,\n"))
        #expect(output.contains("; resubscribing to the task\nafter it\n· completed\n"))
        let reply = try #require(try workspace.store.lastMessage(session: "echo", role: .assistant))
        #expect(reply.status == .complete)
        #expect(reply.text == "before the drop, after it")
    }

    @Test func aStreamThatBreaksAgainAfterResubscribingIsAnErrorWithThePartialKept() async throws {
        let agent = try await TestA2AAgent.shared()
        let workspace = try Self.home(agent, "echo").workspace()
        let output = await Transcript(workspace).type("dropboth")
        #expect(output.hasSuffix("hark: cannot reach 127.0.0.1:\(agent.port): the stream broke again after resubscribing; "
                                 + "what arrived is kept\n"))
        let reply = try #require(try workspace.store.lastMessage(session: "echo", role: .assistant))
        #expect(reply.status == .partial)
        #expect(reply.text == "before the drop, ")
    }

    @Test func aNonStreamingAgentIsSentThenPolledWithBackoff() async throws {
        let agent = try await TestA2AAgent.shared()
        let clock = TestClock()
        let workspace = try Self.home(agent, "plain").workspace(clock: clock.clock)
        let output = await Transcript(workspace).type("question")
        #expect(output.contains("· working: step 1\n· working: step 2\n"))
        #expect(output.hasSuffix("plain answer to question\n· completed\n"))
        let sleeps = clock.sleeps
        #expect(sleeps.first == 0.5)
        #expect(sleeps.count >= 3)
        #expect(sleeps.dropFirst().first == 0.75)
        #expect(zip(sleeps, sleeps.dropFirst()).allSatisfy { $0 <= $1 && $1 <= 5 })
    }

    @Test func aBearerProtectedAgentSaysWhichSchemeItWants() async throws {
        let agent = try await TestA2AAgent.shared()
        let bare = Transcript(try Self.home(agent, "secure").workspace())
        #expect(await bare.type("hi") == "> hi\nhark: secure agent requires an HTTP Bearer token (scheme \"bearer\"); "
                + "set auth = bearer:SECRET for session secure (SECRET is env:VAR, file:PATH or cmd:COMMAND)\n")
        let directory = TemporaryDirectory()
        let wrong = directory.write("wrong", "nope\n")
        let refused = Transcript(try Self.home(agent, "secure", extra: "auth = bearer:file:\(wrong)").workspace())
        #expect(await refused.type("hi").contains("refused the credentials (HTTP 401)"))
        let right = directory.write("token", TestA2AAgent.bearerToken + "\n")
        let admitted = Transcript(try Self.home(agent, "secure", extra: "auth = bearer:file:\(right)").workspace())
        #expect(await admitted.type("hi there").contains("\nhi there\n"))
    }

    @Test func anAPIKeyGoesWhereTheCardSays() async throws {
        let agent = try await TestA2AAgent.shared()
        let directory = TemporaryDirectory()
        let key = directory.write("key", TestA2AAgent.apiKey + "\n")
        let missing = Transcript(try Self.home(agent, "keyed").workspace())
        #expect(await missing.type("hi").contains("hark: keyed agent requires an API key in the header X-API-Key (scheme \"apikey\")"))
        for name in ["keyed", "querykey"] {
            let transcript = Transcript(try Self.home(agent, name, extra: "api_key = file:\(key)").workspace())
            #expect(await transcript.type("hi \(name)").contains("\nhi \(name)\n"), "\(name)")
        }
    }

    @Test func aLegacyCardAtTheOlderPathIsSpokenToIn0_3() async throws {
        let agent = try await TestA2AAgent.shared()
        let transcript = Transcript(try Self.home(agent, "legacy").workspace())
        #expect(await transcript.type("hello legacy") == "> hello legacy\n· working: echoing…\nhello legacy\n· completed\n")
        let card = await transcript.type("/agent")
        #expect(card.contains("endpoint      \(agent.url("legacy"))/ · JSON-RPC · A2A 0.3"))
    }

    @Test func theCardIsShownByAgentAndInfo() async throws {
        let agent = try await TestA2AAgent.shared()
        let transcript = Transcript(try Self.home(agent, "secure").workspace())
        let card = await transcript.type("/agent")
        #expect(card.contains("secure agent 1.0.0\nThe secure test agent of hark\n"))
        #expect(card.contains("endpoint      \(agent.url("secure"))/ · JSON-RPC · A2A 1.0\n"))
        #expect(card.contains("capabilities  streaming yes · push notifications no · extended card no\n"))
        #expect(card.contains("auth          an HTTP Bearer token (scheme \"bearer\"); the session sets none\n"))
        #expect(card.contains("  Echo (echo) — says back what it hears\n    e.g. hello there\n"))
        let info = await transcript.type("/info")
        #expect(info.contains("agent      secure agent 1.0.0\n"))
        #expect(info.contains("streaming  yes\n"))
    }

    /// A gateway in front of the agent fails with HTTP 500 and a body that is not JSON-RPC:
    /// its first line is shown with the status, for text and for JSON of its own shape.
    @Test func aGatewaysErrorBodyIsShownWithItsStatus() async throws {
        let agent = try await TestA2AAgent.shared()
        let workspace = try Self.home(agent, "gateway").workspace()
        let transcript = Transcript(workspace)
        let host = agent.url("gateway").split(separator: "/")[1]
        #expect(await transcript.type("hello") == "> hello\nhark: \(host) answered HTTP 500: agent pool exhausted: 0 of 4 workers free\n")
        #expect(await transcript.type("json please")
                == "> json please\nhark: \(host) answered HTTP 500: {\"code\":\"UPSTREAM_OVERLOADED\",\"retry_in\":30}\n")
        let failed = try #require(try workspace.store.lastMessage(session: "gateway", role: .assistant))
        #expect(failed.error == "\(host) answered HTTP 500: {\"code\":\"UPSTREAM_OVERLOADED\",\"retry_in\":30}")
    }

    @Test func anAgentWithOnlyATransportHarkLacksSaysSoInOneLine() async throws {
        let agent = try await TestA2AAgent.shared()
        let transcript = Transcript(try Self.home(agent, "grpc").workspace())
        #expect(await transcript.type("hi") == "> hi\nhark: grpc agent offers only GRPC; hark speaks A2A over JSON-RPC\n")
        #expect(await transcript.type("/agent").contains("endpoint      grpc agent offers only GRPC; hark speaks A2A over JSON-RPC\n"))
    }
}
