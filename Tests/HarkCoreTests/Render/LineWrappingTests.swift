import Testing
@testable import HarkCore

@Suite struct LineWrappingTests {
    /// An /ask snippet: indented, a highlighted word inside a longer one, two spaces where a
    /// heading ended.
    static let snippet = StyledLine([Span("    "), Span("## Travel  ### Expenses Expense "), Span("claims", .bold),
                                     Span(" must be filed within 30 days of re"), Span("turn", .bold),
                                     Span("ing from a trip.")])

    @Test func aLineIsCutAtSpacesAndEachPieceIndentedAsTheFirst() {
        let lines = Self.snippet.wrapped(to: 30)
        #expect(lines.map(\.plainText) == [
            "    ## Travel  ### Expenses",
            "    Expense claims must be",
            "    filed within 30 days of",
            "    returning from a trip.",
        ])
        #expect(lines.allSatisfy { TextWidth.of($0.plainText) <= 30 })
        // The highlights keep their style, the one inside a word too.
        #expect(lines[1].spans.contains(Span("claims", .bold)))
        #expect(lines[3].spans == [Span("    "), Span("re"), Span("turn", .bold), Span("ing"), Span(" "), Span("from"),
                                   Span(" "), Span("a"), Span(" "), Span("trip.")])
    }

    @Test func aLineThatFitsStaysWholeAndANarrowScreenDropsTheIndent() {
        #expect(Self.snippet.wrapped(to: 200) == [Self.snippet])
        // 16 columns beside the indent are enough; fewer are too few to read: further rows
        // then start at the margin.
        #expect(Self.snippet.wrapped(to: 20).map(\.plainText) == [
            "    ## Travel  ###", "    Expenses Expense", "    claims must be", "    filed within 30", "    days of",
            "    returning from a", "    trip.",
        ])
        #expect(Self.snippet.wrapped(to: 18).map(\.plainText) == [
            "    ## Travel  ###", "Expenses Expense", "claims must be", "filed within 30", "days of returning", "from a trip.",
        ])
        // A word longer than a row is cut at the edge: the terminal must never wrap a line itself.
        let long = StyledLine("  short " + String(repeating: "x", count: 40) + " end").wrapped(to: 30)
        #expect(long.map(\.plainText) == ["  short", "  " + String(repeating: "x", count: 28), "  " + String(repeating: "x", count: 12) + " end"])
        // Wide characters take two columns.
        let wide = StyledLine("  " + Array(repeating: "日本語", count: 8).joined(separator: " ")).wrapped(to: 24)
        #expect(wide.map(\.plainText) == ["  日本語 日本語 日本語", "  日本語 日本語 日本語", "  日本語 日本語"])
    }

    @Test func furtherRowsHangUnderAMarkerOrATablesLastColumn() {
        #expect(StyledLine("  • an item that is long enough to wrap twice").wrapped(to: 24).map(\.plainText)
            == ["  • an item that is long", "    enough to wrap twice"])
        let rows = Table.render([[Span("/help"), Span("list commands, or explain the one named after it")]])
        #expect(rows[0].wrapped(to: 40).map(\.plainText) == ["/help  list commands, or explain the one", "       named after it"])
        // Too narrow beside the first column: the last goes under it.
        #expect(rows[0].wrapped(to: 30).map(\.plainText) == ["/help", "    list commands, or explain", "    the one named after it"])
        // A line break in the text starts a row of its own.
        #expect(StyledLine("one\ntwo").wrapped(to: 30).map(\.plainText) == ["one", "two"])
    }

    @Test func controlSequencesBecomeInertSpansThatShowWhatTheyWere() {
        let line = StyledLine([Span("title: "), Span("a\u{1B}]0;x\u{7}b\tc", .bold)]).sanitized()
        #expect(line.spans == [Span("title: "), Span("a", .bold), Span("␛]0;x␇", .inert), Span("b    c", .bold)])
    }

    @Test func aNoteStaysANote() {
        var note = StyledLine(String(repeating: "word ", count: 20))
        note.isNote = true
        #expect(note.wrapped(to: 30).allSatisfy { $0.isNote })
    }
}
