import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// What users of a Jenkins client expect beyond starting builds: a Pipeline's stages while the
/// console streams, its input steps answered from hark, archived files, test results and
/// favourite jobs.
@Suite(.timeLimit(.minutes(3))) struct JenkinsPipelineTests {
    static func describedAs(_ stages: String) -> @Sendable ([TestJenkinsServer.Served]) -> Bool {
        { answers in answers.contains { $0.stages == stages } }
    }

    @Test func stagesStreamWithTheConsoleAndAPausedPipelineIsApprovedFromHark() async throws {
        let server = try TestJenkinsServer()
        server.addPipeline("deploy")
        let transcript = try JenkinsHarness(server)
        let number = 1
        let output = await transcript.type("/build deploy") { _ in
            #expect(await server.until(JenkinsBackgroundTests.queuePolls(40)))
            server.start(40)
            server.setStages("deploy", number, [TestJenkinsStage("Build", "IN_PROGRESS")])
            #expect(await server.until(Self.describedAs("Build:IN_PROGRESS")))
            server.append("deploy", number, "+ make\n")
            server.setStages("deploy", number, [TestJenkinsStage("Build", "SUCCESS", 5_200), TestJenkinsStage("Deploy", "IN_PROGRESS")])
            #expect(await server.until(Self.describedAs("Build:SUCCESS,Deploy:IN_PROGRESS")))
            server.pauseForInput("deploy", number, message: "Deploy to production?")
            #expect(await server.until { $0.contains { $0.path.hasSuffix("/wfapi/pendingInputActions") } })
            let note = TestJenkinsServer.consoleNote()
            let whole = "Started by user Ann Example\n+ make\nDeploy to production?\n\(note)Proceed\(note) or \(note)Abort\(note)\n".utf8.count
            // The follower asks for the console again only once it has announced the input, and
            // a second time only once it has shown what the first answer brought.
            #expect(await server.until { answers in
                guard let asked = answers.firstIndex(where: { $0.path.hasSuffix("/wfapi/pendingInputActions") }) else { return false }
                return answers[(asked + 1)...].filter { $0.path.hasSuffix("/logText/progressiveText") && $0.textSize == whole }.count >= 2
            })
            await transcript.press(.ctrlZ)
        }
        #expect(output.contains("· stages ⟳ Build\n"))
        #expect(output.contains("· stages ✓ Build 5.2s · ⟳ Deploy\n"))
        #expect(output.contains("· stages ✓ Build 5.2s · ⏸ Deploy\n"))
        #expect(output.contains("Deploy to production?\nProceed or Abort\n"), "the input's console notes are gone")
        #expect(output.contains("» deploy #1 waits for input: Deploy to production? (/approve deploy #1 proceeds, /abort deploy #1 stops it)\n"))

        let approved = await transcript.type("/approve")
        #expect(approved == "> /approve\ndeploy #1 Proceed: Deploy to production?\n")
        #expect(server.pendingInputs("deploy", number) == 0)
        #expect(server.answers.contains { $0.method == "POST" && $0.path.hasSuffix("/1/input/Ef95dd500ae6ed3b27b89fb852296d10/proceedEmpty") })
        server.setStages("deploy", number, [TestJenkinsStage("Build", "SUCCESS", 5_200), TestJenkinsStage("Deploy", "SUCCESS", 1_000)])
        server.finish("deploy", number, "SUCCESS", duration: 7_000)
        await transcript.settle()
        #expect(transcript.text.hasSuffix("↩ ci · /build deploy: deploy #1 SUCCESS in 7.0s\n"))
        let stages = await transcript.type("/stages deploy #1")
        #expect(stages == """
            > /stages deploy #1
            deploy #1 stages
              ✓  Build   success  5.2s
              ✓  Deploy  success  1.0s

            """)
    }

    @Test func anInputWithParametersIsAnsweredWithThemAndAbortEndsTheBuild() async throws {
        let server = try TestJenkinsServer()
        server.addPipeline("release")
        server.startElsewhere("release")
        server.startElsewhere("release")
        server.pauseForInput("release", 1, message: "Which environment?", ok: "Ship it",
                             parameters: [.choice("ENV", ["staging", "production"]), .boolean("NOTIFY", default: true)])
        server.pauseForInput("release", 2, message: "Go on?")
        let transcript = try JenkinsHarness(server)
        #expect(await transcript.type("/approve release #1 ENV=prod")
            == "> /approve release #1 ENV=prod\nhark: ENV must be one of staging, production, not \"prod\"\n")
        #expect(await transcript.type("/approve release #1 ENV=production")
            == "> /approve release #1 ENV=production\nrelease #1 Ship it: Which environment?\n")
        let form = try #require(server.inputAnswers("release", 1).first)
        let submitted = try JSON.parse(Array((form["json"] ?? "").utf8))
        #expect(submitted["parameter"]?.array?.map { "\($0["name"]?.string ?? "")=\($0["value"]?.text ?? "")" }
            == ["ENV=production", "NOTIFY=true"])
        #expect(await transcript.type("/abort release #2") == "> /abort release #2\nrelease #2 aborted at: Go on?\n")
        #expect(await transcript.type("/status release") == "> /status release\n■ release #2 ABORTED in 4.2s · "
            + TimeFormat.short(Date(timeIntervalSince1970: (TestJenkinsServer.epoch + 2 * 3_600_000) / 1000)) + "\n")
        #expect(await transcript.type("/approve release #2") == "> /approve release #2\nhark: release #2 is not waiting for input\n")
    }

    @Test func artifactsAreListedAndDownloaded() async throws {
        let server = try TestJenkinsServer()
        server.addJob("app")
        server.addBuild("app", result: "SUCCESS", log: "ok\n", duration: 1_000)
        let bytes = (0..<70_000).map { UInt8($0 % 251) }
        server.archive("app", 1, "dist/app.tar.gz", bytes)
        server.archive("app", 1, "report.txt", Array("all good\n".utf8))
        let transcript = try JenkinsHarness(server)
        let folder = TemporaryDirectory("hark-artifacts")
        let listed = await transcript.type("/artifacts app")
        #expect(listed == "> /artifacts app\napp #1 artifacts\n  dist/app.tar.gz\n  report.txt\n/download NAME [PATH] saves one\n")
        let saved = await transcript.type("/download app.tar.gz \(folder.path)")
        #expect(saved == "> /download app.tar.gz \(folder.path)\nsaved dist/app.tar.gz of app #1 (68.4 KB) to \(folder.path)/app.tar.gz\n")
        #expect(FileManager.default.contents(atPath: folder.path + "/app.tar.gz") == Data(bytes))
        #expect(await transcript.type("/download nothing.zip") == "> /download nothing.zip\nhark: app #1 has no artifact nothing.zip; /artifacts lists them\n")
        #expect(Completion.complete(line: "/download rep", workspace: transcript.workspace).candidates == ["report.txt"])
    }

    @Test func testResultsAreSummedUpAndShownAtTheEndOfABuild() async throws {
        let server = try TestJenkinsServer()
        server.addJob("app")
        server.addBuild("app", result: "SUCCESS", log: "ok\n", duration: 1_000)
        server.recordTests("app", 1, [
            TestJenkinsCase("com.acme.CartTest", "addsItems", "PASSED"), TestJenkinsCase("com.acme.CartTest", "removesItems", "PASSED"),
            TestJenkinsCase("com.acme.CartTest", "totals", "REGRESSION", "expected:<12> but was:<13>\n\tat CartTest.java:40"),
            TestJenkinsCase("com.acme.PayTest", "refunds", "FAILED", "timeout"), TestJenkinsCase("com.acme.PayTest", "slow", "SKIPPED"),
        ])
        let transcript = try JenkinsHarness(server)
        #expect(await transcript.type("/tests app") == """
            > /tests app
            app #1 tests: 2 failed, 2 passed, 1 skipped
              ✗ com.acme.CartTest.totals: expected:<12> but was:<13>
              ✗ com.acme.PayTest.refunds: timeout

            """)
        #expect(await transcript.type("/tests app #1").contains("2 failed"))
        server.addJob("lib")
        server.addBuild("lib", result: "SUCCESS", log: "", duration: 1_000)
        #expect(await transcript.type("/tests lib") == "> /tests lib\nlib #1 recorded no test results\n")

        let id = server.nextQueueItem
        let built = await transcript.type("/build app") { _ in
            #expect(await server.until(JenkinsBackgroundTests.queuePolls(id)))
            let number = server.start(id)
            server.recordTests("app", number, [TestJenkinsCase("com.acme.CartTest", "totals", "FAILED"),
                                               TestJenkinsCase("com.acme.CartTest", "addsItems", "PASSED")])
            server.finish("app", number, "UNSTABLE", duration: 3_000)
        }
        #expect(built.hasSuffix("» app #2 UNSTABLE in 3.0s · tests: 1 failed, 1 passed\n"))
    }

    @Test func favouritesAreListedFirstAndKeptInTheConfig() async throws {
        let server = try TestJenkinsServer()
        server.addJob("app")
        server.addJob("team/api")
        server.addJob("team/web")
        let transcript = try JenkinsHarness(server)
        await transcript.type("/fav team/web")
        await transcript.type("/fav api")
        await transcript.type("/jobs")
        await transcript.type("/unfav team/web")
        await transcript.type("/fav")
        #expect(transcript.text == """
            > /fav team/web
            ★ team/web is a favourite: /jobs lists it first
            > /fav api
            ★ team/api is a favourite: /jobs lists it first
            > /jobs
            ★  ·  team/web  not built
            ★  ·  team/api  not built
               ·  app       not built
            > /unfav team/web
            team/web is no longer a favourite
            > /fav
            ★ team/api

            """)
        let config = try String(contentsOfFile: transcript.home.paths.configFile, encoding: .utf8)
        #expect(config.contains("favourites = team/api\n"))
    }
}
