import Testing
import TestSupport
@testable import HarkCore

/// Renders `text` as a reply streamed in pieces cut at the given offsets (in Unicode scalars,
/// so a piece may end inside a word, an escape sequence, a table row or a character made of
/// several scalars); returns the bytes written.
func renderMarkdown(_ text: String, width: Int = 60, cuts: [Int] = [], hyperlinks: Bool = false) -> String {
    let scalars = Array(text.unicodeScalars)
    var renderer = MarkdownRenderer(width: width, hyperlinks: hyperlinks)
    var out = ""
    var start = 0
    for cut in cuts.sorted() + [scalars.count] where cut >= start {
        out += renderer.feed(String(String.UnicodeScalarView(scalars[start..<cut])))
        start = cut
    }
    return out + renderer.finish()
}

func markdownScreen(_ text: String, width: Int = 60, cuts: [Int] = [], hyperlinks: Bool = false) -> VirtualScreen {
    VirtualScreen(width: width, showing: renderMarkdown(text, width: width, cuts: cuts, hyperlinks: hyperlinks))
}

@Suite struct MarkdownRendererTests {
    static let sample = SampleReply.markdown

    /// A reply with every kind of Markdown, wide characters, a long word, a hostile escape
    /// sequence, a table whose cells must wrap, code with a long line: for cutting anywhere.
    static let torture = """
        ## Plan for **the** `deploy` 🚀
        Some **bold** words, *italic* and ~~struck~~ ones, `code`, a lone * star, 2 * 3 and snake_case_names.
        Ünïcödé, 한국어 텍스트가 여기에 있습니다 and emoji 🎉🎉 **stay whole** at the edge of the row.
        A URL https://example.com/a/very/long/path/that/does/not/fit/on/one/row/of/the/terminal/at/all ends it.
        Hostile: \u{1B}]52;c;cHduZWQ=\u{7} then \u{1B}[2J and \u{9B}31m and a bell \u{7} END
        1. first
        2. second, which is long enough to wrap onto another row below its number
           - nested under it
        - [ ] a task not done
        - [x] a task done
        > quoted `text` that is long enough to need a second row to be shown at all
        > > nested quote
        ---
        | name | size | note |
        |---|:---:|--:|
        | alpha | 1 | a note long enough to wrap inside its cell when the screen is narrow |
        | 한국어 | 22 | **bold** |
        ```swift
        let greeting = "hello, world" // a comment that makes this line longer than the narrowest screen
        func f() -> Int { return 42 }
        ```
        See [the docs](https://example.com/docs) and <https://example.com/auto>.
        an unfinished **bold
        """

