import Foundation
import Testing
import TestSupport
@testable import HarkCore

@Suite struct WebhookBackendTests {
    static func config(_ url: String, extra: String = "") -> String {
        "[session helpdesk]\nkind = webhook\nurl = \(url)\n\(extra)\n"
    }

    @Test func aStreamedReplyIsShownAndStoredWithAStableSessionID() async throws {
        let server = try TestN8NServer { _, body in .streaming(["Hello ", "from ", "n8n: ", body["chatInput"]?.string ?? ""]) }
        let home = TestHome(config: Self.config(server.webhookURL))
        let transcript = Transcript(try home.workspace())
        await transcript.type("/session helpdesk")
        await transcript.type("first question")
        await transcript.type("second question")
        #expect(transcript.text == """
            > /session helpdesk
            > first question
            Hello from n8n: first question
            > second question
            Hello from n8n: second question

            """)
        let bodies = server.http.requests.compactMap { try? JSON.parse($0.body) }
        #expect(bodies.count == 2)
        #expect(bodies[0]["action"]?.string == "sendMessage")
        #expect(bodies[0]["chatInput"]?.string == "first question")
        let sessionID = try #require(bodies[0]["sessionId"]?.string)
        #expect(bodies[1]["sessionId"]?.string == sessionID, "the agent keeps its memory across a thread")
        #expect(server.http.requests[0].header("accept") == "text/plain")
        // The rows: two user messages and two complete replies, in one thread with that id.
        let store = transcript.workspace.store
        let thread = try #require(try store.currentThread(session: "helpdesk"))
        #expect(thread.backendID == sessionID)
        let messages = try store.messages(threadID: thread.id)
        #expect(messages.map(\.role) == [.user, .assistant, .user, .assistant])
        #expect(messages.map(\.status) == [.complete, .complete, .complete, .complete])
        #expect(messages[3].text == "Hello from n8n: second question")
    }

    @Test func aNewThreadGetsANewSessionIDAndOpeningOneLoadsTheServersHistory() async throws {
        let server = try TestN8NServer { _, _ in .streaming(["ok"]) }
        let home = TestHome(config: Self.config(server.webhookURL))
        let workspace = try home.workspace()
        try workspace.switchSession(to: "helpdesk")
        let transcript = Transcript(workspace)
        await transcript.type("remember 42")
        let first = try #require(try workspace.currentThread()?.backendID)
        await transcript.type("/thread new")
        await transcript.type("hello again")
        let second = try #require(try workspace.currentThread()?.backendID)
        #expect(first != second)
        // Adopt the first server session in a fresh home: its history comes from n8n.
        let other = TestHome(config: Self.config(server.webhookURL))
        let elsewhere = try other.workspace()
        try elsewhere.switchSession(to: "helpdesk")
        let output = await Transcript(elsewhere).type("/thread \(first)")
        #expect(output.contains("loaded 2 messages from the server"))
        let adopted = try #require(try elsewhere.currentThread())
        #expect(try elsewhere.store.messages(threadID: adopted.id).map(\.text) == ["remember 42", "ok"])
    }

    @Test func headerAuthIsSentAndAWrongValueIsAnAuthError() async throws {
        let server = try TestN8NServer(requiredHeader: ("X-N8N-Key", "k3y")) { _, _ in .streaming(["authorised"]) }
        setenv("HARK_TEST_N8N_KEY", "k3y", 1)
        setenv("HARK_TEST_N8N_WRONG", "nope", 1)
        let home = TestHome(config: Self.config(server.webhookURL, extra: "auth = header:X-N8N-Key:env:HARK_TEST_N8N_KEY")
            + "[session wrong]\nkind = webhook\nurl = \(server.webhookURL)\nauth = header X-N8N-Key env:HARK_TEST_N8N_WRONG\n")
        let transcript = Transcript(try home.workspace())
        await transcript.type("@helpdesk hi")
        await transcript.type("@wrong hi")
        #expect(transcript.text.contains("authorised"))
        #expect(transcript.text.contains("hark: 127.0.0.1:\(server.http.port) refused the credentials (HTTP 403): Authorization data is wrong!; check the session's auth"))
        #expect(!transcript.text.contains("nope"), "the secret never appears")
        let failed = try #require(try transcript.workspace.store.lastMessage(session: "wrong", role: .assistant))
        #expect(failed.status == .failed)
        #expect(failed.error?.contains("HTTP 403") == true)
    }

    @Test func basicAuthIsSentUpFront() async throws {
        let server = try TestN8NServer { request, _ in .streaming([request.header("authorization") ?? "none"]) }
        let directory = TemporaryDirectory()
        let secret = directory.write("pw", "s3cret\n")
        let home = TestHome(config: Self.config(server.webhookURL, extra: "auth = basic:ann:file:\(secret)"))
        let output = await Transcript(try home.workspace()).type("@helpdesk hi")
        #expect(output.contains("Basic " + Data("ann:s3cret".utf8).base64EncodedString()))
    }

    @Test func anUnknownWebhookShowsN8NsMessageAndHint() async throws {
        let server = try TestN8NServer { _, _ in .streaming([]) }
        let home = TestHome(config: Self.config(server.http.baseURL + "/webhook/missing/chat"))
        let output = await Transcript(try home.workspace()).type("@helpdesk hi")
        #expect(output.contains("HTTP 404: The requested webhook \"POST x\" is not registered. (Activate the workflow)"))
    }

    @Test func aPlainLastNodeReplyAndCustomKeys() async throws {
        let server = try TestN8NServer { _, body in
            .whole(status: 200, contentType: "application/json", body: JSON.object(["output": .string("got " + (body["q"]?.string ?? "?"))]).encoded())
        }
        let home = TestHome(config: Self.config(server.webhookURL, extra: "input_key = q\nsession_key = sid\nstream = off"))
        let output = await Transcript(try home.workspace()).type("@helpdesk ping")
        #expect(output == "> @helpdesk ping\nhelpdesk ›\ngot ping\n")
        let body = try JSON.parse(try #require(server.http.requests.first).body)
        #expect(body["sid"]?.string != nil)
        #expect(server.http.requests.first?.header("accept") == "application/json")
    }

    @Test func attachmentsGoAsMultipartWithMetadataAsAString() async throws {
        let server = try TestN8NServer { request, _ in
            .streaming([request.header("content-type")?.hasPrefix("multipart/form-data") == true ? "multipart" : "json"])
        }
        let directory = TemporaryDirectory()
        let file = directory.write("report.txt", "quarterly numbers")
        let home = TestHome(config: Self.config(server.webhookURL, extra: "metadata = {\"team\":\"ops\"}"))
        let workspace = try home.workspace()
        try workspace.switchSession(to: "helpdesk")
        let transcript = Transcript(workspace)
        await transcript.type("/attach \(file)")
        await transcript.type("see attached")
        #expect(transcript.text.contains("multipart"))
        let raw = try #require(server.http.requests.last).text
        #expect(raw.contains("name=\"metadata\"\r\n\r\n{\"team\":\"ops\"}"))
        #expect(raw.contains("name=\"chatInput\"\r\n\r\nsee attached"))
        #expect(raw.contains("name=\"files\"; filename=\"report.txt\""))
        #expect(raw.contains("quarterly numbers"))
    }

    /// A file attached in one run (a one-shot `hark -s helpdesk "/attach f"`) waits in the
    /// history DB and goes with the next run's message; `/retry` sends it again.
    @Test func anAttachmentWaitsForTheNextRunAndGoesAgainOnRetry() async throws {
        let server = try TestN8NServer { _, _ in .streaming(["ok"]) }
        let directory = TemporaryDirectory()
        let file = directory.write("report.txt", "quarterly numbers")
        let home = TestHome(config: Self.config(server.webhookURL))
        let first = try home.workspace()
        try first.switchSession(to: "helpdesk")
        await Transcript(first).type("/attach \(file)")
        #expect(server.http.requests.isEmpty)
        let next = try home.workspace()
        try next.switchSession(to: "helpdesk")
        let transcript = Transcript(next)
        await transcript.type("see attached")
        await transcript.type("/retry")
        await transcript.type("and this?")
        let sent = server.http.requests.map(\.text)
        #expect(sent.count == 3)
        #expect(sent.prefix(2).allSatisfy { $0.contains("name=\"files\"; filename=\"report.txt\"") && $0.contains("quarterly numbers") })
        #expect(sent.last?.contains("report.txt") == false, "a file goes with one message only")
    }
}
