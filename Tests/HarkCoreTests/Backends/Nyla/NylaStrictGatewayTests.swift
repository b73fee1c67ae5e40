import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// hark against a gateway that follows the seed strictly: every list paged (25 to a page),
/// logins that expire or end mid-run, and an answer that is not the stream asked for.
@Suite struct NylaStrictGatewayTests {
    @Test func everyListIsFollowedThroughItsPages() async throws {
        let gateway = try TestNylaGateway()
        let long = gateway.addWorkflow(instance: "ws1", name: "Long talk",
                                       messages: (1...60).map { ($0 % 2 == 1 ? "user" : "assistant", "message \($0)") })
        for index in 1...29 { gateway.addWorkflow(instance: "ws1", name: "Thread \(index)", messages: []) }
        for index in 1...30 {
            let file = gateway.addFile(name: String(format: "note-%02d.md", index), content: Array("v\(index)\n".utf8),
                                       mimeType: "text/markdown")
            gateway.addEdit(fileID: file, content: "v\(index + 1)\n", description: "bump \(index)")
        }
        let (_, workspace, transcript) = try await NylaAuthTests.loggedIn(gateway)
        let threads = await transcript.type("/threads")
        #expect(threads.contains("Long talk"), "the last page holds the oldest thread")
        #expect(threads.split(separator: "\n").filter { $0.contains("Thread ") }.count == 29)
        await transcript.type("/thread \(long)")
        let thread = try #require(try workspace.currentThread())
        let messages = try workspace.store.messages(threadID: thread.id)
        #expect(messages.count == 60, "a 60-message thread loads whole")
        #expect(messages.last?.text == "message 60")
        let files = await transcript.type("/files")
        #expect(files.split(separator: "\n").filter { $0.contains("note-") }.count == 30)
        let edits = await transcript.type("/edits")
        #expect(edits.split(separator: "\n").filter { $0.contains("bump ") }.count == 30)
        #expect(try workspace.backend(for: "work").promptBadge() == "30 edits")
        let pages = gateway.http.requests.filter { $0.path == "/api/workspace/ws1/workflows/\(long)/messages" }.map { $0.query["page"] }
        #expect(pages == ["1", "2", "3"])
    }

    /// A saved login whose cookies expired while hark was not running.
    static func expiredLogin(_ home: TestHome, gateway: TestNylaGateway) throws {
        let past = Date().timeIntervalSince1970 - 3600
        let jar = CookieJar(cookies: [Cookie(name: "nyla_session", value: "expired-session-cookie", path: "/", expires: past, secure: false)])
        try NylaLoginFile(paths: home.paths, session: "work").save(NylaLogin(gateway: gateway.url, user: "Ann Example", jar: jar,
                                                                              established: true))
    }

    @Test func anExpiredSavedLoginIsRenewedWithTheStoredPassword() async throws {
        let gateway = try TestNylaGateway()
        setenv("HARK_TEST_NYLA_ANN", "s3cret pass", 1)
        let home = TestHome(config: NylaAuthTests.config(gateway.url, extra: "instance = ws1\nuser = ann\npassword = env:HARK_TEST_NYLA_ANN"))
        try Self.expiredLogin(home, gateway: gateway)
        let output = await Transcript(try home.workspace()).type("@work still there?")
        #expect(output == "> @work still there?\nwork ›\n· logged in to 127.0.0.1:\(gateway.http.port) as Ann Example\n"
            + "· thread: Chat: still there?\n· Thinking\nEcho: still there?\n")
        #expect(gateway.http.requests.first?.path == "/api/local/login", "no request went out with the dead cookies")

        let withoutPassword = TestHome(config: NylaAuthTests.config(gateway.url, extra: "instance = ws1"))
        try Self.expiredLogin(withoutPassword, gateway: gateway)
        #expect(await Transcript(try withoutPassword.workspace()).type("@work hi").hasSuffix(
            "hark: the saved login to 127.0.0.1:\(gateway.http.port) has expired; /login signs in "
                + "(or set password = env:VAR, or auth = bearer:SECRET)\n"))
    }

    @Test func aLoginEndedMidRunIsRenewedOnceWithTheStoredPassword() async throws {
        let gateway = try TestNylaGateway()
        setenv("HARK_TEST_NYLA_ANN", "s3cret pass", 1)
        let home = TestHome(config: NylaAuthTests.config(gateway.url, extra: "instance = ws1\nuser = ann\npassword = env:HARK_TEST_NYLA_ANN"))
        let transcript = Transcript(try home.workspace())
        await transcript.type("@work one")
        gateway.expireSessions()
        let output = await transcript.type("@work two")
        #expect(output == "> @work two\nwork ›\n· logged in to 127.0.0.1:\(gateway.http.port) as Ann Example again\n"
            + "· Thinking\nEcho: two\n")
        let logins = gateway.http.requests.filter { $0.path == "/api/local/login" }
        #expect(logins.count == 2)
    }

    @Test func jsonWhereAStreamWasAskedForIsTheWrongKindOfAnswer() async throws {
        let gateway = try TestNylaGateway { _ in [.json(["detail": "Workflow is already running"])] }
        let (_, workspace, transcript) = try await NylaAuthTests.loggedIn(gateway)
        let output = await transcript.type("hello")
        #expect(output == "> hello\nhark: 127.0.0.1:\(gateway.http.port) answered the message with application/json, "
            + "not an event stream: Workflow is already running\n")
        let reply = try #require(try workspace.store.lastMessage(session: "work", role: .assistant))
        #expect(reply.status == .failed)
    }
}
