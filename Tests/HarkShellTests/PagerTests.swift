import Foundation
import Testing
import TestSupport
@testable import HarkShell

/// Which pager runs, as git decides it, and how tall text is on a screen.
@Suite struct PagerTests {
    @Test func theConfigWinsThenPagerThenLessAndEmptyTurnsPagingOff() {
        #expect(Pager.command(configured: "most", environment: ["PAGER": "more"]) == "most")
        #expect(Pager.command(configured: "", environment: ["PAGER": "more"]) == nil)
        #expect(Pager.command(configured: nil, environment: ["PAGER": "more"]) == "more")
        #expect(Pager.command(configured: nil, environment: ["PAGER": " "]) == nil)
        #expect(Pager.command(configured: nil, environment: [:]) == "less -FRX")
    }

    @Test func rowsCountWrappedLinesAndNotEscapes() {
        #expect(Pager.rows("one\ntwo\n", columns: 10) == 2)
        #expect(Pager.rows(String(repeating: "x", count: 25) + "\n", columns: 10) == 3)
        #expect(Pager.rows("\u{1B}[1mbold\u{1B}[0m\n", columns: 4) == 1)
        #expect(Pager.rows("\n\n", columns: 10) == 2)
    }

    @Test func textThatFitsOrGoesToAPipeIsPrintedAsIs() {
        let terminal = FakeTerminal(size: TerminalSize(columns: 80, rows: 5))
        Pager.show("a\nb\n", on: terminal, command: "false")
        #expect(terminal.text == "a\nb\n")
    }
}

/// A paste with line ends, summarised in the line and expanded when sent.
@Suite struct PastedTextTests {
    @Test func aSummaryStandsForThePasteUntilItIsExpanded() {
        var pastes = PastedText()
        let first = pastes.summary(for: "a\nb\nc")
        let second = pastes.summary(for: "x\ny\nz\n")
        #expect(first == "[pasted 3 lines]")
        #expect(second == "[pasted 3 lines #2]")
        #expect(pastes.expand("see \(first) and \(second)") == "see a\nb\nc and x\ny\nz\n")
        #expect(pastes.expand("edited away") == "edited away")
    }

    @Test func tabShowsThePastesLinesWithWhatSurroundsIt() throws {
        var pastes = PastedText()
        let summary = pastes.summary(for: "one\ntwo\nthree")
        let expanded = pastes.expandIntoDraft("x \(summary) y")
        let (draft, line) = try #require(expanded)
        #expect(draft == ["x one", "two"])
        #expect(line == "three y")
        #expect(pastes.isEmpty)
        let none = pastes.expandIntoDraft("x")
        #expect(none == nil)
    }
}
