import Testing
import TestSupport
@testable import HarkCore

/// Sanitizes `bytes` fed in pieces cut at `cuts` (byte offsets, moved back to the start of a
/// scalar, as a string's pieces are); returns what came out, marks bracketed.
func sanitize(_ text: String, cuts: [Int] = [], keepingColors: Bool = false) -> (out: [UInt8], colors: [TextAttributes]) {
    let bytes = Array(text.utf8)
    var sanitizer = TerminalSanitizer(keepingColors: keepingColors)
    var out: [UInt8] = []
    var colors: [TextAttributes] = []
    var start = 0
    for var cut in cuts.sorted() + [bytes.count] where cut >= start {
        while cut < bytes.count && bytes[cut] & 0xC0 == 0x80 { cut -= 1 }
        guard cut >= start else { continue }
        bytes[start..<cut].withUnsafeBufferPointer { piece in
            sanitizer.feed(bytes: piece, { out += $0 }, recolor: { colors.append($0) })
        }
        start = cut
    }
    sanitizer.finish { out += $0 }
    return (out, colors)
}

func shown(_ bytes: [UInt8]) -> String {
    String(decoding: bytes.filter { $0 != TerminalSanitizer.markStart && $0 != TerminalSanitizer.markEnd }, as: UTF8.self)
}

@Suite struct TerminalSanitizerTests {
    /// Everything issue-38's hostile reply held, one of each kind.
    static let hostile = "Hello \u{1B}]52;c;cHduZWQ=\u{7} x \u{1B}]0;PWNED-TITLE\u{7} x \u{1B}[2J x \u{1B}]8;;http://evil.example/\u{7}click"
        + "\u{1B}]8;;\u{7} x \u{1B}P+q\u{1B}\\ x \u{9B}31m x \u{7} END"

    @Test func everyKindOfSequenceIsShownAndNoneIsLetThrough() {
        let (out, _) = sanitize(Self.hostile)
        #expect(shown(out) == "Hello ␛]52;c;cHduZWQ=␇ x ␛]0;PWNED-TITLE␇ x ␛[2J x ␛]8;;http://evil.example/␇click␛]8;;␇ x ␛P+q␛\\ x ␛[31m x ␇ END")
        #expect(!out.contains(0x1B) && !out.contains(0x07))
        #expect(!String(decoding: out, as: UTF8.self).unicodeScalars.contains { (0x80...0x9F).contains($0.value) })
    }

    @Test func marksAreBracketedSoARendererCanDrawThemDim() {
        #expect(sanitize("a\u{1B}[2Jb").out == Array("a".utf8) + [0x01] + Array("␛[2J".utf8) + [0x02] + Array("b".utf8))
    }

    @Test func otherControlsShowAsTheirPicturesAndLineEndsPass() {
        #expect(shown(sanitize("a\u{0}b\u{8}c\u{7F}d\te\r\nf\rg\u{85}h").out) == "a␀b␈c␡d\te\nf␍g␛Eh")
        // In a console a lone CR (a progress bar redrawing) starts a new line instead.
        #expect(shown(sanitize("10%\r20%\r\n", keepingColors: true).out) == "10%\n20%\n")
    }

    @Test func aLongPayloadIsShortenedAndALineFeedEndsAnUnendedString() {
        let payload = String(repeating: "A", count: 5000)
        #expect(shown(sanitize("x\u{1B}]52;c;\(payload)\u{7}y").out) == "x␛]52;c;" + String(repeating: "A", count: 33) + "…y")
        #expect(shown(sanitize("x\u{1B}]0;never ended\nnext line").out) == "x␛]0;never ended\nnext line")
    }

    @Test func aConsolesSGRIsParsedIntoColoursAndNothingElseIsKept() {
        let (out, colors) = sanitize("\u{1B}[1;31mred\u{1B}[0m \u{1B}[38;2;1;2;3mrgb\u{1B}[38:5:9m \u{1B}[5;8mx\u{1B}[2J", keepingColors: true)
        #expect(shown(out) == "red rgb x␛[2J")
        #expect(colors == [TextAttributes([.bold], foreground: .indexed(1)), .plain, TextAttributes(foreground: .rgb(1, 2, 3)),
                           TextAttributes(foreground: .indexed(9)), TextAttributes(foreground: .indexed(9))])
        // Without colours kept, the same SGR is a mark like any other.
        #expect(shown(sanitize("\u{1B}[1;31mred").out) == "␛[1;31mred")
    }

    /// However the text is cut, the same comes out.
    @Test func randomCutsGiveTheSameOutput() {
        for keepingColors in [false, true] {
            let text = Self.hostile + "\u{1B}[1;3" + "1mé\r\n\u{1B}]0;" + String(repeating: "é", count: 60) + "\u{1B}\\ end\r"
            let whole = sanitize(text, keepingColors: keepingColors)
            let length = text.utf8.count
            for seed in 1...300 as ClosedRange<UInt64> {
                let cut = sanitize(text, cuts: randomCuts(count: Int(seed % 40) + 1, in: length, seed: seed), keepingColors: keepingColors)
                #expect(shown(cut.out) == shown(whole.out), "seed \(seed)")
                #expect(cut.colors.last == whole.colors.last)
            }
            #expect(shown(sanitize(text, cuts: Array(0...length), keepingColors: keepingColors).out) == shown(whole.out))
        }
    }

    @Test func aWholeTextForAPlaceThatCannotStyleMarks() {
        #expect(TerminalSanitizer.visible("title\u{1B}]0;x\u{7}") == "title␛]0;x␇")
        #expect(TerminalSanitizer.visible("plain") == "plain")
        #expect(!TerminalSanitizer.needsWork("tab\tand\nline"))
    }
}
