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

    @Test func aLineThatFitsOrAWidthTooNarrowLeavesItWhole() {
        #expect(Self.snippet.wrapped(to: 200) == [Self.snippet])
        #expect(Self.snippet.wrapped(to: 20) == [Self.snippet], "16 columns beside the indent are too few to read")
        // A word longer than a line has one of its own; the terminal cuts it as it must.
        let long = StyledLine("  short " + String(repeating: "x", count: 40) + " end").wrapped(to: 30)
        #expect(long.map(\.plainText) == ["  short", "  " + String(repeating: "x", count: 40), "  end"])
        // Wide characters take two columns.
        let wide = StyledLine("  " + Array(repeating: "日本語", count: 8).joined(separator: " ")).wrapped(to: 24)
        #expect(wide.map(\.plainText) == ["  日本語 日本語 日本語", "  日本語 日本語 日本語", "  日本語 日本語"])
    }

    @Test func aNoteStaysANote() {
        var note = StyledLine(String(repeating: "word ", count: 20))
        note.isNote = true
        #expect(note.wrapped(to: 30).allSatisfy { $0.isNote })
    }
}
