import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// The real binary in a real terminal: typing, streaming, Ctrl-C, Tab, history, Ctrl-D.
@Suite(.enabled(if: TerminalDriver.isAvailable, "needs tmux; scripts/setup.sh --test installs it"))
struct InteractiveShellTests {
    @Test func aSessionAsAPersonUsesIt() async throws {
        let hold = Gate()
        let server = try TestOpenAIServer { body in
            let question = body["messages"]?.array?.last?["content"]?.string ?? ""
            if question == "long one" { return [.text("Counting: one, two, "), .wait(hold), .text("three"), .done] }
            return [.text("**Hello** there, you said "), .text(question), .done]
        }
        defer { hold.open() }
        let home = TestHome(config: "[hark]\ndefault = llama\n\n[session llama]\nkind = openai\nurl = \(server.baseURL)\n")
        let terminal = try home.terminal(colors: true)  // colours on: Markdown is rendered

        try await terminal.waitFor(text: "llama ›")
        try terminal.enter("hi")
        try await terminal.waitFor(text: "Hello there, you said hi")

        // Ctrl-C during a reply stops it and keeps what arrived.
        try terminal.enter("long one")
        try await terminal.waitFor(text: "Counting: one, two,")
        try terminal.press("C-c")
        try await terminal.waitFor(text: "(stopped; what arrived is kept)")
        let store = try HistoryStore(path: home.paths.historyDatabase)
        let stopped = try #require(try store.lastMessage(session: "llama", role: .assistant))
        #expect(stopped.status == .stopped)
        #expect(stopped.text == "Counting: one, two, ")

        // Tab completes a command; Up brings back the input history; Ctrl-C clears a line.
        try terminal.type("/thr")
        try terminal.press("Tab")
        try await terminal.waitFor(text: "› /thread")
        try terminal.press("C-u")
        try terminal.press("Up")
        try await terminal.waitFor(text: "› long one")
        try terminal.press("C-c")
        try await terminal.waitFor("a fresh prompt after ^C") { $0.hasSuffix("^C\nllama · hi › ") || $0.contains("^C\nllama · hi ›") }

        // A trailing backslash continues the message on the next line.
        try terminal.enter("first line \\")
        try terminal.enter("second line")
        try await terminal.waitFor(text: "you said first line\nsecond line")

        try terminal.press("C-d")
        #expect(try await terminal.waitForExit() == 0)
        #expect(try store.inputHistory(session: "llama") == ["hi", "long one", "first line \nsecond line"])
    }
}
