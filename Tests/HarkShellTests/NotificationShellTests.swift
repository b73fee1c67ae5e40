import Foundation
import Testing
import TestSupport
@testable import HarkCore
@testable import HarkShell

/// Notifications as the terminal receives them: the real binary on a pseudo-terminal of its
/// own, its raw output read byte for byte (OSC 777, focus reporting on and off), and inside a
/// real tmux the passthrough form, as tmux's pipe-pane sees what hark writes.
@Suite(.timeLimit(.minutes(5)))
struct NotificationShellTests {
    static func config(_ server: TestJenkinsServer, default name: String) -> String {
        "[hark]\ndefault = \(name)\n\n[session ci]\nkind = jenkins\nurl = \(server.url)\n"
            + "auth = basic:ann:\(TestJenkinsServer.token)\npoll_interval = 0.02\n\n[session notes]\nkind = local\n"
    }

    /// A clean environment: the home's folders, a terminal hark knows shows OSC 777 (WezTerm),
    /// and no tmux or screen around it, whatever runs the tests.
    static func environment(_ home: TestHome) -> [String: String] {
        var environment = home.environment
        for key in ["TMUX", "STY", "WT_SESSION", "ConEmuPID", "LC_TERMINAL", "KITTY_WINDOW_ID", "DBUS_SESSION_BUS_ADDRESS"] {
            environment[key] = nil
        }
        environment["TERM"] = "xterm-256color"
        environment["TERM_PROGRAM"] = "WezTerm"
        environment["EDITRC"] = home.directory.write("editrc", "")
        return environment
    }

    @Test func aReplyEndingAfterFocusWentElsewhereNotifiesAndNotWhileFocused() async throws {
        let server = try TestJenkinsServer()
        server.addJob("app")
        let home = TestHome(config: Self.config(server, default: "ci"))
        let pty = try PseudoTerminal([BuiltProducts.hark], environment: Self.environment(home))

        try await pty.waitFor("ci ›")
        #expect(pty.text.contains("\u{1B}[?1004h"), "the shell asks for focus reports")
        pty.send("\u{1B}[I")  // focused, as a terminal says it
        pty.send("build app\r")
        try await pty.waitFor("waiting: In the quiet period")
        let first = server.start(try #require(server.lastQueueID))
        server.append("app", first, "+ make app\n")
        try await pty.waitFor("+ make app")
        pty.send("\u{1A}")  // Ctrl-Z: on in the background
        var mark = try await pty.waitFor("goes on in the background")
        server.finish("app", first, "SUCCESS", duration: 1_000)
        mark = try await pty.waitFor("app #1 SUCCESS in 1.0s", after: mark)
        #expect(!pty.text.contains("]777;"), "focused on that session: the notice, no notification")

        pty.send("build app\r")
        mark = try await pty.waitFor("waiting: In the quiet period", after: mark)
        let second = server.start(try #require(server.lastQueueID))
        server.append("app", second, "+ make app again\n")
        mark = try await pty.waitFor("+ make app again", after: mark)
        pty.send("\u{1A}")
        mark = try await pty.waitFor("goes on in the background", after: mark)
        pty.send("\u{1B}[O")  // the window lost focus
        // The report is read and taken out of the keys (nothing of it is echoed at the prompt).
        pty.send("/sessions\r")
        mark = try await pty.waitFor("jenkins", after: mark)
        server.finish("app", second, "FAILURE", duration: 2_000)
        mark = try await pty.waitFor("\u{1B}]777;notify;hark: ci;build ended: app #2 FAILURE in 2.0s\u{7}", after: mark)
        #expect(!pty.text.contains("[O/sessions"), "the focus report never reaches the line")

        pty.send("\u{4}")  // Ctrl-D
        #expect(try await pty.waitForExit() == 0)
        let disabled = try #require(PseudoTerminal.find(Array("\u{1B}[?1004l".utf8), in: pty.output, from: mark))
        #expect(disabled > mark, "focus reporting is turned off at exit")
    }

    /// In tmux (which does not pass focus reports on by default) another session's end
    /// notifies, wrapped in tmux's passthrough so that tmux hands it to the terminal outside.
    /// An agent's form asked while the window has no focus: the notification says what it asks
    /// (it once called every question a tool call waiting for approval).
    @Test func aFormAskedOutOfSightNotifiesItsQuestion() async throws {
        let agent = try await TestA2AAgent.shared()
        let home = TestHome(config: "[hark]\ndefault = echo\n\n[session echo]\nkind = a2a\nurl = \(agent.url("echo"))\n")
        let pty = try PseudoTerminal([BuiltProducts.hark], environment: Self.environment(home))
        try await pty.waitFor("echo ›")
        pty.send("\u{1B}[O")  // the window lost focus
        pty.send("form\r")
        var mark = try await pty.waitFor("\u{1B}]777;notify;hark: echo;asks you a question: Who is coming, and how many tickets?\u{7}")
        pty.send("\u{3}")  // Ctrl-C: the form is dismissed, the task waits
        mark = try await pty.waitFor("input-required", after: mark)
        #expect(!pty.text.contains("approval"))
        pty.send("\u{4}")
        #expect(try await pty.waitForExit() == 0)
    }

    @Test(.enabled(if: TerminalDriver.isAvailable, "needs tmux"))
    func insideTmuxTheNotificationGoesThroughItsPassthrough() async throws {
        let server = try TestJenkinsServer()
        server.addJob("app")
        let home = TestHome(config: Self.config(server, default: "notes"))
        let terminal = try home.terminal(environment: ["TMUX": "/tmp/tmux-test/default,1,0"], keep: ["TMUX"])
        let raw = home.directory.file("raw-output")
        try terminal.recordOutput(to: raw)

        try await terminal.waitFor(text: "notes ›")
        try terminal.enter("@ci build app")
        try await terminal.waitFor(text: "waiting: In the quiet period")
        let number = server.start(try #require(server.lastQueueID))
        server.append("app", number, "+ make app\n")
        try await terminal.waitFor(text: "+ make app")
        try terminal.press("C-z")
        try await terminal.waitFor(text: "goes on in the background")
        server.finish("app", number, "SUCCESS", duration: 3_000)
        try await terminal.waitFor(text: "app #1 SUCCESS in 3.0s")
        try terminal.press("C-d")
        #expect(try await terminal.waitForExit() == 0)

        let written = try String(contentsOfFile: raw, encoding: .utf8)
        #expect(written.contains("\u{1B}Ptmux;\u{1B}\u{1B}]777;notify;hark: ci;build ended: app #1 SUCCESS in 3.0s\u{7}\u{1B}\\"),
                "\(written.suffix(400).debugDescription)")
    }

    @Test func focusReportsAreTakenOutOfTheKeys() {
        let tracker = FocusTracker()
        #expect(tracker.focus == .unknown)
        #expect(tracker.filter(Array("ab\u{1B}[Oc".utf8)) == Array("abc".utf8))
        #expect(tracker.focus == .unfocused)
        #expect(tracker.filter(Array("\u{1B}[I".utf8)).isEmpty)
        #expect(tracker.focus == .focused)
        #expect(tracker.filter(Array("\u{1B}[A\u{1B}".utf8)) == Array("\u{1B}[A\u{1B}".utf8), "other keys and a lone Escape stay")
    }
}
