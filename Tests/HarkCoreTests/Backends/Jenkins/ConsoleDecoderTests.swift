import Foundation
import Testing
import TestSupport
@testable import HarkCore

@Suite struct ConsoleDecoderTests {
    static let console = "Started by user Ann\r\n+ make\r\nbuilding… ✓ 日本\r\n[=====>    ] 50%\r[==========] 100%\r\nFinished: SUCCESS\r\n"
    static let expected = "Started by user Ann\n+ make\nbuilding… ✓ 日本\n[=====>    ] 50%\r[==========] 100%\nFinished: SUCCESS\n"

    @Test func crLfBecomesLfAndALoneCrStays() {
        var decoder = ConsoleDecoder()
        #expect(decoder.feed(Array(Self.console.utf8)) + decoder.finish() == Self.expected)
    }

    /// Feeds `bytes` in pieces of 1 to `longest` bytes; `check` sees each decoded piece and
    /// where it ended. Returns the whole text.
    static func decodeInPieces(_ bytes: [UInt8], seed: Int, longest: Int, check: (String, Int) -> Void) -> String {
        var generator = SplitMix(seed: UInt64(seed))
        var decoder = ConsoleDecoder()
        var text = ""
        var index = 0
        while index < bytes.count {
            let end = min(bytes.count, index + Int.random(in: 1...longest, using: &generator))
            let piece = decoder.feed(Array(bytes[index..<end]))
            check(piece, end)
            text += piece
            index = end
        }
        return text + decoder.finish()
    }

    @Test(arguments: 0..<200)
    func anyChunkBoundariesGiveTheSameText(seed: Int) {
        let bytes = Array(Self.console.utf8)
        let text = Self.decodeInPieces(bytes, seed: seed, longest: 7) { piece, end in
            // Nothing decoded may be a broken character or a CR that turns out to start a CR LF.
            #expect(!piece.contains("\u{FFFD}"))
            #expect(!piece.hasSuffix("\r") || bytes[end - 1] != 0x0D || end == bytes.count || bytes[end] != 0x0A)
        }
        #expect(text == Self.expected)
    }

    @Test func aCrHeldAtTheEndOfOneAnswerJoinsTheLfOfTheNext() {
        var decoder = ConsoleDecoder()
        #expect(decoder.feed(Array("line\r".utf8)) == "line")
        #expect(decoder.feed(Array("\nnext\r\n".utf8)) == "\nnext\n")
        #expect(decoder.feed(Array("progress\r".utf8)) == "progress")
        #expect(decoder.finish() == "\r", "a CR with nothing after it is kept as it was")
    }

    /// Console notes as Jenkins writes them (ConsoleNote.encode: PREAMBLE_STR "ESC[8mha:",
    /// base64 of the serialized note, POSTAMBLE_STR "ESC[0m"), before the text they annotate;
    /// a pipeline log carries one on nearly every line.
    static let note = "\u{1B}[8mha:////4FjbzVZ2Vd3yO8GvNRhEWkKjQ1ODZgmggEiqTQtLrhBGjdJRQWj7BEyxSfEaAAAAlh+LCAAAAAAAAP9b85aBtbiIQTGjNKU4P08vOT+vOD8nVc83PyU1x6OyILUoJzMv2y+/JJUBAhiZGBgqihhk0NSjKDWzXb3RdlLBUSYGJk8GtpzUvPSSDB8G5tKinBIGIZ+sxLJE/ZzEvHT94JKizLx0a6BxUmjGOUNodHsLgAz+EgYh/eT83ILSktQUvYLQ8NTwMwAUAhFMYQAAAA==\u{1B}[0m"
    static let annotated = "Started by user Ann\r\n\(note)[Pipeline] Start of Pipeline\r\n\(note)[Pipeline] stage\r\n"
        + "Deploy?\r\n\(note)Proceed\(note) or \(note)Abort\(note)\r\nFinished: SUCCESS\r\n"
    static let plain = "Started by user Ann\n[Pipeline] Start of Pipeline\n[Pipeline] stage\nDeploy?\nProceed or Abort\nFinished: SUCCESS\n"

    @Test(arguments: 0..<200)
    func consoleNotesAreRemovedWhereverTheReadsAreCut(seed: Int) {
        let text = Self.decodeInPieces(Array(Self.annotated.utf8), seed: seed, longest: 40) { piece, _ in
            #expect(!piece.contains("\u{1B}"), "no part of a note is ever let through")
        }
        #expect(text == Self.plain)
    }

    @Test func escapesThatAreNoNotesStay() {
        var decoder = ConsoleDecoder()
        let colored = "\u{1B}[32mok\u{1B}[0m \u{1B}[8mhidden\u{1B}[0m\n"
        #expect(decoder.feed(Array(colored.utf8)) + decoder.finish() == colored)
        #expect(decoder.feed(Array("tail \u{1B}[8mha:abc".utf8)) == "tail ", "the start of a note waits for its end")
        #expect(decoder.finish() == "\u{1B}[8mha:abc", "a note that never ends is kept as it came")
    }
}
