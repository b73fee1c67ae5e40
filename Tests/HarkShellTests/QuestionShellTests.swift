import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// An MCP server's questions in the real binary: asked field by field in the shell at a real
/// terminal (tmux), declined in a pipe with one line on stderr, answered from `--answer` in
/// scripts. The server is Tests/Fixtures/mcp/elicit_server.py (the MCP Python SDK's
/// resolver `Elicit` and `ctx.elicit_url`); its tools return what reached them, which the model
/// fixture repeats in its reply. The form is asked over stdio (2025-11-25: `elicitation/create`
/// during the call) and over Streamable HTTP, where hark speaks 2026-07-28 to the same server
/// (the call's `input_required` result, then the call again with the answer): the same.
struct QuestionShellTests {
    /// `stateless`: the server over Streamable HTTP, spoken to in 2026-07-28; else over stdio.
    static func home(_ model: TestOpenAIServer, stateless: Bool = false) async throws -> TestHome {
        let reach = stateless ? "url = " + (try await TestMCPServers.elicitServerURL())
            : "command = \(TestMCPServers.python) \(TestMCPServers.elicitFixture)"
        return TestHome(config: "[hark]\ndefault = llama\n\n" + TestMCPServers.section("tickets", reach, "allow = *")
            + "[session llama]\nkind = openai\nurl = \(model.baseURL)\nmcp = tickets\n")
    }

    @Test(.enabled(if: TerminalDriver.isAvailable, "needs tmux"), arguments: [false, true])
    func aFormIsAskedFieldByFieldInTheShell(stateless: Bool) async throws {
        let model = try ToolLoopServer.calling("tickets__register")
        let home = try await Self.home(model, stateless: stateless)
        let terminal = try home.terminal()
        try await terminal.waitFor(text: "llama ›")
        try terminal.enter("book me in")
        try await terminal.waitFor(text: "mcp tickets asks: Who is coming, and how many tickets?")
        try await terminal.waitFor(text: "1/2 Name: Your name")
        // The line answers the form, and the prompt says so.
        try await terminal.waitFor(text: "mcp tickets · Name ›")
        try terminal.enter("I'm Ann")
        try await terminal.waitFor(text: "2/2 Count: How many tickets")
        try terminal.enter("three of them")
        try await terminal.waitFor(text: "Please check your answers:")
        try terminal.enter("yes")
        try await terminal.waitFor(text: #"the tool said: {"action": "accept", "content": {"count": 3, "name": "Ann"}}"#)

        // Kept with the call in the history.
        let results = try home.workspace().store.toolResults(threadID: 1).values
        #expect(results.flatMap(\.questions) == [AskedQuestion(message: "Who is coming, and how many tickets?", mode: "form",
                                                                 action: "accept", answers: ["name": "Ann", "count": 3])])

        // Ctrl-C dismisses the next one: the server is told `cancel`, and the reply goes on.
        try terminal.enter("book me in again")
        try await terminal.waitFor("the second question") { $0.components(separatedBy: "1/2 Name: Your name").count == 3 }
        try terminal.press("C-c")
        try await terminal.waitFor(text: #"the tool said: {"action": "cancel"}"#)
        try terminal.press("C-d")
        #expect(try await terminal.waitForExit() == 0)
    }

    /// A form of one choice is an approval: one key, as a tool call's approval is.
    @Test(.enabled(if: TerminalDriver.isAvailable, "needs tmux"), arguments: [false, true])
    func aChoiceOfTwoTakesOneKey(stateless: Bool) async throws {
        let model = try ToolLoopServer.calling("tickets__deploy")
        let home = try await Self.home(model, stateless: stateless)
        let terminal = try home.terminal()
        try await terminal.waitFor(text: "llama ›")
        try terminal.enter("deploy it")
        try await terminal.waitFor(text: "mcp tickets asks: Deploy v2.4.1 to production? [a]pprove / [d]eny")
        try terminal.type("d")
        try await terminal.waitFor(text: #"the tool said: {"action": "accept", "content": {"decision": "deny"}}"#)
        try terminal.press("C-d")
        #expect(try await terminal.waitForExit() == 0)
    }

    @Test(.enabled(if: TerminalDriver.isAvailable, "needs tmux"), arguments: [false, true])
    func aURLQuestionShowsTheHostAndAsksConsent(stateless: Bool) async throws {
        let model = try ToolLoopServer.calling("tickets__connect")
        let home = try await Self.home(model, stateless: stateless)
        let terminal = try home.terminal()
        try await terminal.waitFor(text: "llama ›")
        try terminal.enter("connect my account")
        try await terminal.waitFor(text: "mcp tickets asks you to open a page at accounts.example.org")
        try await terminal.waitFor(text: "[c]ancel")
        try terminal.type("d")
        try await terminal.waitFor(text: #"the tool said: {"action": "decline"}"#)
        try terminal.press("C-d")
        #expect(try await terminal.waitForExit() == 0)
    }

    @Test(arguments: [false, true]) func aPipeDeclinesAndSaysSoAndAnswerAnswers(stateless: Bool) async throws {
        let model = try ToolLoopServer.calling("tickets__register")
        let home = try await Self.home(model, stateless: stateless)
        let declined = try await HarkRun.run(["book me in"], home.environment)
        #expect(declined.status == 0)
        #expect(declined.stdout.contains(#"the tool said: {"action": "decline"}"#))
        let lines = declined.stderr.split(separator: "\n").filter { $0.contains("nobody is here to answer") }
        #expect(lines == [#"hark: mcp tickets asked "Who is coming, and how many tickets?" and nobody is here to answer: declined; give the answers with --answer name=… --answer count=… or --answers FILE.json"#])

        let json = try await HarkRun.run(["--json", "book me in"], home.environment)
        #expect(json.stdout.contains(#"{\"action\": \"decline\"}"#))
        // With --json the line is a notice event among the others, as every notice is there.
        #expect(json.stdout.split(separator: "\n").contains { $0.hasPrefix(#"{"text":"mcp tickets asked"#) && $0.contains(#""type":"notice""#) })

        let answered = try await HarkRun.run(["--answer", "name=Ann", "--answer", "count=3", "book me in"], home.environment)
        #expect(answered.stdout.contains(#"the tool said: {"action": "accept", "content": {"count": 3, "name": "Ann"}}"#))
        #expect(!answered.stderr.contains("declined"))

        let file = home.directory.path + "/answers.json"
        try #"{"name": "Ann", "count": "three"}"#.write(toFile: file, atomically: true, encoding: .utf8)
        let fromFile = try await HarkRun.run(["--answers", file, "book me in"], home.environment)
        #expect(fromFile.stdout.contains(#""content": {"count": 3, "name": "Ann"}"#))

        let wrong = try await HarkRun.run(["--answer", "count=40", "--answer", "name=Ann", "book me in"], home.environment)
        #expect(wrong.stdout.contains(#"{"action": "decline"}"#))
        #expect(wrong.stderr.contains("--answer count: "))
    }
}
