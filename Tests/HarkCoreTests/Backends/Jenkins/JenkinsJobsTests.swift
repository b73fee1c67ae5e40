import Foundation
import Testing
import TestSupport
@testable import HarkCore

@Suite(.timeLimit(.minutes(3))) struct JenkinsJobsTests {
    static func server() throws -> TestJenkinsServer {
        let server = try TestJenkinsServer(contextPath: "/jenkins")
        server.addJob("app", description: "Builds <b>the app</b>\nfrom a branch.",
                      parameters: [.string("BRANCH", default: "main", description: "Branch to build"),
                                   .choice("TARGET", ["staging", "production"]), .boolean("DRY_RUN"),
                                   .password("TOKEN", description: "Deploy token")])
        server.addJob("team/api")
        server.addJob("team/web/main")
        server.addJob("old", disabled: true)
        server.addBuild("app", result: "SUCCESS", log: "ok\n", duration: 62_000)
        server.addBuild("app", result: "FAILURE", log: "error: 3 tests failed\n", duration: 12_500)
        server.addBuild("team/api", result: "UNSTABLE", log: "flaky\n", duration: 3_000)
        return server
    }

    static func date(_ number: Int) -> String {
        TimeFormat.short(Date(timeIntervalSince1970: (TestJenkinsServer.epoch + Double(number) * 3_600_000) / 1000))
    }

    @Test func jobsAreListedWithFoldersStatusAndAFilter() async throws {
        let server = try Self.server()
        let transcript = try JenkinsHarness(server)
        await transcript.type("/jobs")
        await transcript.type("/jobs TEAM")
        await transcript.type("/jobs nothing")
        #expect(transcript.text == """
            > /jobs
            ✗  app            failing
            !  team/api       unstable
            ·  team/web/main  not built
            ⊘  old            disabled
            > /jobs TEAM
            !  team/api       unstable
            ·  team/web/main  not built
            2 of 4 jobs
            > /jobs nothing
            no job matches "nothing" (4 jobs in all)

            """)
        // The list was asked for once (5-minute cache), under the server's context path.
        #expect(server.answers.filter { $0.path == "/jenkins/api/json" }.count == 1)
        #expect(server.answers.first?.query["tree"]?.hasPrefix("jobs[name,color,_class,jobs[name,color,_class,jobs[") == true)
    }

    @Test func aJobShowsItsDescriptionParametersAndBuilds() async throws {
        let server = try Self.server()
        let transcript = try JenkinsHarness(server)
        let output = await transcript.type("/job app")
        #expect(output == """
            > /job app
            app  ✗ failing
            Builds the app from a branch.
            parameters
              BRANCH   string    default main        Branch to build
              TARGET   choice    default staging     staging | production
              DRY_RUN  boolean   default false
              TOKEN    password  asked without echo  Deploy token
            builds
              #2  ✗ FAILURE  12.5s  \(Self.date(2))
              #1  ✓ SUCCESS  1m02s  \(Self.date(1))

            """)
    }

    @Test func plainLinesAreCommandsInWords() async throws {
        let server = try Self.server()
        let transcript = try JenkinsHarness(server)
        await transcript.type("status app")
        await transcript.type("status api")
        await transcript.type("status team/web/main")
        await transcript.type("api")
        await transcript.type("ap")
        await transcript.type("how do I deploy?")
        #expect(transcript.text == """
            > status app
            ✗ app #2 FAILURE in 12.5s · \(Self.date(2))
            > status api
            ! team/api #1 UNSTABLE in 3.0s · \(Self.date(1))
            > status team/web/main
            · team/web/main has not been built
            > api
            team/api  ! unstable
            builds
              #1  ! UNSTABLE  3.0s  \(Self.date(1))
            > ap
            hark: no job "ap" on ci; did you mean app? (\(TypedCommands.explanation))
            > how do I deploy?
            hark: \(TypedCommands.explanation)

            """)
        // Nothing typed here was stored as a message: they were commands, or explained.
        #expect(try transcript.workspace.store.currentThread(session: "ci") == nil)
    }

    @Test func infoShowsTheServerVersionAndWhoYouAre() async throws {
        let server = try Self.server()
        let transcript = try JenkinsHarness(server)
        let output = await transcript.type("/info")
        #expect(output.contains("jenkins  \(TestJenkinsServer.version)\n"))
        #expect(output.contains("user     ann\n"))
        #expect(output.contains("auth     basic:ann:(literal)\n"))
        #expect(!output.contains(TestJenkinsServer.token))
    }

    @Test func statesAreCachedForThirtySecondsAndRefreshAsksAgain() async throws {
        let server = try Self.server()
        // The cache's time stands still: on a loaded run the real 30 s passed between the two
        // `/status` and the state was fetched again. Waits still take real time.
        let started = Date()
        let clock = HarkClock(now: { started }, sleep: HarkClock.system.sleep, uptime: HarkClock.system.uptime)
        let transcript = try JenkinsHarness(server, clock: clock)
        func jobAsks() -> Int { server.answers.filter { $0.path == "/jenkins/job/app/api/json" }.count }
        await transcript.type("/status app")
        await transcript.type("/job app")
        #expect(jobAsks() == 1)
        server.addBuild("app", result: "SUCCESS", log: "fixed\n", duration: 1_000)
        let stale = await transcript.type("/status app")
        #expect(stale.contains("#2 FAILURE"))
        await transcript.type("/refresh")
        let fresh = await transcript.type("/status app")
        #expect(fresh.contains("✓ app #3 SUCCESS in 1.0s"))
        #expect(jobAsks() == 2)
        #expect(Completion.complete(line: "/build te", workspace: transcript.workspace).candidates == [],
                "Tab knows no names before a job list (and never asks the server)")
        await transcript.type("/jobs")
        #expect(Completion.complete(line: "/build te", workspace: transcript.workspace).candidates == ["team/api", "team/web/main"])
    }

    @Test func theQueueListsWaitingAndBlockedItems() async throws {
        let server = try Self.server()
        let transcript = try JenkinsHarness(server)
        let gate = Gate()
        server.queuePollGate = gate
        defer { gate.open() }
        await transcript.type("/queue")
        await transcript.type("/build team/api") { _ in await transcript.press(.ctrlZ) }
        await transcript.type("/build app TARGET=staging TOKEN=env:HOME") { _ in await transcript.press(.ctrlZ) }
        let id = try #require(server.lastQueueID)
        server.setWhy(id, "Build #2 is already in progress (ETA: 1 min)", blocked: true)
        let output = await transcript.type("/queue")
        #expect(output == """
            > /queue
            #\(id - 1)  team/api  waiting  In the quiet period. Expires in 5 sec
            #\(id)  app       blocked  Build #2 is already in progress (ETA: 1 min)

            """)
        #expect(transcript.text.hasPrefix("> /queue\nthe queue is empty\n"))
        for job in transcript.workspace.runningJobs { job.stop() }
    }

    @Test func otherSessionsReachJenkinsWithAtAndRetryBuildsAgain() async throws {
        let server = try Self.server()
        server.addJob("deploy", parameters: [.run("TICKET", project: "lib", lastBuild: nil)])
        let transcript = try JenkinsHarness(server)
        try transcript.workspace.switchSession(to: "notes")
        await transcript.type("@ci status app")
        await transcript.type("@ci build deploy")
        await transcript.type("@ci hello")
        #expect(transcript.text == """
            > @ci status app
            ci ›
            ✗ app #2 FAILURE in 12.5s · \(Self.date(2))
            > @ci build deploy
            ci ›
            hark: deploy needs TICKET (run); add TICKET=VALUE
            > @ci hello
            ci ›
            hark: \(TypedCommands.explanation)

            """)
        try transcript.workspace.switchSession(to: "ci")
        let id = server.nextQueueItem
        await transcript.type("/build deploy TICKET=lib#1") { _ in
            #expect(await server.until(JenkinsBackgroundTests.queuePolls(id)))
            server.finish("deploy", server.start(id), "SUCCESS", duration: 1_000)
        }
        let again = await transcript.type("/retry") { _ in
            #expect(await server.until(JenkinsBackgroundTests.queuePolls(id + 1)))
            server.finish("deploy", server.start(id + 1), "SUCCESS", duration: 2_000)
        }
        #expect(again.hasSuffix("Finished: SUCCESS\n» deploy #2 SUCCESS in 2.0s\n"))
        #expect(server.parameters("deploy", 2) == ["TICKET": "lib#1"])
    }
}
