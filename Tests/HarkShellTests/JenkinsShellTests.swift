import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// A Jenkins session in the real binary and a real terminal: a parameter asked for (the
/// password without echo), the console streamed as it is (no Markdown), Ctrl-C detaching,
/// the notice at the prompt of another session, and a long log in the pager.
@Suite(.enabled(if: TerminalDriver.isAvailable, "needs tmux; scripts/setup.sh --test installs it"), .timeLimit(.minutes(3)))
struct JenkinsShellTests {
    @Test func aBuildFollowedThenLeftToFinishInTheBackground() async throws {
        let server = try TestJenkinsServer()
        server.addJob("deploy", parameters: [.string("TICKET"), .password("TOKEN")])
        server.addJob("big")
        server.addBuild("big", result: "SUCCESS", log: (1...80).map { "line \($0) of the big log\n" }.joined(), duration: 1_000)
        let home = TestHome(config: "[hark]\ndefault = ci\n\n[session ci]\nkind = jenkins\nurl = \(server.url)\n"
            + "auth = basic:ann:\(TestJenkinsServer.token)\npoll_interval = 0.02\n\n[session notes]\nkind = local\n")
        let terminal = try home.terminal(colors: true)

        try await terminal.waitFor(text: "ci ›")
        try terminal.enter("build deploy")
        try await terminal.waitFor(text: "TICKET (string; Enter keeps the default): ")
        try terminal.enter("CHG-9")
        try await terminal.waitFor(text: "TOKEN (password; Enter keeps the default): ")
        try terminal.enter("zebra-42")
        try await terminal.waitFor(text: "waiting: In the quiet period")
        #expect(try !terminal.screen().contains("zebra-42"), "the password is not echoed")

        let number = server.start(try #require(server.lastQueueID))
        server.append("deploy", number, "+ make deploy **now**\n")
        try await terminal.waitFor(text: "+ make deploy **now**")

        try terminal.press("C-c")
        try await terminal.waitFor(text: "ci goes on in the background")
        try terminal.enter("/session notes")
        try await terminal.waitFor(text: "notes ›")
        server.finish("deploy", number, "SUCCESS", duration: 65_000)
        try await terminal.waitFor(text: "↩ ci · /build deploy TICKET=CHG-9 TOKEN=***: deploy #1 SUCCESS in 1m05s")
        #expect(server.parameters("deploy", number) == ["TICKET": "CHG-9", "TOKEN": "zebra-42"])
        // What arrived is shown as the console was, not as Markdown.
        try terminal.enter("/session ci")
        try await terminal.waitFor(text: "1 new reply in ci:")
        try await terminal.waitFor(text: "\n+ make deploy **now**\nFinished: SUCCESS")

        // A finished log longer than the screen opens in the pager; q returns to the prompt.
        try terminal.enter("/log big")
        try await terminal.waitFor("the log in less") { $0.contains("line 1 of the big log") && !$0.contains("line 80 of") }
        try terminal.press("q")
        try await terminal.waitFor("the prompt after the pager") {
            $0.contains("› /log big\n") && $0.trimmingCharacters(in: .whitespacesAndNewlines).hasSuffix("›")
        }
        try terminal.press("C-d")
        #expect(try await terminal.waitForExit() == 0)

        let store = try HistoryStore(path: home.paths.historyDatabase)
        let reply = try #require(try store.lastMessage(session: "ci", role: .assistant))
        #expect(reply.text == "Started by user Ann Example\n+ make deploy **now**\nFinished: SUCCESS\n",
                "the console kept in the background; the paged log is not recorded")
        #expect(try store.search("zebra").isEmpty)
        #expect(!(try store.inputHistory(session: "ci").joined().contains("zebra")))
    }

    /// `@ci build app` from another session follows the build the same way: Ctrl-C leaves it
    /// running, and its end is announced.
    @Test func aBuildStartedWithAtDetachesOnCtrlC() async throws {
        let server = try TestJenkinsServer()
        server.addJob("app")
        let home = TestHome(config: "[hark]\ndefault = notes\n\n[session ci]\nkind = jenkins\nurl = \(server.url)\n"
            + "auth = basic:ann:\(TestJenkinsServer.token)\npoll_interval = 0.02\n\n[session notes]\nkind = local\n")
        let terminal = try home.terminal()

        try await terminal.waitFor(text: "notes ›")
        try terminal.enter("@ci build app")
        try await terminal.waitFor(text: "waiting: In the quiet period")
        let number = server.start(try #require(server.lastQueueID))
        server.append("app", number, "+ make app\n")
        try await terminal.waitFor(text: "+ make app")

        try terminal.press("C-c")
        try await terminal.waitFor(text: "ci goes on in the background")
        server.finish("app", number, "SUCCESS", duration: 2_000)
        try await terminal.waitFor(text: "app #\(number) SUCCESS")
        #expect(try terminal.screen().contains("notes ›"))
        try terminal.press("C-d")
        #expect(try await terminal.waitForExit() == 0)

        let store = try HistoryStore(path: home.paths.historyDatabase)
        let reply = try #require(try store.lastMessage(session: "ci", role: .assistant))
        #expect(reply.text.hasSuffix("+ make app\nFinished: SUCCESS\n"), "followed to the end in the background")
    }
}
