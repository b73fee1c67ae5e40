import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// The shipped binary with the real libedit in a real terminal (tmux): the line typed while a
/// reply streams, job control and Ctrl-L, the pager.
@Suite(.enabled(if: TerminalDriver.isAvailable, "needs tmux; scripts/setup.sh --test installs it"))
struct LiveLineTerminalTests {
    @Test(arguments: [60, 120])
    func whatIsTypedShowsBelowTheStreamingReplyAndStopTypedThereStopsIt(columns: Int) async throws {
        let gate = Gate()
        defer { gate.open() }
        let server = try TestOpenAIServer { _ in [.text("Counting: one, two, "), .wait(gate), .text("three"), .done] }
        let home = TestHome(config: "[hark]\ndefault = llama\n\n[session llama]\nkind = openai\nurl = \(server.baseURL)\n")
        let terminal = try home.terminal(columns: columns)
        try await terminal.waitFor(text: "llama ›")
        try terminal.enter("long one")
        try await terminal.waitFor(text: "Counting: one, two,")
        try terminal.type("/st")
        // Visible before the reply ends, on the row below the reply's unfinished one.
        let screen = try await terminal.waitFor(text: "llama · long one ⟳1 › /st")
        #expect(screen.contains("Counting: one, two,\nllama · long one ⟳1 › /st"), "\(screen)")
        try terminal.enter("op")
        try await terminal.waitFor(text: "(stopped; what arrived is kept)")
        let store = try HistoryStore(path: home.paths.historyDatabase)
        let reply = try #require(try store.lastMessage(session: "llama", role: .assistant))
        #expect(reply.status == .stopped)
        #expect(reply.text == "Counting: one, two, ")
        try terminal.press("C-d")
        #expect(try await terminal.waitForExit() == 0)
    }

    @Test func fgAndCtrlLDrawThePromptAndTheDraftAgain() async throws {
        let home = TestHome()
        var environment = home.environment
        environment["TERM"] = "xterm-256color"
        environment["EDITRC"] = home.directory.write("editrc", "")
        let terminal = try TerminalDriver(["/bin/bash", "--norc", "--noprofile", "-i"], environment: environment)
        try terminal.enter(BuiltProducts.hark)
        try await terminal.waitFor(text: "local ›")
        try terminal.type("a draft")
        try await terminal.waitFor(text: "local › a draft")
        try terminal.press("C-z")
        try await terminal.waitFor(text: "Stopped")
        try terminal.enter("fg")
        try await terminal.waitFor("the prompt and the draft after fg") { $0.components(separatedBy: "local › a draft").count == 3 }
        try terminal.press("C-l")
        try await terminal.waitFor("a cleared screen") { _ in (try? terminal.visibleScreen())?.hasPrefix("local › a draft") == true }
        try terminal.enter(" and more")
        try await terminal.waitFor(text: "local · a draft and more ›")
        let store = try HistoryStore(path: home.paths.historyDatabase)
        #expect(try store.lastMessage(session: "local", role: .user)?.text == "a draft and more")
        try terminal.press("C-d")
        try terminal.enter("exit")
    }

    @Test func helpTallerThanTheWindowOpensThePagerAndAnEmptyPagerSettingPrintsIt() async throws {
        let home = TestHome()
        let terminal = try home.terminal(rows: 20)
        try await terminal.waitFor(text: "local ›")
        try terminal.enter("/help")
        // less -FRX: the first screenful and its prompt; q leaves what was shown on the screen.
        let paged = try await terminal.waitFor("the pager's prompt") { $0.trimmingCharacters(in: .newlines).hasSuffix(":") }
        #expect(!paged.contains("local › \n"), "the prompt waits for the pager")
        try terminal.type("q")
        try await terminal.waitFor("the prompt after the pager") { $0.trimmingCharacters(in: .newlines).hasSuffix("local › ") }
        try terminal.press("C-d")
        _ = try await terminal.waitForExit()

        let unpaged = TestHome(config: "[hark]\npager =\n")
        let plain = try unpaged.terminal(rows: 20)
        try await plain.waitFor(text: "local ›")
        try plain.enter("/help")
        try await plain.waitFor("/help printed whole") {
            $0.trimmingCharacters(in: .newlines).hasSuffix("local › ") && $0.contains("/help [COMMAND]")
        }
        try plain.press("C-d")
        _ = try await plain.waitForExit()
    }
}
