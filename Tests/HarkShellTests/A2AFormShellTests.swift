import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// An A2A agent's forms through the shipped binary (`form` and `approve` in
/// Tests/Fixtures/a2a/agent.py, on the a2a-sdk server): asked field by field at a real
/// terminal (tmux), an approval with one key, `--answer` in a pipe, and a pipe with nothing to
/// answer declining in one line while the task stays input-required.
struct A2AFormShellTests {
    static func home(_ agent: TestA2AAgent) -> TestHome {
        TestHome(config: "[hark]\ndefault = echo\n\n[session echo]\nkind = a2a\nurl = \(agent.url("echo"))\n")
    }

    @Test(.enabled(if: TerminalDriver.isAvailable, "needs tmux")) func aFormIsAskedFieldByFieldAndAnApprovalWithOneKey() async throws {
        let agent = try await TestA2AAgent.shared()
        let home = Self.home(agent)
        let terminal = try home.terminal()
        try await terminal.waitFor(text: "echo ›")
        try terminal.enter("form")
        try await terminal.waitFor(text: "echo asks: Who is coming, and how many tickets?")
        try await terminal.waitFor(text: "Name: Your name")
        try terminal.enter("I'm Ann")
        try await terminal.waitFor(text: "Request ID: Request id")
        try terminal.enter("")
        try await terminal.waitFor(text: "Count: How many tickets")
        try terminal.enter("three of them")
        try await terminal.waitFor(text: "Please check your answers:")
        try terminal.enter("yes")
        try await terminal.waitFor(text: "· completed")
        // The reply wraps at the terminal's width.
        #expect(try terminal.screen().replacingOccurrences(of: "\n", with: " ")
            .contains(#"got the data part {"count": 3, "name": "Ann", "request_id": "request_id_4711"}"#))

        try terminal.enter("approve")
        try await terminal.waitFor(text: "echo asks: Deploy v2.4.1 to production? [a]pprove / [d]eny")
        try terminal.type("a")
        try await terminal.waitFor(text: #"got the data part {"decision": "approve"}"#)
        try terminal.press("C-d")
        #expect(try await terminal.waitForExit() == 0)
    }

    @Test func aPipeDeclinesInOneLineAndTheTaskWaitsAndAnswerAnswers() async throws {
        let agent = try await TestA2AAgent.shared()
        // Each run in a home of its own: the first leaves its thread's task waiting.
        let home = Self.home(agent), other = Self.home(agent)
        let declined = try await HarkRun.run(["form"], home.environment)
        #expect(declined.status == 0)
        #expect(declined.stderr == "hark: echo asked \"Who is coming, and how many tickets?\" and nobody is here to answer: declined; "
                + "the task stays input-required (your next message answers it); give the answers with --answer name=… "
                + "--answer count=… or --answers FILE.json\n")
        let task = try #require(declined.stdout.split(separator: " ").dropFirst().first.map(String.init), "\(declined.stdout)")
        #expect(declined.stdout == "task \(task) needs an answer.")
        #expect(try await agent.taskState("echo", id: task) == "TASK_STATE_INPUT_REQUIRED")

        let answered = try await HarkRun.run(["--answer", "name=Ann", "--answer", "count=3", "form"], other.environment)
        #expect(answered.status == 0, "\(answered.stderr)")
        #expect(answered.stderr.isEmpty)
        #expect(answered.stdout.contains(#"got the data part {"count": 3, "name": "Ann", "request_id": "request_id_4711"}"#))
        let asked = try #require(answered.stdout.split(separator: " ").dropFirst().first.map(String.init))
        #expect(answered.stdout.contains("task \(asked) got the data part"))
    }
}
