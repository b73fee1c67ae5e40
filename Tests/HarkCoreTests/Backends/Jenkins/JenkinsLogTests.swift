import Foundation
import Testing
import TestSupport
@testable import HarkCore

@Suite(.timeLimit(.minutes(3))) struct JenkinsLogTests {
    @Test func aFinishedBuildsConsoleIsPagedWholeEvenGzipped() async throws {
        let server = try TestJenkinsServer()
        server.addJob("app")
        let long = (1...300).map { "step \($0): compiling module number \($0)\n" }.joined()
        server.addBuild("app", result: "SUCCESS", log: "short\n", duration: 2_000)
        server.addBuild("app", result: "FAILURE", log: long, duration: 75_000)
        let transcript = try JenkinsHarness(server)
        let newest = await transcript.type("/log app")
        #expect(newest == "> /log app\n" + long + "Finished: FAILURE\napp #2 FAILURE in 1m15s\n")
        // Over 4 KB, Jenkins gzips the answer; the byte offsets are of the log, not the body.
        let answer = try #require(JenkinsFixture.progressive(server.answers).last)
        #expect(answer.gzip)
        #expect(answer.textSize == long.utf8.count + "Finished: FAILURE\n".utf8.count)
        let first = await transcript.type("/log #1")
        #expect(first == "> /log #1\nshort\nFinished: SUCCESS\napp #1 SUCCESS in 2.0s\n", "the job named last is the default")
        let missing = await transcript.type("/log app #9")
        #expect(missing == "> /log app #9\nhark: app has no build #9\n")
        // A finished console is read, not recorded again.
        #expect(try transcript.workspace.store.currentThread(session: "ci") == nil)
    }

    @Test func aRunningBuildsLogIsFollowedAndTypedAsLogApp() async throws {
        let server = try TestJenkinsServer()
        server.addJob("app")
        let number = server.startElsewhere("app")
        server.append("app", number, "half way\n")
        let transcript = try JenkinsHarness(server)
        let output = await transcript.type("log app") { _ in
            #expect(await server.until { JenkinsFixture.progressive($0).contains { $0.moreData } })
            server.append("app", number, "done\n")
            server.finish("app", number, "SUCCESS", duration: 90_000)
        }
        #expect(output == """
            > log app
            Started by user Ann Example
            half way
            done
            Finished: SUCCESS
            » app #1 SUCCESS in 1m30s

            """)
        let messages = try transcript.workspace.store.messages(threadID: try #require(try transcript.workspace.currentThread()).id)
        #expect(messages.map(\.text).first == "/log app #1")
    }

    @Test func aLogReplacedUnderneathIsShownAgainFromTheStart() async throws {
        let server = try TestJenkinsServer()
        server.addJob("app")
        let transcript = try JenkinsHarness(server)
        let output = await transcript.type("build app") { _ in
            #expect(await server.until(JenkinsBackgroundTests.queuePolls(40)))
            let number = server.start(40)
            server.append("app", number, "line A\nline B\n")
            let offset = "Started by user Ann Example\nline A\nline B\n".utf8.count
            #expect(await server.until { JenkinsFixture.progressive($0).contains { $0.textSize == offset } })
            // Shorter than what hark has read: Jenkins answers the next poll from byte 0.
            server.replaceLog("app", number, with: "replayed\n")
            #expect(await server.until { JenkinsFixture.progressive($0).contains { ($0.textSize ?? 0) < offset } })
            server.finish("app", number, "SUCCESS", duration: 2_000)
        }
        #expect(output == """
            > build app
            · waiting: In the quiet period. Expires in 5 sec
            · started app #1
            Started by user Ann Example
            line A
            line B
            · the console log was replaced; showing it again from the start
            replayed
            Finished: SUCCESS
            » app #1 SUCCESS in 2.0s

            """)
        let restart = try #require(JenkinsFixture.progressive(server.answers).first { ($0.textSize ?? 0) < 40 && $0.query["start"] != "0" })
        #expect(Int(restart.query["start"] ?? "") ?? 0 > restart.textSize ?? 0)
    }

    @Test func aQueueItemThatExpiredIsFoundThroughTheJobsBuilds() async throws {
        let server = try TestJenkinsServer()
        server.addJob("app")
        let transcript = try JenkinsHarness(server)
        let output = await transcript.type("/build app") { _ in
            #expect(await server.until(JenkinsBackgroundTests.queuePolls(40)))
            let number = server.start(40)
            server.expire(40)
            server.finish("app", number, "SUCCESS", duration: 500)
        }
        #expect(output.hasSuffix("· started app #1\nStarted by user Ann Example\nFinished: SUCCESS\n» app #1 SUCCESS in 0.5s\n"))
        #expect(server.answers.contains { $0.path == "/job/app/api/json" && $0.query["tree"]?.hasPrefix("builds[number,queueId]") == true })
    }
}
