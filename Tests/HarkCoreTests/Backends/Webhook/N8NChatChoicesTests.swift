import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// A node's message with buttons (n8n's send-and-wait approval over the chat socket): one key
/// picks a button while the reply is watched, and the button is pressed as n8n's chat widget
/// presses it (MessageWithButtons.vue: a GET of its link, the signed resume URL); nobody to
/// ask leaves the workflow waiting, and the next line names a button; `blockUserInput` refuses
/// other text before it is recorded.
@Suite struct N8NChatChoicesTests {
    static let buttons = [TestN8NServer.Button("✓ Approve", approved: true), TestN8NServer.Button("✗ Decline", approved: false)]

    static func server(_ generation: TestN8NServer.ChatGeneration, block: Bool = true) throws -> TestN8NServer {
        try TestN8NServer(requiredHeader: ("X-N8N-Key", "k3y"), chatGeneration: generation) { _, body in
            .responseNodes(executionID: "20", resumeToken: nil, chat: [
                .heartbeat, .buttons("Deploy v2.4.1 to production?", buttons, blockUserInput: block), .awaitPress,
                .message("Deployed."), .close,
            ])
        }
    }

    @Test(arguments: N8NChatTests.generations)
    func oneKeyPressesTheButton(_ generation: TestN8NServer.ChatGeneration) async throws {
        let server = try Self.server(generation)
        let home = TestHome(config: N8NChatTests.config(server.webhookURL))
        let workspace = try N8NChatTests.workspace(server, home: home)
        let user = ScriptedInteraction(["a"])
        workspace.interaction = user
        let output = await Transcript(workspace).type("deploy")
        #expect(user.questions.map(\.prompt) == ["✓ [a]pprove / ✗ [d]ecline "])
        #expect(output == "> deploy\nDeploy v2.4.1 to production?\n\n» you chose ✓ Approve\nDeployed.\n")
        #expect(server.presses == [["approved": "true", "signature": "sig-20"]])
        let reply = try #require(try workspace.store.lastMessage(session: "helpdesk", role: .assistant))
        #expect(reply.text == "Deploy v2.4.1 to production?\n\nDeployed.")
        #expect(reply.notes == ["you chose ✓ Approve"])
        #expect(reply.status == .complete)
        N8NChatTests.expectNoFrameText([reply.text])
    }

    /// In a pipe (or with the reply in the background) nobody is asked: the workflow waits,
    /// and the next line must name a button; other text is refused and not recorded.
    @Test(arguments: N8NChatTests.generations)
    func withNobodyToAskTheNextLineNamesAButton(_ generation: TestN8NServer.ChatGeneration) async throws {
        let server = try Self.server(generation)
        let home = TestHome(config: N8NChatTests.config(server.webhookURL))
        let workspace = try N8NChatTests.workspace(server, home: home)
        let transcript = Transcript(workspace)
        let asked = await transcript.type("deploy")
        #expect(asked == """
            > deploy
            Deploy v2.4.1 to production?
            » the workflow waits for your choice: type ✓ Approve or ✗ Decline as your next message in this thread

            """)
        let thread = try #require(try workspace.currentThread())
        let before = try workspace.store.messages(threadID: thread.id)

        let refused = await transcript.type("can we wait until Monday?")
        #expect(refused == "> can we wait until Monday?\nhark: the workflow waits for a button and takes no other answer: type ✓ Approve or ✗ Decline\n")
        #expect(try workspace.store.messages(threadID: thread.id) == before, "a refused line is not recorded")
        #expect(server.presses.isEmpty)
        #expect(server.chatAnswers.isEmpty)

        let declined = await transcript.type("decline")
        #expect(declined == "> decline\n» you chose ✗ Decline\nDeployed.\n")
        #expect(server.presses == [["approved": "false", "signature": "sig-20"]])
        #expect(server.chatPeers.count == 1, "the choice went to the waiting execution, not a new one")
        let messages = try workspace.store.messages(threadID: thread.id)
        #expect(messages.map(\.text) == ["deploy", "Deploy v2.4.1 to production?", "decline", "Deployed."])
    }

    /// Without `blockUserInput` the input box stays open: words that name no button are the
    /// user's answer, sent on the socket as any answer is.
    @Test func withoutBlockingFreeTextIsAnAnswer() async throws {
        let server = try TestN8NServer(requiredHeader: ("X-N8N-Key", "k3y"), chatGeneration: .json) { _, _ in
            .responseNodes(executionID: "21", resumeToken: nil, chat: [
                .heartbeat, .buttons("Which size?", [TestN8NServer.Button("Small", approved: true)], blockUserInput: false),
                .awaitAnswer, .message("Noted."), .close,
            ])
        }
        let home = TestHome(config: N8NChatTests.config(server.webhookURL))
        let workspace = try N8NChatTests.workspace(server, home: home)
        let transcript = Transcript(workspace)
        let asked = await transcript.type("order")
        #expect(asked.contains("» the workflow waits for your choice: type Small as your next message in this thread (or answer in words)"))
        let answered = await transcript.type("a medium one")
        #expect(answered == "> a medium one\nNoted.\n")
        #expect(server.chatAnswers.map { $0["chatInput"] } == ["a medium one"])
        #expect(server.presses.isEmpty)
    }
}
