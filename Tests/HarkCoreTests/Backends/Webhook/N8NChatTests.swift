import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// A Chat Trigger in "Using Response Nodes" mode: the webhook says the execution started and
/// the workflow talks over its chat WebSocket (TestN8NServer.ChatStep copies chat-service.ts),
/// in both generations n8n has framed it with (TestN8NServer.ChatGeneration).
@Suite struct N8NChatTests {
    static let generations: [TestN8NServer.ChatGeneration] = [.plain, .json]

    static func config(_ url: String, extra: String = "") -> String {
        "[session helpdesk]\nkind = webhook\nurl = \(url)\nauth = header:X-N8N-Key:env:HARK_TEST_N8N_CHAT_KEY\nfirst_byte_timeout = 60\n\(extra)\n"
    }

    static func workspace(_ server: TestN8NServer, home: TestHome, grace: Double = 0.3) throws -> Workspace {
        setenv("HARK_TEST_N8N_CHAT_KEY", "k3y", 1)
        let workspace = try home.workspace()
        try workspace.switchSession(to: "helpdesk")
        try #require(try workspace.backend(for: "helpdesk") as? WebhookBackend).chats.grace = grace
        return workspace
    }

    /// The whole exchange: the heartbeat answered, a question sent in fragments with a ping
    /// between them, the user's answer sent back on the socket, then two messages and the end.
    @Test(arguments: generations)
    func aWorkflowThatAsksTheUserIsAnsweredOnItsSocket(_ generation: TestN8NServer.ChatGeneration) async throws {
        let server = try TestN8NServer(requiredHeader: ("X-N8N-Key", "k3y"), chatGeneration: generation) { _, _ in
            .responseNodes(executionID: "7", resumeToken: "signed.jwt", chat: [
                .heartbeat, .message("For how many people?", fragments: 3), .awaitAnswer,
                .messageThenContinue("A table for 4 is booked."), .message("See you at 8."), .close,
            ])
        }
        let home = TestHome(config: Self.config(server.webhookURL))
        let workspace = try Self.workspace(server, home: home)
        let transcript = Transcript(workspace)
        await transcript.type("book a table")
        await transcript.type("4")
        #expect(transcript.text == """
            > book a table
            For how many people?
            » the workflow waits for your answer: your next message in this thread goes to it
            > 4
            A table for 4 is booked.

            See you at 8.

            """)
        let thread = try #require(try workspace.currentThread())
        let sessionID = try #require(thread.backendID)

        // On the wire: one socket on the webhook's host, with n8n's query.
        #expect(server.http.requests.filter { $0.path == "/webhook/4f1c/chat" }.count == 1, "the answer did not go by POST")
        let peer = try #require(server.chatPeers.first)
        #expect(server.chatPeers.count == 1)
        #expect(peer.request.query == ["sessionId": sessionID, "executionId": "7", "isPublic": "true", "token": "signed.jwt"])
        #expect(peer.request.header("x-n8n-key") == "k3y")
        let frames = try #require(peer.finalFrames(), "the server's script did not end")
        #expect(frames.allSatisfy { $0.masked && $0.fin })
        #expect(frames.map(\.opcode) == [0x1, 0xA, 0xA, 0x1, 0x8])
        #expect(frames[0].text == generation.heartbeatAck)
        #expect(frames[1].text == "ping 1" && frames[2].text == "ping 2", "each ping is answered with its payload")
        let answer = try JSON.parse(frames[3].payload)
        #expect(answer == ["sessionId": .string(sessionID), "action": "sendMessage", "chatInput": "4"])
        #expect(frames[4].payload.isEmpty, "a close frame without a code is answered without one")

        // In the history: two replies, complete, the first with the note that it waited.
        let messages = try workspace.store.messages(threadID: thread.id)
        #expect(messages.map(\.text) == ["book a table", "For how many people?", "4", "A table for 4 is booked.\n\nSee you at 8."])
        #expect(messages.map(\.status) == [.complete, .complete, .complete, .complete])
        #expect(messages[1].notes == ["the workflow waits for your answer: your next message in this thread goes to it"])
        #expect(messages[1].backendID == "7")
    }

    /// n8n drops the socket without a close frame when the execution fails or is cancelled.
    @Test(arguments: generations)
    func anExecutionThatFailsIsAnError(_ generation: TestN8NServer.ChatGeneration) async throws {
        let server = try TestN8NServer(requiredHeader: ("X-N8N-Key", "k3y"), chatGeneration: generation) { _, _ in
            .responseNodes(executionID: "8", resumeToken: nil, chat: [.heartbeat, .messageThenContinue("Working on it…"), .terminate])
        }
        let home = TestHome(config: Self.config(server.webhookURL))
        let workspace = try Self.workspace(server, home: home)
        let output = await Transcript(workspace).type("go")
        #expect(output == "> go\nWorking on it…\nhark: n8n: the workflow stopped before it finished (it failed or was cancelled)\n")
        let reply = try #require(try workspace.store.lastMessage(session: "helpdesk", role: .assistant))
        #expect(reply.status == .failed)
        #expect(reply.text == "Working on it…")
        #expect(server.chatPeers.first?.request.query["token"] == nil)
    }

    /// chat-service.ts: an execution the socket cannot find is named in a text (plain) or an
    /// error frame (json), then 1008.
    @Test(arguments: generations)
    func anUnknownExecutionIsAnError(_ generation: TestN8NServer.ChatGeneration) async throws {
        let server = try TestN8NServer(requiredHeader: ("X-N8N-Key", "k3y"), chatGeneration: generation) { _, _ in
            .responseNodes(executionID: "9", resumeToken: nil, chat: nil)
        }
        let home = TestHome(config: Self.config(server.webhookURL))
        let workspace = try Self.workspace(server, home: home)
        let output = await Transcript(workspace).type("go")
        let said = generation == .plain ? "Execution with id \"9\" does not exist" : "Connection rejected"
        #expect(output == "> go\nhark: n8n: \(said)\n")
        let reply = try #require(try workspace.store.lastMessage(session: "helpdesk", role: .assistant))
        #expect(reply.status == .failed)
        #expect(reply.text.isEmpty)
    }

    /// Without a grace to wait in, a workflow that ends right after its message is still
    /// whole: the socket's close ends the reply.
    @Test(arguments: generations)
    func aWorkflowThatEndsAfterItsMessageEndsTheReply(_ generation: TestN8NServer.ChatGeneration) async throws {
        let server = try TestN8NServer(requiredHeader: ("X-N8N-Key", "k3y"), chatGeneration: generation) { _, _ in
            .responseNodes(executionID: "10", resumeToken: nil, chat: [.heartbeat, .message("Done."), .close])
        }
        let home = TestHome(config: Self.config(server.webhookURL))
        let workspace = try Self.workspace(server, home: home, grace: 30)
        let output = await Transcript(workspace).type("go")
        #expect(output == "> go\nDone.\n")
        let backend = try #require(try workspace.backend(for: "helpdesk") as? WebhookBackend)
        #expect(backend.chats.waitingExecutions.isEmpty)
    }

    /// n8n cancels a waiting execution whose socket leaves a heartbeat unanswered for 60 s:
    /// hark answers each, in the socket's generation, while the workflow waits for the user
    /// between replies, and the answer still reaches the same execution afterwards.
    @Test(arguments: generations)
    func heartbeatsAreAnsweredWhileTheWorkflowWaits(_ generation: TestN8NServer.ChatGeneration) async throws {
        let server = try TestN8NServer(requiredHeader: ("X-N8N-Key", "k3y"), chatGeneration: generation) { _, _ in
            .responseNodes(executionID: "11", resumeToken: nil, chat: [
                .heartbeat, .message("Which day?"), .heartbeats(3), .awaitAnswer, .message("Booked for Friday."), .close,
            ])
        }
        let home = TestHome(config: Self.config(server.webhookURL))
        let workspace = try Self.workspace(server, home: home)
        let transcript = Transcript(workspace)
        await transcript.type("book")
        #expect(await server.waitForHeartbeats(4), "the heartbeats of three more intervals were not all answered")
        await transcript.type("Friday")
        #expect(server.chatAnswers.map { $0["chatInput"] } == ["Friday"])
        #expect(server.chatPeers.count == 1, "the answer went to the same socket")
        let frames = try #require(server.chatPeers.first?.finalFrames())
        #expect(frames.filter { $0.text == generation.heartbeatAck }.count == 4)
        Self.expectNoFrameText(try workspace.store.messages(threadID: try #require(try workspace.currentThread()).id).map(\.text))
    }

    /// A frame of a type hark does not know is left out of the reply (and of the history).
    @Test func anUnknownFrameIsIgnored() async throws {
        let server = try TestN8NServer(requiredHeader: ("X-N8N-Key", "k3y"), chatGeneration: .json) { _, _ in
            .responseNodes(executionID: "12", resumeToken: nil, chat: [
                .heartbeat, .unknownFrame(#"{"type":"typing","node":"AI Agent"}"#),
                .messageThenContinue("Looking…"), .unknownFrame(#"{"type":"progress","percent":50}"#), .message("Found it."), .close,
            ])
        }
        let home = TestHome(config: Self.config(server.webhookURL))
        let workspace = try Self.workspace(server, home: home)
        let output = await Transcript(workspace).type("find it")
        #expect(output == "> find it\nLooking…\n\nFound it.\n")
        let reply = try #require(try workspace.store.lastMessage(session: "helpdesk", role: .assistant))
        #expect(reply.text == "Looking…\n\nFound it.")
        #expect(reply.status == .complete)
    }

    /// No control frame of either generation is ever a reply's text.
    static func expectNoFrameText(_ texts: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        for text in texts {
            #expect(!text.contains("n8n|") && !text.contains(#""type":"#), "frame text in \(text)", sourceLocation: sourceLocation)
        }
    }
}
