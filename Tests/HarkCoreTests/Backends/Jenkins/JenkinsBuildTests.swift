import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// A session `ci` on a loopback Jenkins, polled every few milliseconds (the test moves the
/// builds along; nothing waits on the clock), typed into like a Transcript. It keeps its
/// private home alive as long as the test uses it.
final class JenkinsHarness: @unchecked Sendable {
    let home: TestHome
    let transcript: Transcript

    init(_ server: TestJenkinsServer, secret: String = TestJenkinsServer.token, extra: String = "",
         clock: HarkClock = .system) throws {
        home = TestHome(config: JenkinsFixture.config(server, secret: secret, extra: extra))
        let workspace = try home.workspace(clock: clock)
        try workspace.switchSession(to: "ci")
        transcript = Transcript(workspace)
    }

    var workspace: Workspace { transcript.workspace }
    var text: String { transcript.text }

    @discardableResult
    func type(_ line: String, whileStreaming: (@Sendable (ReplyJob) async -> Void)? = nil) async -> String {
        await transcript.type(line, whileStreaming: whileStreaming)
    }

    func settle() async { await transcript.settle() }
    func press(_ key: Transcript.Key) async { await transcript.press(key) }
}

enum JenkinsFixture {
    static func config(_ server: TestJenkinsServer, secret: String = TestJenkinsServer.token, extra: String = "") -> String {
        "[session ci]\nkind = jenkins\nurl = \(server.url)\nauth = basic:\(TestJenkinsServer.user):\(secret)\n"
            + "poll_interval = 0.005\n\(extra)\n[session notes]\nkind = local\n"
    }

    static func progressive(_ answers: [TestJenkinsServer.Served]) -> [TestJenkinsServer.Served] {
        answers.filter { $0.path.hasSuffix("/logText/progressiveText") }
    }
}