    @Test func theSampleReplyIsDrawnAsRichDrawsIt() {
        let screen = markdownScreen(Self.sample, width: 60)
        #expect(screen.faults.isEmpty)
        #expect(screen.text == """
            Deploy checklist

            Before a release goes out, the pipeline builds every target,
            runs the integration suite against a staging database, and
            waits for a person to approve the change in the review
            channel.

            • build the artifacts
            • run the integration suite against staging, which takes
              about twelve minutes on the shared runners
              ◦ retry once on a flaky network failure

            ▌ Never deploy on a Friday afternoon unless the change is a
            ▌ one-line fix with a rollback plan.

            ┌─────────────┬─────────┬─────────┐
            │ stage       │ minutes │ owner   │
            ├─────────────┼─────────┼─────────┤
            │ build       │       4 │ ci      │
            │ integration │      12 │ qa-team │
            └─────────────┴─────────┴─────────┘

            bash
            # promote the build
            ./deploy.sh --env prod --tag "v2.4.1" && echo "ok"

            See the runbook (https://example.com/runbook) for details.
            """)
        #expect(screen.style(of: "Deploy checklist") == "0;1;4;35")
        #expect(screen.style(of: "stage") == "0;1")
        #expect(screen.style(of: "┌") == "0;2")
        #expect(screen.style(of: "bash") == "0;2")
        #expect(screen.style(of: "# promote") == "0;2;3")
        #expect(screen.style(of: "\"v2.4.1\"") == "0;32")
        #expect(screen.style(of: "the runbook") == "0;4;34")
        let wide = markdownScreen(Self.sample, width: 100)
        #expect(wide.faults.isEmpty)
        #expect(wide.lines.contains("• run the integration suite against staging, which takes about twelve minutes on the shared runners"))
    }

    /// However the reply is cut into pieces, the screen ends the same: every row, every cell's
    /// style, and no row left to the terminal to wrap.
    @Test func randomCutsDrawTheSameScreen() {
        for text in [Self.sample, Self.torture] {
            let length = text.unicodeScalars.count
            for width in [24, 40, 60, 100] {
                let whole = markdownScreen(text, width: width)
                #expect(whole.faults.isEmpty, "width \(width): \(whole.faults)")
                for seed in 1...120 as ClosedRange<UInt64> {
                    let cuts = randomCuts(count: Int(seed % 60) + 1, in: length, seed: seed &* 7919 &+ UInt64(width))
                    let cut = markdownScreen(text, width: width, cuts: cuts)
                    #expect(cut == whole, "width \(width), seed \(seed): \(cut.difference(from: whole))\n\(cut.text)")
                }
            }
        }
    }

    @Test func everyScalarFedAloneDrawsTheSameScreen() {
        for text in [Self.sample, Self.torture] {
            let length = text.unicodeScalars.count
            for width in [40, 60] {
                #expect(markdownScreen(text, width: width, cuts: Array(0...length)) == markdownScreen(text, width: width))
            }
        }
    }

    @Test func aWordThatOverflowsMovesWholeToTheNextRow() {
        let text = "aaaa bbbb cccc dddd eeee ffff gggg\n"
        // Fed a character at a time, the screen never shows a word cut at the edge.
        let screen = markdownScreen(text, width: 12, cuts: Array(0...text.unicodeScalars.count))
        #expect(screen.lines == ["aaaa bbbb", "cccc dddd", "eeee ffff", "gggg"])
        #expect(markdownScreen("x " + String(repeating: "y", count: 30) + "\n", width: 12).lines
            == ["x", "yyyyyyyyyyyy", "yyyyyyyyyyyy", "yyyyyy"])
    }

    @Test func listAndQuoteContinuationsHangUnderTheirText() {
        let screen = markdownScreen("""
            12. a numbered item long enough to wrap
                - a nested one that wraps as well
            > a quote long enough to wrap twice over
            """, width: 24)
        #expect(screen.lines == [
            "12. a numbered item long", "    enough to wrap",
            "    ◦ a nested one that", "      wraps as well",
            "▌ a quote long enough to", "▌ wrap twice over",
        ])
    }

    @Test func tablesAlignTheirColumnsAndShrinkToTheScreen() {
        let table = """
            | left | centre | right |
            |:-----|:------:|------:|
            | a | b | 1 |
            | longer text in a cell | mid | 12345 |

            """
        #expect(markdownScreen(table, width: 60).lines == [
            "┌───────────────────────┬────────┬───────┐",
            "│ left                  │ centre │ right │",
            "├───────────────────────┼────────┼───────┤",
            "│ a                     │   b    │     1 │",
            "│ longer text in a cell │  mid   │ 12345 │",
            "└───────────────────────┴────────┴───────┘",
        ])
        let narrow = markdownScreen(table, width: 30)
        #expect(narrow.faults.isEmpty)
        #expect(narrow.lines.allSatisfy { TextWidth.of($0) <= 30 })
        #expect(narrow.lines == [
            "┌───────────┬────────┬───────┐",
            "│ left      │ centre │ right │",
            "├───────────┼────────┼───────┤",
            "│ a         │   b    │     1 │",
            "│ longer    │  mid   │ 12345 │",
            "│ text in a │        │       │",
            "│ cell      │        │       │",
            "└───────────┴────────┴───────┘",
        ])
        // Rows that are not a table stay text.
        #expect(markdownScreen("| not | a table\nplain\n").lines == ["| not | a table", "plain"])
    }

    @Test func codeIsColouredAndNeverReflowed() {
        let screen = markdownScreen("""
            ```python
            def f(x):  # a comment that runs past the edge of this narrow screen
                return "text"
            ```
            after
            """, width: 40)
        #expect(screen.lines == [
            "python",
            "def f(x):  # a comment that runs past th",
            "↪e edge of this narrow screen",
            "    return \"text\"",
            "after",
        ])
        #expect(screen.style(of: "def") == "0;35")
        #expect(screen.style(of: "# a comment") == "0;2;3")
        #expect(screen.style(of: "↪") == "0;2")
        #expect(screen.style(of: "return") == "0;35")
        #expect(screen.style(of: "\"text\"") == "0;32")
        #expect(!screen.text.contains("```"))
    }

    @Test func emphasisFollowsCommonMarksRules() {
        let screen = markdownScreen("**b** *i* _j_ ~~s~~ `c` 2 * 3 snake_case_name a*b*c \\*not\\*\n", width: 80)
        #expect(screen.lines == ["b i j s c 2 * 3 snake_case_name abc *not*"])
        #expect(screen.style(of: "b ") == "0;1")
        #expect(screen.style(of: "i ") == "0;3")
        #expect(screen.style(of: "j ") == "0;3")
        #expect(screen.style(of: "s ") == "0;9")
        #expect(screen.style(of: "c 2") == "0;33")
        #expect(screen.style(of: "snake_case_name") == nil || screen.style(of: "snake_case_name") == "")
    }

    @Test func linksAreDrawnWithOSC8WhereTheTerminalCan() {
        let text = "[the docs](https://example.com/docs) and [https://good.example](https://evil.example/x)\n"
        let drawn = markdownScreen(text, width: 100, hyperlinks: true)
        #expect(drawn.faults.isEmpty)
        #expect(drawn.link(of: "the docs") == "https://example.com/docs")
        // A label that reads like another address does not hide where the link goes.
        #expect(drawn.lines == ["the docs and https://good.example (https://evil.example/x)"])
        #expect(markdownScreen(text, width: 100).lines == ["the docs (https://example.com/docs) and https://good.example (https://evil.example/x)"])
        #expect(markdownScreen("[a](javascript:alert(1))\n", hyperlinks: true).link(of: "a") == "")
    }

    @Test func controlSequencesInAReplyShowAsDimMarks() {
        let text = "Hi \u{1B}]52;c;cHduZWQ=\u{7} \u{1B}]0;PWNED\u{7} \u{1B}[2J \u{9B}31m \u{1B}P+q\u{1B}\\ \u{7} end\n"
        let output = renderMarkdown(text, width: 100)
        let screen = VirtualScreen(width: 100, showing: output)
        #expect(screen.faults.isEmpty)
        #expect(screen.lines == ["Hi ␛]52;c;cHduZWQ=␇ ␛]0;PWNED␇ ␛[2J ␛[31m ␛P+q␛\\ ␇ end"])
        #expect(screen.style(of: "␛]52") == "0;2")
        #expect(!output.unicodeScalars.contains("\u{7}"))
        #expect(!output.unicodeScalars.contains("\u{9B}"))
    }
}
