import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// Work that goes on after the shell exits, with the real binary, the test Jenkins server and
/// the official A2A SDK's server: followed at exit, its end recorded by `hark watch` (once,
/// never twice), listed unread by `hark inbox`, a task's end brought by push notification
/// (and a push with a wrong token refused), or by resubscribing when the agent has no push.
@Suite(.enabled(if: TerminalDriver.isAvailable, "needs tmux; scripts/setup.sh --test installs it"), .timeLimit(.minutes(3)))
struct FollowedWorkTests {
    func hark(_ arguments: [String], _ home: TestHome) async throws -> HarkRun { try await HarkRun.run(arguments, home.environment) }

    @Test func aBuildLeftRunningAtExitIsRecordedOnceByHarkWatch() async throws {
        let server = try TestJenkinsServer()
        server.addJob("app")
        let home = TestHome(config: "[hark]\ndefault = ci\n\n[session ci]\nkind = jenkins\nurl = \(server.url)\n"
            + "auth = basic:ann:\(TestJenkinsServer.token)\npoll_interval = 0.02\n")
        let terminal = try home.terminal()
        try await terminal.waitFor(text: "ci ›")
        try terminal.enter("build app")
        try await terminal.waitFor(text: "waiting: In the quiet period")
        let number = server.start(try #require(server.lastQueueID))
        server.append("app", number, "+ make app\n")
        try await terminal.waitFor(text: "+ make app")
        try terminal.press("C-z")
        try await terminal.waitFor(text: "goes on in the background")
        try terminal.press("C-d")
        try await terminal.waitFor(text: "followed after exit (hark watch records how it ends): ci · app #1")
        #expect(try await terminal.waitForExit() == 0)

        let early = try await hark(["watch", "--once"], home)
        #expect(early.status == 1, "still running: \(early.output)")
        #expect(early.stdout == "1 still running\n")

        server.append("app", number, "+ make test\n")
        server.finish("app", number, "SUCCESS", duration: 4_000)
        let watched = try await hark(["watch", "--once"], home)
        #expect(watched.status == 0, "\(watched.output)")
        #expect(watched.stdout == "recorded: ci · app #1 SUCCESS in 4.0s\n")

        let inbox = try await hark(["inbox", "--json"], home)
        let items = try inbox.stdout.split(separator: "\n").map { try JSON.parse(String($0)) }
        #expect(items.count == 1, "\(inbox.output)")
        #expect(items.first?["first_line"]?.string == "app #1 SUCCESS in 4.0s")
        #expect(items.first?["kind"]?.string == "build")
        #expect(items.first?["read"]?.bool == false)
        #expect(try await hark(["inbox", "--count"], home).stdout == "1\n")

        let again = try await hark(["watch", "--once"], home)
        #expect(again.status == 0)
        #expect(again.stdout.isEmpty, "nothing new: \(again.output)")
        let store = try HistoryStore(path: home.paths.historyDatabase)
        let replies = try store.inbox(all: true).filter { $0.message.text.contains("app #1 SUCCESS") }
        #expect(replies.count == 1, "recorded once")
        #expect(replies.first?.message.text.hasSuffix("+ make app\n+ make test\nFinished: SUCCESS\n") == true,
                "the end of the console: \(replies.first?.message.text ?? "")")

        // Opening it reads it; the next shell's banner then has nothing to say about it.
        let opened = try await hark(["inbox", String(try #require(replies.first).message.id)], home)
        #expect(opened.stdout.contains("app #1 SUCCESS in 4.0s"))
        #expect(try await hark(["inbox", "--count"], home).stdout == "0\n")
    }

    @Test func aTaskSentWithPushURLEndsByPushAndAWrongTokenChangesNothing() async throws {
        let agent = try await TestA2AAgent.shared()
        let home = TestHome(config: "[hark]\ndefault = agent\n\n[session agent]\nkind = a2a\nurl = \(agent.url("push"))\n")
        let watch = try ChildProcess([BuiltProducts.hark, "watch", "--listen", "127.0.0.1:0"], environment: home.environment)
        defer { watch.signal(SIGTERM) }
        try await watch.waitFor(stdout: "/\n")
        let listening = try #require(watch.stdout.split(separator: "\n").first { $0.hasPrefix("listening for push notifications on ") })
        let pushURL = String(listening.dropFirst("listening for push notifications on ".count))
        try ("[hark]\ndefault = agent\n\n[session agent]\nkind = a2a\nurl = \(agent.url("push"))\npush_url = \(pushURL)\n")
            .write(toFile: home.paths.configFile, atomically: true, encoding: .utf8)

        let terminal = try home.terminal()
        try await terminal.waitFor(text: "agent ›")
        try terminal.enter("later push")
        try await terminal.waitFor(text: "started,")  // the space after it waits for the next word
        try terminal.press("C-z")
        try await terminal.waitFor(text: "goes on in the background")
        try terminal.press("C-d")
        try await terminal.waitFor(text: "followed after exit")
        #expect(try await terminal.waitForExit() == 0)

        let store = try HistoryStore(path: home.paths.historyDatabase)
        let work = try #require(try store.followedWork().first)
        let taskID = try #require(work.key)
        #expect(work.pushToken?.count == 64)
        let pushedSoFar = try store.updates(workID: work.id).count
        // Someone who does not hold the token: refused, nothing stored or recorded.
        let forged: JSON = ["statusUpdate": ["taskId": .string(taskID), "status": ["state": "TASK_STATE_COMPLETED"]]]
        for headers in [[("X-A2A-Notification-Token", "not-the-token")], []] {
            let answer = try await HTTPClient().fetch(.json(url: pushURL, body: forged, headers: headers), retry: .never)
            #expect(answer.status == 401)
        }
        #expect(try store.updates(workID: work.id).count == pushedSoFar)
        #expect(try store.followedWork().count == 1)

        let released = try await HTTPClient().fetch(.json(url: agent.baseURL + "/release?task=" + taskID, body: [:]), retry: .never)
        #expect(released.status == 200, "\(released.text)")
        try await watch.waitFor(stdout: "recorded: agent · task completed: started, finished later")
        #expect(try store.followedWork().isEmpty)
        let reply = try #require(try store.messages(threadID: work.threadID).last)
        #expect(reply.role == .assistant)
        #expect(reply.text == "started, finished later")
        #expect(reply.backendID == taskID)
        #expect(try store.updates(workID: work.id).count > pushedSoFar, "the agent's pushes were stored first")
        #expect(try await agent.taskState("push", id: taskID) == "TASK_STATE_COMPLETED")
    }

    @Test func withoutPushHarkWatchResubscribes() async throws {
        let agent = try await TestA2AAgent.shared()
        let home = TestHome(config: "[hark]\ndefault = agent\n\n[session agent]\nkind = a2a\nurl = \(agent.url("echo"))\n")
        let terminal = try home.terminal()
        try await terminal.waitFor(text: "agent ›")
        try terminal.enter("later resubscribed")
        try await terminal.waitFor(text: "started,")  // the space after it waits for the next word
        try terminal.press("C-z")
        try await terminal.waitFor(text: "goes on in the background")
        try terminal.press("C-d")
        try await terminal.waitFor(text: "followed after exit")
        #expect(try await terminal.waitForExit() == 0)

        // GetTask alone leaves it working (this agent goes on only once someone resubscribes).
        let once = try await hark(["watch", "--once"], home)
        #expect(once.status == 1, "\(once.output)")
        let watch = try ChildProcess([BuiltProducts.hark, "watch"], environment: home.environment)
        try await watch.waitFor(stdout: "recorded: agent · task completed: started, finished later")
        watch.signal(SIGTERM)
        #expect(try await watch.waitForExit() == 143)
        let store = try HistoryStore(path: home.paths.historyDatabase)
        #expect(try store.followedWork().isEmpty)
        #expect(try store.inbox().last?.message.text == "started, finished later")
    }
}
