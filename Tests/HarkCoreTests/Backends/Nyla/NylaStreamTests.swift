import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// Stopping, replies that go on in the background, and streams that end badly.
@Suite struct NylaStreamTests {
    static func home(_ gateway: TestNylaGateway, instance: String = "ws1") -> TestHome {
        TestHome(config: "[session work]\nkind = nyla\nurl = \(gateway.url)\nlanguage = en\ninstance = \(instance)\n"
            + "[session notes]\nkind = local\n")
    }

    static func loggedIn(_ gateway: TestNylaGateway, instance: String = "ws1") async throws -> (Workspace, Transcript) {
        let workspace = try home(gateway, instance: instance).workspace()
        try workspace.switchSession(to: "work")
        workspace.interaction = ScriptedInteraction(["ann", "s3cret pass"])
        let transcript = Transcript(workspace)
        await transcript.type("/login")
        return (workspace, transcript)
    }

    /// A reply that streams a first part, then waits at the gate.
    static func paused(_ gate: Gate) -> TestNylaGateway.Script {
        { request in [.chunk("first part"), .wait(gate), .chunk(" and the rest"), .complete] }
    }

    @Test func stoppingAReplyStopsTheWorkflowOnTheGateway() async throws {
        let gate = Gate()
        defer { gate.open() }
        let gateway = try TestNylaGateway(script: Self.paused(gate))
        let (workspace, transcript) = try await Self.loggedIn(gateway)
        // What Ctrl-C does in the shell: stop the job.
        let output = await transcript.type("long task") { job in
            while job.text != "first part" { await Task.yield() }
            await transcript.press(.ctrlC)
        }
        #expect(output == "> long task\n· thread: Chat: long task\nfirst part\n(stopped; what arrived is kept)\n")
        let workflow = try #require(try workspace.currentThread()?.backendID)
        #expect(gateway.stops.map(\.workflow) == [workflow])
        #expect(gateway.stops.map(\.instance) == ["ws1"])
        let reply = try #require(try workspace.store.lastMessage(session: "work", role: .assistant))
        #expect(reply.status == .stopped)
        #expect(reply.text == "first part")
        let stop = try #require(gateway.http.requests.first { $0.path.contains("/stop/") })
        #expect(stop.method == "POST")
        #expect(stop.header("x-csrf-token")?.count == 16)
        #expect(stop.header("x-instance-id") == "ws1")
    }

    /// A reply in the thread Research that streams its first part, then goes on in the background.
    static func researchInTheBackground(_ gate: Gate) async throws -> (TestNylaGateway, Workspace, Transcript, String) {
        let gateway = try TestNylaGateway(script: Self.paused(gate))
        let (workspace, transcript) = try await Self.loggedIn(gateway)
        await transcript.type("/thread new Research")
        let workflow = try #require(try workspace.currentThread()?.backendID)
        await transcript.type("dig deep") { job in
            while job.text != "first part" { await Task.yield() }
            await transcript.press(.ctrlZ)
        }
        return (gateway, workspace, transcript, workflow)
    }

    @Test func slashStopStopsABackgroundReplyAndTheWorkflow() async throws {
        let gate = Gate()
        defer { gate.open() }
        let (gateway, workspace, transcript, workflow) = try await Self.researchInTheBackground(gate)
        await transcript.type("/stop")
        #expect(gateway.stops.map(\.workflow) == [workflow], "an existing thread's workflow is known from the start")
        await transcript.settle()
        // The reply ended in the background: its notice follows, as soon as the shell is back at the prompt.
        #expect(transcript.text.hasSuffix("> /stop\nstopped 1 reply; what arrived is kept\n↩ work stopped\n"))
        #expect(try workspace.store.lastMessage(session: "work", role: .assistant)?.status == .stopped)
    }

    /// Deleting a thread whose reply streams stops the reply (and the agent's workflow) first,
    /// as in every kind, then deletes it on the gateway and here.
    @Test func removingAThreadStopsItsReplyThenDeletesItOnTheGateway() async throws {
        let gate = Gate()
        defer { gate.open() }
        let (gateway, workspace, transcript, workflow) = try await Self.researchInTheBackground(gate)
        // (The stopped reply's notice may follow as the shell comes back to the prompt.)
        #expect(await transcript.type("/thread rm").hasPrefix("> /thread rm\ndeleted thread Research on the gateway and here\n"))
        #expect(gateway.stops.map(\.workflow) == [workflow])
        #expect(workspace.runningJobs.isEmpty)
        #expect(gateway.workflowIDs(instance: "ws1").isEmpty)
        #expect(try workspace.store.threads(session: "work").isEmpty)
    }

