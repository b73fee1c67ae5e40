import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// Login, tokens, CSRF and the mandate/instance headers, 401, 429 and FastAPI errors.
@Suite struct NylaAuthTests {
    static func config(_ url: String, extra: String = "") -> String {
        "[session work]\nkind = nyla\nurl = \(url)\nlanguage = en\n\(extra)\n"
    }

    /// A workspace in the work session, logged in through the shell and on instance ws1.
    static func loggedIn(_ gateway: TestNylaGateway, extra: String = "instance = ws1\n",
                         clock: HarkClock = .system) async throws -> (TestHome, Workspace, Transcript) {
        let home = TestHome(config: config(gateway.url, extra: extra))
        let workspace = try home.workspace(clock: clock)
        try workspace.switchSession(to: "work")
        workspace.interaction = ScriptedInteraction(["ann", "s3cret pass"])
        let transcript = Transcript(workspace)
        await transcript.type("/login")
        return (home, workspace, transcript)
    }

    @Test func csrfIsStablePerLoginAndFeatureRequestsNameTheirInstance() async throws {
        let gateway = try TestNylaGateway()
        let (_, workspace, transcript) = try await Self.loggedIn(gateway)
        await transcript.type("one")
        workspace.interaction = ScriptedInteraction(["ann", "s3cret pass"])
        await transcript.type("/login")
        await transcript.type("/thread new Two")
        let mutating = gateway.http.requests.filter { $0.method != "GET" }
        #expect(mutating.map(\.path) == ["/api/local/login", "/api/workspace/ws1/start/stream", "/api/local/login",
                                         "/api/workspace/ws1/workflows"])
        let tokens = mutating.map { $0.header("x-csrf-token") ?? "" }
        #expect(tokens.allSatisfy { $0.count == 16 && $0.allSatisfy(\.isHexDigit) })
        #expect(tokens[0] == tokens[1], "one token per login")
        #expect(tokens[2] != tokens[0], "a new login, a new token")
        #expect(tokens[2] == tokens[3])
        for request in gateway.http.requests where request.path.hasPrefix("/api/workspace/") {
            #expect(request.header("x-instance-id") == "ws1")
            #expect(request.header("x-mandate-id") == "m1", "looked up from /api/features/my")
        }
        for request in gateway.http.requests where !request.path.hasPrefix("/api/workspace/") {
            #expect(request.header("x-instance-id") == nil)
        }
        #expect(!transcript.text.contains("error"))
    }

    /// The gateway's own checks, so the successes above mean something.
    @Test func theGatewayRefusesMutationsWithoutCSRFAndForeignInstanceHeaders() async throws {
        let gateway = try TestNylaGateway()
        let http = HTTPClient()
        let token = [("Authorization", "Bearer tok-ann-123")]
        let noCSRF = try await http.fetch(.json(url: gateway.url + "/api/workspace/ws1/workflows", body: ["name": "x"],
                                                headers: token + [("X-Mandate-Id", "m1"), ("X-Instance-Id", "ws1")]))
        #expect(noCSRF.status == 403)
        #expect(noCSRF.text.contains("CSRF token missing or invalid"))
        let foreign = try await http.fetch(HTTPRequest(url: gateway.url + "/api/workspace/ws2/workflows",
                                                       headers: token + [("X-Mandate-Id", "m1"), ("X-Instance-Id", "ws2")]))
        #expect(foreign.status == 403)
        let anonymous = try await http.fetch(HTTPRequest(url: gateway.url + "/api/features/my"))
        #expect(anonymous.status == 401)
    }

    @Test func aWrongPasswordIsSaidPlainly() async throws {
        let gateway = try TestNylaGateway()
        let home = TestHome(config: Self.config(gateway.url))
        let workspace = try home.workspace()
        try workspace.switchSession(to: "work")
        workspace.interaction = ScriptedInteraction(["ann", "wrong"])
        let output = await Transcript(workspace).type("/login")
        #expect(output == "> /login\nhark: 127.0.0.1:\(gateway.http.port) did not accept the login (HTTP 401: Invalid username or password)\n")
        #expect(!FileManager.default.fileExists(atPath: NylaLoginFile(paths: home.paths, session: "work").path))
    }

    @Test func anEndedLoginIsClearedAndSaidInOneLine() async throws {
        let gateway = try TestNylaGateway()
        let (home, workspace, transcript) = try await Self.loggedIn(gateway)
        let loginFile = NylaLoginFile(paths: home.paths, session: "work").path
        let attributes = try FileManager.default.attributesOfItem(atPath: loginFile)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        gateway.expireSessions()
        let output = await transcript.type("are you there?")
        #expect(output == "> are you there?\nhark: 127.0.0.1:\(gateway.http.port) ended the login (HTTP 401: Not authenticated); /login signs in again\n")
        #expect(!FileManager.default.fileExists(atPath: loginFile), "the dead cookies are gone")
        let failed = try #require(try workspace.store.lastMessage(session: "work", role: .assistant))
        #expect(failed.status == .failed)
        workspace.interaction = ScriptedInteraction(["ann", "s3cret pass"])
        await transcript.type("/login")
        let again = await transcript.type("again")
        // The failed message never reached the gateway: this one creates the server thread.
        #expect(again == "> again\n· thread: Chat: again\n· Thinking\nEcho: again\n")
        #expect(try workspace.currentThread()?.backendID != nil)
    }

    @Test func aSavedLoginServesTheNextRun() async throws {
        let gateway = try TestNylaGateway()
        let (home, _, _) = try await Self.loggedIn(gateway)
        // Another run of hark: a fresh process state, the same files.
        let next = TestHome(config: Self.config(gateway.url, extra: "instance = ws1"))
        let saved = NylaLoginFile(paths: home.paths, session: "work").path
        let copy = NylaLoginFile(paths: next.paths, session: "work").path
        try FileManager.default.createDirectory(atPath: (copy as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: saved, toPath: copy)
        let output = await Transcript(try next.workspace()).type("@work still me?")
        #expect(output == "> @work still me?\nwork ›\n· thread: Chat: still me?\n· Thinking\nEcho: still me?\n")
    }

    @Test func aBearerTokenAndAFullConfigNeedNoLoginAndNoLookup() async throws {
        let gateway = try TestNylaGateway()
        setenv("HARK_TEST_NYLA_TOKEN", "tok-ann-123", 1)
        let home = TestHome(config: Self.config(gateway.url, extra: """
            auth = bearer:env:HARK_TEST_NYLA_TOKEN
            instance = ws1
            mandate = m1
            feature = workspace
            """))
        let transcript = Transcript(try home.workspace())
        await transcript.type("@work token?")
        await transcript.type("/session work")
        await transcript.type("/login")
        #expect(transcript.text == """
            > @work token?
            work ›
            · thread: Chat: token?
            · Thinking
            Echo: token?
            > /session work
            > /login
            hark: session work uses a bearer token (auth); /login is for local accounts

            """)
        #expect(gateway.http.requests.map(\.path) == ["/api/workspace/ws1/start/stream", "/api/workspace/ws1/pending-edits"])
        let request = try #require(gateway.http.requests.first)
        #expect(request.header("authorization") == "Bearer tok-ann-123")
        #expect(request.header("x-csrf-token")?.count == 16)
        #expect(request.header("cookie") == nil)
    }

    @Test func aPasswordSettingLogsInWithoutAsking() async throws {
        let gateway = try TestNylaGateway()
        setenv("HARK_TEST_NYLA_PASSWORD", "b0b pass", 1)
        let home = TestHome(config: Self.config(gateway.url, extra: "user = bob\npassword = env:HARK_TEST_NYLA_PASSWORD"))
        let output = await Transcript(try home.workspace()).type("@work hi")
        #expect(output == "> @work hi\nwork ›\n· logged in to 127.0.0.1:\(gateway.http.port) as Bob Beta\n· thread: Chat: hi\n"
                + "· Thinking\nEcho: hi\n", "Bob's only chat instance is used")
        #expect(gateway.http.requests.map(\.path) == ["/api/local/login", "/api/local/me", "/api/features/my",
                                                      "/api/workspace/ws2/start/stream", "/api/workspace/ws2/pending-edits"])
        #expect(gateway.http.requests[0].text == "username=bob&password=b0b%20pass")
        #expect(gateway.http.requests[3].header("x-mandate-id") == "m2")
    }

    /// The waits are the workspace clock's: the test's returns at once and tells what was asked.
    @Test func rateLimitsAreWaitedOutAndSaid() async throws {
        let gateway = try TestNylaGateway()
        let clock = TestClock()
        let (_, _, transcript) = try await Self.loggedIn(gateway, clock: clock.clock)
        let host = "127.0.0.1:\(gateway.http.port)"
        gateway.throttle(next: 2, retryAfter: "0")
        let busy = await transcript.type("busy?")
        #expect(busy == """
            > busy?
            » \(host) is rate limiting (HTTP 429); retrying
            » \(host) is rate limiting (HTTP 429); retrying
            · thread: Chat: busy?
            · Thinking
            Echo: busy?

            """)
        gateway.throttle(next: 1, retryAfter: "1")
        let threads = await transcript.type("/threads")
        #expect(threads.hasPrefix("> /threads\n\(host) is rate limiting (HTTP 429); retrying in 1s\n› "))
        #expect(clock.sleeps == [1], "Retry-After 0 is no wait; Retry-After 1 is one second")
        gateway.throttle(next: 1, retryAfter: "120")
        #expect(await transcript.type("/threads") == "> /threads\nhark: \(host) answered HTTP 429: rate limited; try again in 120s\n")
        gateway.throttle(next: 4, retryAfter: "0")
        #expect(await transcript.type("/prompts").hasSuffix("hark: \(host) answered HTTP 429: rate limited; try again in a minute\n"))
    }

    @Test func fastAPIErrorsReadAsOneLine() async throws {
        let gateway = try TestNylaGateway()
        let (_, _, transcript) = try await Self.loggedIn(gateway)
        let host = "127.0.0.1:\(gateway.http.port)"
        await transcript.type("/thread new Plans")
        #expect(await transcript.type("/thread rename " + String(repeating: "x", count: 101)).hasSuffix(
            "hark: \(host) answered HTTP 422: name: ensure this value has at most 100 characters\n"))
        #expect(await transcript.type("/accept edit-999") == "> /accept edit-999\nhark: \(host) answered HTTP 404: Pending edit not found\n")
        #expect(await transcript.type("/instance tr1") == "> /instance tr1\nhark: Books 2026 is a trustee instance; hark chats with workspace and chatbot instances\n")
        #expect(await transcript.type("/instance nowhere") == "> /instance nowhere\nhark: no instance \"nowhere\" on \(host); /instances lists them\n")
    }

    @Test func withoutATerminalLoginSaysHowToConfigureIt() async throws {
        let gateway = try TestNylaGateway()
        let home = TestHome(config: Self.config(gateway.url))
        let workspace = try home.workspace()
        try workspace.switchSession(to: "work")
        let transcript = Transcript(workspace)
        #expect(await transcript.type("/login") == "> /login\nhark: /login asks for the password in the shell; in scripts set password = env:VAR (or auth = bearer:SECRET)\n")
        #expect(await transcript.type("/instances").hasSuffix("hark: not logged in to 127.0.0.1:\(gateway.http.port); /login signs in (or set password = env:VAR, or auth = bearer:SECRET)\n"))
        #expect(HarkError.authentication("x").exitCode == .auth)
    }
}
