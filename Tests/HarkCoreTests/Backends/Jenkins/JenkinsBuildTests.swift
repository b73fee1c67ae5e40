import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// Shared setup for the Jenkins transcripts: a session `ci` on a loopback Jenkins, polled
/// every few milliseconds (the test moves the builds along; nothing waits on the clock).
enum JenkinsFixture {
    static func config(_ server: TestJenkinsServer, secret: String = TestJenkinsServer.token, extra: String = "") -> String {
        "[session ci]\nkind = jenkins\nurl = \(server.url)\nauth = basic:\(TestJenkinsServer.user):\(secret)\n"
            + "poll_interval = 0.005\n\(extra)\n[session notes]\nkind = local\n"
    }

    static func transcript(_ server: TestJenkinsServer, secret: String = TestJenkinsServer.token,
                           extra: String = "") throws -> (TestHome, Transcript) {
        let home = TestHome(config: config(server, secret: secret, extra: extra))
        let workspace = try home.workspace()
        try workspace.switchSession(to: "ci")
        return (home, Transcript(workspace))
    }

    static func progressive(_ answers: [TestJenkinsServer.Served]) -> [TestJenkinsServer.Served] {
        answers.filter { $0.path.hasSuffix("/logText/progressiveText") }
    }
}

@Suite struct JenkinsBuildTests {
    @Test func aBuildWaitsInTheQueueThenStreamsItsConsoleToTheResult() async throws {
        let server = try TestJenkinsServer()
        server.addJob("app", parameters: [.string("BRANCH", default: "main"), .choice("TARGET", ["staging", "production"]),
                                          .boolean("DRY_RUN")])
        let (_, transcript) = try JenkinsFixture.transcript(server)
        let output = await transcript.type("/build app BRANCH=feature/x TARGET=production") { _ in
            // The client sees the quiet period (twice, counting down), then the reason changes.
            await server.until { $0.filter { $0.path == "/queue/item/40/api/json" }.count >= 2 }
            server.setWhy(40, "Waiting for next available executor")
            await server.until { $0.filter { $0.path == "/queue/item/40/api/json" }.count >= 3 }
            let number = server.start(40)
            server.append("app", number, "Building on the built-in node\n+ make\n")
            let whole = "Started by user Ann Example\nBuilding on the built-in node\n+ make\n".utf8.count
            // Those lines reach hark while the build still runs…
            await server.until { JenkinsFixture.progressive($0).contains { $0.moreData && $0.textSize == whole } }
            // …and a line written in two pieces is sent only once it is whole.
            server.append("app", number, "compiled 12 ")
            await server.until { JenkinsFixture.progressive($0).filter { $0.textSize == whole }.count >= 2 }
            server.append("app", number, "files\n")
            server.finish("app", number, "SUCCESS", duration: 62_000)
        }
        #expect(output == """
            > /build app BRANCH=feature/x TARGET=production
            · defaults: DRY_RUN=false
            · waiting: In the quiet period. Expires in 5 sec
            · waiting: Waiting for next available executor
            · started app #1
            Started by user Ann Example
            Building on the built-in node
            + make
            compiled 12 files
            Finished: SUCCESS
            » app #1 SUCCESS in 1m02s

            """)
        #expect(server.parameters("app", 1) == ["BRANCH": "feature/x", "TARGET": "production"])
        // Each poll starts where X-Text-Size said; the last has no X-More-Data.
        let polls = JenkinsFixture.progressive(server.answers)
        #expect(polls.first?.query["start"] == "0")
        for (previous, next) in zip(polls, polls.dropFirst()) {
            #expect(next.query["start"] == String(previous.textSize ?? -1))
        }
        #expect(polls.dropLast().allSatisfy { $0.moreData })
        #expect(polls.last?.moreData == false)
        // The command and the console are in the history like a message and its reply.
        let store = transcript.workspace.store
        let thread = try #require(try store.currentThread(session: "ci"))
        let messages = try store.messages(threadID: thread.id)
        #expect(messages.map(\.role) == [.user, .assistant])
        #expect(messages[0].text == "/build app BRANCH=feature/x TARGET=production")
        #expect(messages[1].text == "Started by user Ann Example\nBuilding on the built-in node\n+ make\ncompiled 12 files\nFinished: SUCCESS\n")
        #expect(messages[1].status == .complete)
        #expect(messages[1].backendID == "app#1")
    }
}
