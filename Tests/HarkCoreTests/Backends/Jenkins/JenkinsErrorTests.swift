import Foundation
import Testing
import TestSupport
@testable import HarkCore

@Suite(.timeLimit(.minutes(3))) struct JenkinsErrorTests {
    @Test func eachFailureIsOneClearLine() async throws {
        let server = try TestJenkinsServer()
        server.addJob("app")
        server.addJob("team/web")
        server.addJob("ops/web")
        server.addJob("old", disabled: true)
        server.addJob("lib")
        let transcript = try JenkinsHarness(server)
        await transcript.type("/build ap")
        await transcript.type("/build web")
        await transcript.type("/build old")
        await transcript.type("/job lib")
        server.disable("lib")
        await transcript.type("/build lib")
        await transcript.type("/build")
        #expect(transcript.text == """
            > /build ap
            hark: no job "ap" on ci; did you mean app?
            > /build web
            hark: several jobs are called web: team/web, ops/web; give the full name
            > /build old
            hark: old is disabled on ci; enable it in Jenkins to build it
            > /job lib
            lib  · not built
            builds
              none yet
            > /build lib
            hark: lib is disabled on ci (HTTP 409); enable it in Jenkins to build it
            > /build
            hark: usage: /build JOB [KEY=VALUE…]

            """)
        #expect(!server.answers.contains { $0.method == "POST" && $0.status == 201 }, "nothing was built")
    }

    @Test func wrongCredentialsServerErrorsAndAnUnreachableServer() async throws {
        let server = try TestJenkinsServer()
        server.addJob("app")
        let wrong = try JenkinsHarness(server, secret: "not-the-token")
        let denied = await wrong.type("/jobs")
        #expect(denied == "> /jobs\nhark: 127.0.0.1:\(server.http.port) refused the credentials (HTTP 401): "
            + "Invalid password/token for user: ann; check the session's auth\n")
        #expect(!denied.contains("not-the-token"))

        let starting = try TestHTTPServer { _, response in
            response.send(status: 503, headers: [("Content-Type", "text/html;charset=utf-8")],
                          text: "<html><head><title>Starting Jenkins</title></head><body>Please wait while Jenkins is getting ready to work</body></html>")
        }
        let busy = try JenkinsHarness(try TestJenkinsServer(), extra: "")
        try busy.workspace.updateSettings(of: "ci", ["url": starting.baseURL])
        #expect(await busy.type("status app") == "> status app\nhark: 127.0.0.1:\(starting.port) answered HTTP 503: Starting Jenkins\n")

        let refusing = try RefusingPort()
        try busy.workspace.updateSettings(of: "ci", ["url": refusing.baseURL])
        #expect(await busy.type("/queue") == "> /queue\nhark: cannot reach 127.0.0.1:\(refusing.port): connection refused\n")
        let info = await busy.type("/info")
        #expect(info.contains("jenkins  unreachable: cannot reach 127.0.0.1:\(refusing.port): connection refused"))
    }

    @Test func aPasswordLoginFetchesACrumbWithItsSessionAndAnAPITokenNeedsNone() async throws {
        let server = try TestJenkinsServer()
        server.addJob("app")
        let transcript = try JenkinsHarness(server, secret: TestJenkinsServer.password)
        await transcript.type("/build app") { _ in
            #expect(await server.until(JenkinsBackgroundTests.queuePolls(40)))
            server.finish("app", server.start(40), "SUCCESS", duration: 1_000)
        }
        #expect(transcript.text.hasSuffix("» app #1 SUCCESS in 1.0s\n"))
        let steps = server.answers.filter { $0.method == "POST" || $0.path.hasPrefix("/crumbIssuer") }
        #expect(steps.map { "\($0.method) \($0.path) \($0.status)" } == [
            "POST /job/app/build 403", "GET /crumbIssuer/api/json 200", "POST /job/app/build 201",
        ])
        #expect(steps[2].crumb != nil)

        // With an API token, Jenkins exempts the POST from the crumb check.
        let tokenServer = try TestJenkinsServer()
        tokenServer.addJob("app")
        let withToken = try JenkinsHarness(tokenServer)
        await withToken.type("/build app") { _ in
            #expect(await tokenServer.until(JenkinsBackgroundTests.queuePolls(40)))
            tokenServer.finish("app", tokenServer.start(40), "SUCCESS", duration: 1_000)
        }
        #expect(!tokenServer.answers.contains { $0.path.hasPrefix("/crumbIssuer") })
        #expect(tokenServer.answers.first { $0.method == "POST" }?.status == 201)
    }

    @Test func crumbOnAsksFirstAndCrumbOffReportsTheRefusal() async throws {
        let server = try TestJenkinsServer()
        server.addJob("app")
        let gate = Gate()
        server.queuePollGate = gate
        defer { gate.open() }
        let eager = try JenkinsHarness(server, secret: TestJenkinsServer.password, extra: "crumb = on")
        // Ctrl-C on a build's console leaves it running in the background.
        await eager.type("/build app") { _ in await eager.press(.ctrlC) }
        let steps = server.answers.filter { $0.method == "POST" || $0.path.hasPrefix("/crumbIssuer") }
        #expect(steps.map { "\($0.method) \($0.path) \($0.status)" } == ["GET /crumbIssuer/api/json 200", "POST /job/app/build 201"])

        let never = try JenkinsHarness(server, secret: TestJenkinsServer.password, extra: "crumb = off")
        let refused = await never.type("/build app")
        #expect(refused == "> /build app\nhark: 127.0.0.1:\(server.http.port) refused the credentials (HTTP 403): "
            + "No valid crumb was included in the request; check the session's auth\n")
    }

    @Test func missingParametersAreAskedInTheShellAndPasswordsNeverStored() async throws {
        let server = try TestJenkinsServer()
        server.addJob("deploy", parameters: [.string("TICKET", description: "Change ticket"), .password("TOKEN"),
                                             .choice("TARGET", ["staging", "production"])])
        let transcript = try JenkinsHarness(server)

        let person = ScriptedInteraction(["CHG-1", "s3cret-pass"])
        transcript.workspace.interaction = person
        let output = await transcript.type("build deploy TARGET=production") { _ in
            #expect(await server.until(JenkinsBackgroundTests.queuePolls(40)))
            server.finish("deploy", server.start(40), "SUCCESS", duration: 1_000)
        }
        #expect(output.hasPrefix("> build deploy TARGET=production\n· waiting: In the quiet period. Expires in 5 sec\n"))
        #expect(person.questions.map(\.prompt) == ["TICKET (string: Change ticket; Enter keeps the default): ",
                                                     "TOKEN (password; Enter keeps the default): "])
        #expect(person.questions.map(\.secret) == [false, true])
        #expect(server.parameters("deploy", 1) == ["TICKET": "CHG-1", "TOKEN": "s3cret-pass", "TARGET": "production"])
        let store = transcript.workspace.store
        let thread = try #require(try store.currentThread(session: "ci"))
        let texts = try store.messages(threadID: thread.id).map(\.text)
        #expect(texts.first == "/build deploy TICKET=CHG-1 TOKEN=*** TARGET=production")
        #expect(!texts.joined().contains("s3cret-pass"))
        #expect(try store.search("s3cret").isEmpty)

        let bad = await transcript.type("/build deploy TARGET=prod TICKET=1")
        #expect(bad == "> /build deploy TARGET=prod TICKET=1\nhark: TARGET must be one of staging, production, not \"prod\"; did you mean production?\n")
    }
}