    @Test func aReplyKeepsStreamingWhenTheUserSwitchesAway() async throws {
        let gate = Gate()
        let gateway = try TestNylaGateway(script: Self.paused(gate))
        let (workspace, transcript) = try await Self.loggedIn(gateway)
        await transcript.type("write the report") { job in
            while job.text != "first part" { await Task.yield() }
            await transcript.press(.ctrlZ)
        }
        await transcript.type("/session notes")
        let thread = try #require(try workspace.store.currentThread(session: "work"))
        gate.open()
        await transcript.settle()
        #expect(transcript.text.hasSuffix("""
            ↪ work goes on in the background; you will hear when it is done
            > /session notes
            ↩ work · write the report: first part and the rest

            """))
        let messages = try workspace.store.messages(threadID: thread.id)
        #expect(messages.map(\.status) == [.complete, .complete])
        #expect(messages[1].text == "first part and the rest")
        #expect(try workspace.store.thread(id: thread.id)?.backendID == gateway.workflowIDs(instance: "ws1").first)
        #expect(gateway.workflow(gateway.workflowIDs(instance: "ws1")[0])?.messages.map(\.text)
                == ["write the report", "first part and the rest"])
        #expect(gateway.stops.isEmpty)
        #expect(try workspace.store.unreadCounts()["work"] == 1)
    }

    /// The reply is pulled through the shared pump: while its consumer holds an event, the
    /// gateway's later events are read no further than the HTTP channel's buffer and the
    /// sockets' allow (a producer of its own read 64 events ahead: 64 MB here); and a consumer
    /// that goes closes the connection, which the gateway sees.
    @Test func aConsumerThatHoldsHoldsTheGatewayBackAndOneThatGoesClosesTheConnection() async throws {
        let megabyte = String(repeating: "x", count: 1 << 20)
        let written = Locked(0)
        let flood = (0..<100).flatMap { _ -> [TestNylaGateway.Step] in [.chunk(megabyte), .probe { written.update { $0 += 1 } }] }
        let gateway = try TestNylaGateway { _ in [.chunk("first")] + flood + [.complete] }
        let (workspace, _) = try await Self.loggedIn(gateway)
        let thread = ChatThread(id: 1, session: "work", title: "flood", backendID: nil, createdAt: Date(), updatedAt: Date())
        let held = try await Self.holdAfterTheFirstText(try workspace.backend(for: "work").send(ChatRequest(text: "go", thread: thread)),
                                                        written: written)
        #expect(held < 64, "the gateway got \(held) MB out while the consumer held the first event")
        #expect(await gateway.clientLeft.opened(within: 60), "the gateway saw the connection close")
    }

    /// Takes events up to the first text, then takes no more until the gateway has stopped
    /// getting its writes out; returns how many megabytes it got out. The stream goes on return.
    static func holdAfterTheFirstText(_ reply: AsyncThrowingStream<ReplyEvent, Error>, written: Locked<Int>) async throws -> Int {
        var events = reply.makeAsyncIterator()
        while let event = try await events.next() {
            if case .text(let text) = event, text.hasPrefix("first") { break }
        }
        // Nothing announces that the client stopped reading: the gateway is held back once its
        // count stops moving.
        var seen = -1
        while written.read({ $0 }) != seen {
            seen = written.read { $0 }
            try await Task.sleep(for: .milliseconds(500))
        }
        return seen
    }

    @Test func anErrorEventFailsTheReplyAndKeepsWhatArrived() async throws {
        let gateway = try TestNylaGateway { _ in [.chunk("so far"), .error("the model is overloaded")] }
        let (workspace, transcript) = try await Self.loggedIn(gateway)
        let output = await transcript.type("try")
        #expect(output == "> try\n· thread: Chat: try\nso far\nhark: the gateway reported an error: the model is overloaded\n")
        let reply = try #require(try workspace.store.lastMessage(session: "work", role: .assistant))
        #expect(reply.status == .failed, "the gateway reported an error: not a reply cut short")
        #expect(reply.text == "so far")
        #expect(try workspace.currentThread()?.backendID != nil, "the thread's id arrived before the error")
    }

    @Test func aDroppedConnectionIsAPartialReply() async throws {
        let gateway = try TestNylaGateway { _ in [.chunk("half"), .close] }
        let (workspace, transcript) = try await Self.loggedIn(gateway)
        let output = await transcript.type("go")
        #expect(output.hasPrefix("> go\n· thread: Chat: go\nhalf\nhark: "))
        #expect(try workspace.store.lastMessage(session: "work", role: .assistant)?.status == .partial)
    }

    @Test func theGatewayStoppingAReplyEndsItWithANotice() async throws {
        let gateway = try TestNylaGateway { _ in [.chunk("interrupted"), .stopped] }
        let (workspace, transcript) = try await Self.loggedIn(gateway)
        let output = await transcript.type("go")
        #expect(output == "> go\n· thread: Chat: go\ninterrupted\n» the gateway stopped the reply\n")
        #expect(try workspace.store.lastMessage(session: "work", role: .assistant)?.text == "interrupted")
    }

    @Test func aValidationErrorOnTheStreamShowsTheField() async throws {
        let gateway = try TestNylaGateway()
        let (_, transcript) = try await Self.loggedIn(gateway)
        // A thread whose workflow the gateway does not know (deleted in the web app).
        await transcript.type("/thread new Gone")
        let workflow = try #require(gateway.workflowIDs(instance: "ws1").first)
        let http = HTTPClient()
        _ = try await http.fetch(HTTPRequest(method: "DELETE", url: gateway.url + "/api/workspace/ws1/workflows/" + workflow,
                                             headers: [("Authorization", "Bearer tok-ann-123"), ("X-CSRF-Token", "0123456789abcdef"),
                                                       ("X-Mandate-Id", "m1"), ("X-Instance-Id", "ws1")]))
        let output = await transcript.type("hello?")
        #expect(output == "> hello?\nhark: 127.0.0.1:\(gateway.http.port) answered HTTP 404: Workflow not found\n")
    }
}
