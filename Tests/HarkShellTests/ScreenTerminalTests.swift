import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// What a person reads, in a real terminal (tmux) at 60 and 120 columns: a reply streamed in
/// tokens is wrapped by hark, never by the terminal (tmux's `capture-pane -J` joins the rows the
/// terminal wrapped itself, so such a line would be wider than the window), words stay whole,
/// list items hang, the table is drawn aligned, code is coloured without its fences; the banner
/// and `/help` are wrapped too.
@Suite(.enabled(if: TerminalDriver.isAvailable, "needs tmux; scripts/setup.sh --test installs it"), .timeLimit(.minutes(2)))
struct ScreenTerminalTests {
    /// The lines of the screen wider than the window: rows the terminal wrapped itself.
    static func overlong(_ screen: String, _ columns: Int) -> [String] {
        screen.split(separator: "\n").map(String.init).filter { TextWidth.of($0) > columns }
    }

    @Test(arguments: [60, 120])
    func aStreamedReplyIsWrappedByHarkWithItsTableAndCode(columns: Int) async throws {
        let server = try TestOpenAIServer { _ in SampleReply.tokens(SampleReply.markdown, longest: 3).map { .text($0) } + [.done] }
        let home = TestHome(config: "[session bot]\nkind = openai\nurl = \(server.baseURL)\n")
        let terminal = try home.terminal(["-s", "bot"], colors: true, columns: columns)
        try await terminal.waitFor(text: "bot ›")
        try terminal.enter("deploy?")
        let screen = try await terminal.waitFor(text: "See the runbook (https://example.com/runbook)")
        #expect(Self.overlong(screen, columns).isEmpty, "rows the terminal wrapped: \(Self.overlong(screen, columns))")
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false).map { String($0.reversed().drop { $0 == " " }.reversed()) }
        if columns == 60 {
            #expect(lines.contains("Before a release goes out, the pipeline builds every target,"))
            #expect(lines.contains("runs the integration suite against a staging database, and"))
            #expect(lines.contains("• run the integration suite against staging, which takes"))
            #expect(lines.contains("  about twelve minutes on the shared runners"), "the item's second row hangs under its text")
            #expect(lines.contains("▌ one-line fix with a rollback plan."), "the quote's bar on its second row")
        } else {
            #expect(lines.contains("• run the integration suite against staging, which takes about twelve minutes on the shared runners"))
        }
        #expect(lines.contains("  ◦ retry once on a flaky network failure"))
        #expect(lines.contains("│ integration │      12 │ qa-team │"), "the table, aligned as its delimiter row says")
        #expect(lines.contains("┌─────────────┬─────────┬─────────┐"))
        #expect(!screen.contains("```") && !screen.contains("|---"), "no fence or raw table row")
        let coloured = try terminal.screen(escapes: true)
        #expect(coloured.contains("\u{1B}[34mecho"), "a builtin in colour: \(coloured.debugDescription)")
        #expect(coloured.contains("\u{1B}[32m\"v2.4.1\""), "a string in colour")
        #expect(coloured.contains("\u{1B}[3m# promote the build") || coloured.contains("\u{1B}[2m\u{1B}[3m# promote"), "a comment dim")
        try terminal.press("C-d")
        #expect(try await terminal.waitForExit() == 0)
    }

    /// A window made narrower: what comes after is cut to the new width.
    @Test func aResizedWindowGetsTheNextReplyCutToItsWidth() async throws {
        let server = try TestOpenAIServer { _ in SampleReply.tokens(SampleReply.markdown, longest: 3).map { .text($0) } + [.done] }
        let home = TestHome(config: "[session bot]\nkind = openai\nurl = \(server.baseURL)\n")
        let terminal = try home.terminal(["-s", "bot"], colors: true, columns: 120)
        try await terminal.waitFor(text: "bot ›")
        try terminal.enter("first")
        try await terminal.waitFor(text: "See the runbook")
        try terminal.resize(columns: 60, rows: 30)
        try terminal.enter("second")
        let screen = try await terminal.waitFor("the second reply") { screen in
            let parts = screen.components(separatedBy: "› second")
            return parts.count > 1 && parts[parts.count - 1].contains("See the runbook")
        }
        let second = screen.components(separatedBy: "› second").last ?? ""
        #expect(Self.overlong(second, 60).isEmpty, "rows the terminal wrapped: \(Self.overlong(second, 60))")
        #expect(second.contains("\nBefore a release goes out, the pipeline builds every target,\n"), "\(second)")
        #expect(second.contains("\n  about twelve minutes on the shared runners\n"))
        try terminal.press("C-d")
        #expect(try await terminal.waitForExit() == 0)
    }

    @Test func theBannerAndHelpAreWrappedWithTheirColumns() async throws {
        // Paging off (`pager =`): the whole help on the screen to read its rows.
        let home = TestHome(config: "[hark]\npager =\n\n[session notes]\nkind = local\n")
        let terminal = try home.terminal(["-s", "notes"], columns: 60)
        try await terminal.waitFor(text: "notes ›")
        try terminal.enter("/help")
        let screen = try await terminal.waitFor("the prompt after /help") {
            $0.contains("Ctrl-D") && $0.trimmingCharacters(in: .whitespacesAndNewlines).hasSuffix("notes ›")
        }
        #expect(Self.overlong(screen, 60).isEmpty, "rows the terminal wrapped: \(Self.overlong(screen, 60))")
        #expect(screen.contains("hark \(HarkVersion.string) · session notes (local) · /help for"))
        // Descriptions too narrow to read beside their commands go under them.
        #expect(screen.contains("\n  /help [COMMAND]\n      list commands, or explain one\n"), "\(screen)")
        try terminal.press("C-d")
        #expect(try await terminal.waitForExit() == 0)
    }
}
