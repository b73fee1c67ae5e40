import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// Jenkins as its source behaves where our first fixture did not: console notes in the plain
/// console, parameter defaults as they are exported, folders and multibranch projects,
/// branch names, permissions, colours, and a cancel that comes too late.
@Suite(.timeLimit(.minutes(3))) struct JenkinsRealServerTests {
    @Test func consoleNotesNeverReachTheScreenTheHistoryOrSearch() async throws {
        let server = try TestJenkinsServer()
        server.addPipeline("app")
        let transcript = try JenkinsHarness(server)
        let note = TestJenkinsServer.consoleNote()
        let output = await transcript.type("/build app") { _ in
            #expect(await server.until(JenkinsBackgroundTests.queuePolls(40)))
            let number = server.start(40)
            server.append("app", number, "\(note)[Pipeline] Start of Pipeline\n\(note)[Pipeline] echo\nhello from \(note)the pipeline\(note)\n")
            server.finish("app", number, "SUCCESS", duration: 2_000)
        }
        let console = "Started by user Ann Example\n[Pipeline] Start of Pipeline\n[Pipeline] echo\nhello from the pipeline\nFinished: SUCCESS\n"
        #expect(!output.contains("\u{1B}"))
        #expect(output.contains(console))
        let reply = try #require(try transcript.workspace.store.lastMessage(session: "ci", role: .assistant))
        #expect(reply.text == console, "the history keeps the console as Jenkins' plain text shows it")
        #expect(try transcript.workspace.store.search("\"hello from the pipeline\"").count == 1)
        let log = await transcript.type("/log app #1")
        #expect(log == "> /log app #1\n\(console)app #1 SUCCESS in 2.0s\n")
    }

    @Test func defaultsAreThoseJenkinsExports() async throws {
        let server = try TestJenkinsServer()
        server.addJob("lib")
        server.addBuild("lib", result: "SUCCESS", log: "", duration: 1_000)
        server.addJob("deploy", parameters: [.string("TICKET"), .password("TOKEN"), .run("UPSTREAM", project: "lib", lastBuild: 1)])
        let transcript = try JenkinsHarness(server)
        let job = await transcript.type("/job deploy")
        #expect(job.contains("\n  TICKET    string    default empty\n"))
        #expect(job.contains("\n  TOKEN     password  asked without echo\n"))
        #expect(job.contains("\n  UPSTREAM  run       default lib#1\n"))
        // In a pipe nobody is asked: the empty TICKET, the stored password and the last lib
        // build are Jenkins' defaults, and nothing is sent for them.
        let piped = await transcript.type("/build deploy") { _ in
            #expect(await server.until(JenkinsBackgroundTests.queuePolls(41)))
            server.finish("deploy", server.start(41), "SUCCESS", duration: 1_000)
        }
        #expect(piped.hasPrefix("> /build deploy\n· defaults: TICKET=, TOKEN=(default), UPSTREAM=lib#1\n"))
        #expect(server.parameters("deploy", 1) == [:])
        // The shell asks for the two free texts; Enter keeps the defaults, so `TOKEN=` never
        // overrides the stored password.
        let person = ScriptedInteraction(["", ""])
        transcript.workspace.interaction = person
        await transcript.type("/build deploy") { _ in
            #expect(await server.until(JenkinsBackgroundTests.queuePolls(42)))
            server.finish("deploy", server.start(42), "SUCCESS", duration: 1_000)
        }
        #expect(person.questions.map(\.prompt) == ["TICKET (string; Enter keeps the default): ",
                                                     "TOKEN (password; Enter keeps the default): "])
        #expect(server.parameters("deploy", 2) == [:])
    }

    @Test func aMissingPermissionIsNamed() async throws {
        let server = try TestJenkinsServer()
        server.addJob("app")
        server.denyBuild("app")
        let transcript = try JenkinsHarness(server)
        #expect(await transcript.type("/build app") == "> /build app\nhark: ann may not do this on 127.0.0.1:\(server.http.port): "
            + "the Job/Build permission is missing (hudson.model.Item.Build); ask a Jenkins admin to grant it\n")
    }

    @Test func foldersAndMultibranchProjectsNameWhatCanBeBuilt() async throws {
        let server = try TestJenkinsServer()
        server.addJob("team/api")
        server.addJob("team/web")
        server.addMultibranch("shop", branches: ["main", "feature/login"])
        server.addJob("legacy")
        server.setColor("legacy", "grey")
        let transcript = try JenkinsHarness(server)
        await transcript.type("/jobs")
        await transcript.type("/build team")
        await transcript.type("/build shop")
        #expect(transcript.text == """
            > /jobs
            ·  team/api            not built
            ·  team/web            not built
            ·  shop/main           not built
            ·  shop/feature/login  not built
            ·  legacy              not built
            > /build team
            hark: team is a folder; name one of its jobs: team/api, team/web
            > /build shop
            hark: shop is a multibranch project; name one of its branches: shop/main, shop/feature/login

            """)
        #expect(!server.answers.contains { $0.method == "POST" }, "no branch scan was started")
        // A branch is typed and shown as its name; its URL is NameEncoder's.
        let built = await transcript.type("/build shop/feature/login") { _ in
            #expect(await server.until(JenkinsBackgroundTests.queuePolls(40)))
            server.finish("shop/feature%2Flogin", server.start(40), "SUCCESS", duration: 1_000)
        }
        #expect(built.contains("· started shop/feature/login #1\n"))
        #expect(built.hasSuffix("» shop/feature/login #1 SUCCESS in 1.0s\n"))
        #expect(server.answers.contains { $0.method == "POST" && $0.path == "/job/shop/job/feature%252Flogin/build" })
    }

    @Test func aCancelThatArrivesAfterTheStartOffersToStopTheBuild() async throws {
        let server = try TestJenkinsServer()
        server.addJob("app")
        let transcript = try JenkinsHarness(server)
        let id = server.enqueue("app")
        server.startsBeforeCancel = true
        let output = await transcript.type("/stop-build app")
        #expect(output == "> /stop-build app\napp #1 had already started when the cancel reached the queue; /stop-build app #1 stops it\n")
        #expect(server.answers.contains { $0.path == "/queue/cancelItem" && $0.query["id"] == String(id) && $0.status == 500 })
        #expect(await transcript.type("/stop-build app #1") == "> /stop-build app #1\nasked ci to stop app #1\n")
    }
}
