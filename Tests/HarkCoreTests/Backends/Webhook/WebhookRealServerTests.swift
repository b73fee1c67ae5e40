import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// The webhook kind against what n8n's own source sends (see TestN8NServer): keepalives,
/// node errors that do not end the run, history content in parts, a history request answered
/// with a stream.
@Suite struct WebhookRealServerTests {
    static func config(_ url: String, extra: String = "") -> String {
        "[session helpdesk]\nkind = webhook\nurl = \(url)\n\(extra)\n"
    }

    /// A keepalive first (an agent that thought for 30 s) and between items: never shown, never stored.
    @Test func keepalivesAreNeitherShownNorStored() async throws {
        let server = try TestN8NServer { _, _ in .steps([.keepalive, .item("Order 1042 "), .keepalive, .item("shipped.")]) }
        let home = TestHome(config: Self.config(server.webhookURL))
        let workspace = try home.workspace()
        let output = await Transcript(workspace).type("@helpdesk where is 1042?")
        #expect(output == "> @helpdesk where is 1042?\nhelpdesk ›\nOrder 1042 shipped.\n")
        let reply = try #require(try workspace.store.lastMessage(session: "helpdesk", role: .assistant))
        #expect(reply.text == "Order 1042 shipped.")
        #expect(reply.notes.isEmpty)
    }

    /// A node that fails (set to continue) sends an error chunk and the workflow goes on: the
    /// error is a line of its own, kept as a note of the reply, and the answer still arrives.
    @Test func aNodeErrorIsANoteAndTheAnswerStillArrives() async throws {
        let server = try TestN8NServer { _, _ in
            .steps([.item("Checking… "), .nodeError(node: "CRM Lookup", description: "The service is unavailable.\nTry later."),
                    .nodeError(node: "Mailer", description: nil), .item("Order 1042 shipped.")])
        }
        let home = TestHome(config: Self.config(server.webhookURL))
        let workspace = try home.workspace()
        let transcript = Transcript(workspace)
        let output = await transcript.type("@helpdesk where is 1042?")
        #expect(output == """
            > @helpdesk where is 1042?
            helpdesk ›
            Checking…
            » CRM Lookup failed: The service is unavailable. Try later.
            » Mailer failed
            Order 1042 shipped.

            """)
        let reply = try #require(try workspace.store.lastMessage(session: "helpdesk", role: .assistant))
        #expect(reply.status == .complete)
        #expect(reply.text == "Checking… Order 1042 shipped.")
        #expect(reply.notes == ["CRM Lookup failed: The service is unavailable. Try later.", "Mailer failed"])
        let exported = Export.messageJSON(reply)
        #expect(exported["notes"]?.array?.count == 2)
    }

    /// A workflow whose only output is an error: the reply failed, with n8n's message, said once
    /// (as the failure, not also as a notice before it).
    @Test func aStreamOfOnlyAnErrorFailsTheReply() async throws {
        let server = try TestN8NServer { _, _ in .steps([.keepalive, .nodeError(node: "AI Agent", description: "Model overloaded")]) }
        let home = TestHome(config: Self.config(server.webhookURL))
        let workspace = try home.workspace()
        let output = await Transcript(workspace).type("@helpdesk hi")
        #expect(output.hasSuffix("hark: n8n: AI Agent failed: Model overloaded\n"))
        #expect(!output.contains("» AI Agent failed"))
        let reply = try #require(try workspace.store.lastMessage(session: "helpdesk", role: .assistant))
        #expect(reply.status == .failed)
        #expect(reply.error == "n8n: AI Agent failed: Model overloaded")
        #expect(reply.notes == [])
    }

    /// loadPreviousSession with content in parts (a model whose messages are content blocks):
    /// the text parts joined, a message with no text left out.
    @Test func historyContentInPartsIsJoined() async throws {
        let server = try TestN8NServer(history: .memoryWithContentParts) { _, _ in .streaming(["The answer is 42."]) }
        let home = TestHome(config: Self.config(server.webhookURL))
        let workspace = try home.workspace()
        try workspace.switchSession(to: "helpdesk")
        await Transcript(workspace).type("what is the answer?")
        let sessionID = try #require(try workspace.currentThread()?.backendID)
        let other = try TestHome(config: Self.config(server.webhookURL)).workspace()
        try other.switchSession(to: "helpdesk")
        let output = await Transcript(other).type("/thread \(sessionID)")
        #expect(output.contains("loaded 2 messages from the server"))
        let thread = try #require(try other.currentThread())
        #expect(try other.store.messages(threadID: thread.id).map(\.text) == ["what is the answer?", "The answer is 42."])
    }

    /// A trigger in "manually" load mode runs the workflow for the history request, and a
    /// streaming one answers with a stream: no history, and no error.
    @Test func historyAnsweredWithAStreamIsNoHistory() async throws {
        let server = try TestN8NServer(history: .manuallyStreaming) { _, _ in .streaming(["ok"]) }
        let home = TestHome(config: Self.config(server.webhookURL))
        let workspace = try home.workspace()
        try workspace.switchSession(to: "helpdesk")
        let output = await Transcript(workspace).type("/thread 5c1a-from-elsewhere")
        #expect(!output.contains("could not load"), "\(output)")
        let thread = try #require(try workspace.currentThread())
        #expect(thread.backendID == "5c1a-from-elsewhere")
        #expect(try workspace.store.messages(threadID: thread.id).isEmpty)
        #expect(server.http.requests.contains { (try? JSON.parse($0.body))?["action"]?.string == "loadPreviousSession" })
    }
}