@Suite(.timeLimit(.minutes(3))) struct JenkinsBuildTests {
    @Test func aBuildWaitsInTheQueueThenStreamsItsConsoleToTheResult() async throws {
        let server = try TestJenkinsServer()
        server.addJob("app", parameters: [.string("BRANCH", default: "main"), .choice("TARGET", ["staging", "production"]),
                                          .boolean("DRY_RUN")])
        let transcript = try JenkinsHarness(server)
        let output = await transcript.type("/build app BRANCH=feature/x TARGET=production") { _ in
            // The client sees the quiet period (twice, counting down), then the reason changes.
            #expect(await server.until { $0.filter { $0.path == "/queue/item/40/api/json" }.count >= 2 })
            server.setWhy(40, "Build #0 is already in progress (ETA: 1 min 2 sec)", blocked: true)
            #expect(await server.until { $0.contains { $0.why?.hasPrefix("Build #0") == true } })
            let number = server.start(40)
            server.append("app", number, "Building on the built-in node\n+ make\n")
            let whole = "Started by user Ann Example\nBuilding on the built-in node\n+ make\n".utf8.count
            // Those lines reach hark while the build still runs…
            #expect(await server.until { JenkinsFixture.progressive($0).contains { $0.moreData && $0.textSize == whole } })
            // …and a line written in two pieces is sent only once it is whole.
            server.append("app", number, "compiled 12 ")
            #expect(await server.until { JenkinsFixture.progressive($0).contains { $0.textSize == whole && $0.logLength! > whole } })
            server.append("app", number, "files\n")
            server.finish("app", number, "SUCCESS", duration: 62_000)
        }
        #expect(output == """
            > /build app BRANCH=feature/x TARGET=production
            · defaults: DRY_RUN=false
            · waiting: In the quiet period. Expires in 5 sec
            · blocked: Build #0 is already in progress (ETA: 1 min 2 sec)
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

@Suite(.timeLimit(.minutes(3))) struct JenkinsBackgroundTests {
    static func queuePolls(_ id: Int) -> @Sendable ([TestJenkinsServer.Served]) -> Bool {
        { answers in answers.contains { $0.path.hasSuffix("/queue/item/\(id)/api/json") } }
    }

    /// `/build app`, let go (Ctrl-C) while the build waits in the queue, whose polls wait at `gate`.
    static func buildLetGo(_ gate: Gate) async throws -> (TestJenkinsServer, JenkinsHarness) {
        let server = try TestJenkinsServer()
        server.addJob("app")
        server.queuePollGate = gate
        let transcript = try JenkinsHarness(server)
        await transcript.type("/build app") { _ in await transcript.press(.ctrlZ) }
        return (server, transcript)
    }

    @Test func aBuildFinishingInTheBackgroundIsAnnouncedInTheSessionYouAreIn() async throws {
        let gate = Gate()
        defer { gate.open() }
        // Ctrl-C while the build waits in the queue: hark lets go, the build goes on.
        let (server, transcript) = try await Self.buildLetGo(gate)
        gate.open()
        await transcript.type("/session notes")
        await transcript.type("buy milk")
        let id = try #require(server.lastQueueID)
        #expect(await server.until(Self.queuePolls(id)))
        let number = server.start(id)
        server.append("app", number, "+ make test\nhark: compile failed in Parser.swift:12\n")
        server.finish("app", number, "FAILURE", duration: 4_200)
        await transcript.settle()
        await transcript.type("/search Parser.swift")
        await transcript.type("/session ci")
        #expect(transcript.text == """
            > /build app
            ↪ ci goes on in the background; you will hear when it is done
            > /session notes
            > buy milk
            · noted
            ↩ ci · /build app: app #1 FAILURE in 4.2s
            > /search Parser.swift
            \(try Self.searchLine(transcript))
            > /session ci
            1 new reply in ci:
            \(try Self.arrivedLines(transcript))

            """)
        let reply = try #require(try transcript.workspace.store.lastMessage(session: "ci", role: .assistant))
        #expect(reply.text == "Started by user Ann Example\n+ make test\nhark: compile failed in Parser.swift:12\nFinished: FAILURE\n")
        #expect(reply.status == .complete)
    }

    /// How the shell shows the stored console (formatting is the core's, not this kind's).
    static func arrivedLines(_ transcript: JenkinsHarness) throws -> String {
        let message = try #require(try transcript.workspace.store.lastMessage(session: "ci", role: .assistant))
        let session = try transcript.workspace.session(named: "ci")
        return MessageFormatting.document([message], session: session).map { ANSI(enabled: false).render($0) }
            .joined(separator: "\n")
    }

    static func searchLine(_ transcript: JenkinsHarness) throws -> String {
        let hits = try transcript.workspace.store.search("Parser.swift")
        #expect(hits.count == 1, "the console's error line is found")
        return MessageFormatting.searchDocument(hits).map { ANSI(enabled: false).render($0) }.joined(separator: "\n")
    }

    @Test func stopBuildStopsTheBuildThatIsFollowedInTheBackground() async throws {
        let gate = Gate()
        defer { gate.open() }
        let (server, transcript) = try await Self.buildLetGo(gate)
        gate.open()
        let id = try #require(server.lastQueueID)
        let number = server.start(id)
        server.append("app", number, "sleeping\n")
        #expect(await server.until { JenkinsFixture.progressive($0).contains { $0.moreData } })
        await transcript.type("/stop-build")
        await transcript.settle()
        #expect(transcript.text == """
            > /build app
            ↪ ci goes on in the background; you will hear when it is done
            > /stop-build
            asked ci to stop app #1
            ↩ ci · /build app: app #1 ABORTED in 3.1s

            """)
        let reply = try #require(try transcript.workspace.store.lastMessage(session: "ci", role: .assistant))
        #expect(reply.text.hasSuffix("sleeping\nAborted by Ann Example\nFinished: ABORTED\n"))
        #expect(server.answers.contains { $0.method == "POST" && $0.path == "/job/app/1/stop" })
    }

    @Test func stopBuildTakesAQueuedBuildOutOfTheQueue() async throws {
        let gate = Gate()
        defer { gate.open() }
        let (server, transcript) = try await Self.buildLetGo(gate)
        await transcript.type("/stop-build")
        gate.open()
        await transcript.settle()
        #expect(transcript.text == """
            > /build app
            ↪ ci goes on in the background; you will hear when it is done
            > /stop-build
            took app out of the queue (item #40)
            ↩ ci · /build app: app cancelled in the queue

            """)
        #expect(server.answers.contains { $0.method == "POST" && $0.path == "/queue/cancelItem" && $0.query["id"] == "40" })
        #expect(try transcript.workspace.store.lastMessage(session: "ci", role: .assistant)?.text
            == "app: cancelled while waiting in the queue\n")
    }

    @Test func stopBuildByNameStopsABuildStartedElsewhere() async throws {
        let server = try TestJenkinsServer()
        server.addJob("nightly")
        server.startElsewhere("nightly")
        let transcript = try JenkinsHarness(server)
        await transcript.type("/stop-build nightly")
        await transcript.type("/status nightly")
        await transcript.type("/stop-build nightly")
        #expect(transcript.text == """
            > /stop-build nightly
            asked ci to stop nightly #1
            > /status nightly
            ■ nightly #1 ABORTED in 3.1s · \(JenkinsJobsTests.date(1))
            > /stop-build nightly
            hark: nightly has no build running or queued

            """)
    }
}
