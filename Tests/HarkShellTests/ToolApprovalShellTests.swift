import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// The approval prompt in the real binary in a real terminal: the reply's watch shows the
/// question and takes one key; `a` allows the tool for the rest of the run.
@Suite(.enabled(if: TerminalDriver.isAvailable, "needs tmux; scripts/setup.sh --test installs it"))
struct ToolApprovalShellTests {
    @Test func aToolCallIsAskedAtTheTerminalAndAlwaysSticks() async throws {
        let server = try ToolLoopServer.model()
        let time = try TestMCPServers.requireTime()
        let home = TestHome(config: "[hark]\ndefault = llama\n\n" + TestMCPServers.section("time", "command = " + time)
            + "[session llama]\nkind = openai\nurl = \(server.baseURL)\nmcp = time\n")
        let terminal = try home.terminal()
        try await terminal.waitFor(text: "llama ›")

        try terminal.enter("what time is it in Paris?")
        try await terminal.waitFor(text: #"run time.get_current_time {"timezone":"Europe/Paris"}? [y]es / [n]o / [a]lways for this tool"#)
        try terminal.type("n")
        try await terminal.waitFor(text: "  → not run")
        try await terminal.waitFor(text: "It is evening in Paris.")

        try terminal.enter("and now?")
        try await terminal.waitFor("the second question") { $0.components(separatedBy: "[a]lways for this tool").count == 3 }
        try terminal.type("a")
        try await terminal.waitFor(text: #"  → { "timezone": "Europe/Paris""#)

        // Allowed for this run: the third call is not asked about.
        try terminal.enter("once more")
        try await terminal.waitFor("the third result") { $0.components(separatedBy: #"→ { "timezone""#).count == 3 }
        #expect(try terminal.screen().components(separatedBy: "[a]lways for this tool").count == 3)

        try terminal.press("C-d")
        #expect(try await terminal.waitForExit() == 0)
    }
}
