import Testing
import TestSupport
@testable import HarkCore

/// Feeds `text` to a renderer in pieces cut at the given offsets (in Unicode scalars, so a
/// piece may even end inside a character made of several).
func renderMarkdown(_ text: String, cuts: [Int], ansi: ANSI = ANSI(enabled: true)) -> String {
    let scalars = Array(text.unicodeScalars)
    var renderer = MarkdownRenderer(ansi: ansi)
    var out = ""
    var start = 0
    for cut in cuts.sorted() + [scalars.count] where cut >= start {
        out += renderer.feed(String(String.UnicodeScalarView(scalars[start..<cut])))
        start = cut
    }
    return out + renderer.finish()
}

@Suite struct MarkdownRendererTests {
    static let bold = "\u{1B}[1m", heading = "\u{1B}[1;35m", code = "\u{1B}[33m", dim = "\u{1B}[2m", accent = "\u{1B}[36m"
    static let reset = ANSI.reset

    /// A reply that uses every kind of Markdown the renderer knows, and some it must leave be.
    static let reply = """
        # Plan
        Some **bold** words, `code` and a lone * star, and 2 * 3.
        ## Steps
        - first **step**
        * second
        1. numbered
        12) also numbered
        > quoted `text`
        ```swift
        let x = "**not bold**"
        ```
        ~~~
        # not a heading
        ~~~
           ### indented heading
        #hashtag, not a heading
        Ünïcödé, 한국어 and emoji 🎉 **stay whole**
        an unfinished **bold
        """

    @Test func eachKindRendersAsOnATerminal() {
        let r = Self.reset
        #expect(renderMarkdown("# Title\n", cuts: []) == "\(Self.heading)Title\(r)\n")
        #expect(renderMarkdown("a **b** c\n", cuts: []) == "a \(Self.bold)b\(r) c\n")
        #expect(renderMarkdown("x `y` z\n", cuts: []) == "x \(Self.code)y\(r) z\n")
        #expect(renderMarkdown("- item\n", cuts: []) == "\(Self.accent)•\(r) item\n")
        #expect(renderMarkdown("> said\n", cuts: []) == "\(Self.dim)│\(r) said\n")
        #expect(renderMarkdown("3. third\n", cuts: []) == "\(Self.accent)3.\(r) third\n")
        #expect(renderMarkdown("```\n**x**\n```\n", cuts: []) == "\(Self.dim)```\(r)\n\(Self.code)**x**\(r)\n\(Self.dim)```\(r)\n")
        #expect(renderMarkdown("2 * 3 and #tag\n", cuts: []) == "2 * 3 and #tag\n")
        // What is held back to decide is given back at the end.
        #expect(renderMarkdown("#", cuts: []) == "#")
        #expect(renderMarkdown("**open", cuts: []) == "\(Self.bold)open\(r)")
    }

    @Test func colourlessItLeavesTheTextAsWrittenButForItsMarkers() {
        let out = renderMarkdown("# T\n**b** `c`\n- i\n", cuts: [], ansi: ANSI(enabled: false))
        #expect(out == "T\nb c\n• i\n")
    }

    /// The reply streams in pieces cut anywhere: what shows is the same as for the whole.
    @Test func randomCutsRenderLikeTheWhole() {
        let whole = renderMarkdown(Self.reply, cuts: [])
        let length = Self.reply.unicodeScalars.count
        for seed in 1...300 as ClosedRange<UInt64> {
            let cuts = randomCuts(count: Int(seed % 40) + 1, in: length, seed: seed)
            #expect(renderMarkdown(Self.reply, cuts: cuts) == whole, "seed \(seed)")
        }
        for cut in 0...length {
            #expect(renderMarkdown(Self.reply, cuts: [cut]) == whole, "cut at \(cut)")
        }
    }

    @Test func everyScalarFedAloneRendersLikeTheWhole() {
        let length = Self.reply.unicodeScalars.count
        #expect(renderMarkdown(Self.reply, cuts: Array(0...length)) == renderMarkdown(Self.reply, cuts: []))
    }
}
