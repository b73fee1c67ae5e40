import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// What the user did not type line by line is shown as it was sent: a command's output
/// (`!cmd`), a message rewritten in $EDITOR (`/edit last`). Through the shipped Shell and the
/// fake terminal, against a model server that says what it got.
@Suite struct SentShownTests {
    func transcript() throws -> (Transcript, TestOpenAIServer) {
        let server = try TestOpenAIServer { body in
            [.text("got " + (body["messages"]?.array?.last?["content"]?.string ?? "")), .done]
        }
        let home = TestHome(config: "[session llama]\nkind = openai\nurl = \(server.baseURL)\n")
        let workspace = try home.workspace()
        try workspace.switchSession(to: "llama")
        return (Transcript(workspace), server)
    }

    @Test func aCommandsOutputIsShownAsSentItsFirstLinesOnly() async throws {
        let (transcript, _) = try transcript()
        let output = await transcript.type("!seq 1 12")
        #expect(output.contains("sent:\n│ 1\n│ 2\n│ 3\n│ 4\n│ 5\n│ 6\n│ 7\n│ 8\n│ … 4 more lines\ngot 1\n2\n"), "\(output)")
    }

    @Test func aMessageRewrittenInTheEditorIsShownBeforeItsReply() async throws {
        let (transcript, server) = try transcript()
        await transcript.type("what is 2+2")
        transcript.editorText = "what is 3+3"
        let output = await transcript.type("/edit last")
        #expect(output.contains("[editor closes with: what is 3+3]\nwhat is 3+3\ngot what is 3+3"), "\(output)")
        #expect(server.sentMessages.last?.count == 1, "the new message in place of the old one")
    }
}
