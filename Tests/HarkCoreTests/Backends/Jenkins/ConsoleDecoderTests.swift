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

    @Test(arguments: 0..<200)
    func anyChunkBoundariesGiveTheSameText(seed: Int) {
        var generator = SplitMix(seed: UInt64(seed))
        let bytes = Array(Self.console.utf8)
        var decoder = ConsoleDecoder()
        var text = ""
        var index = 0
        while index < bytes.count {
            let length = Int.random(in: 1...7, using: &generator)
            let end = min(bytes.count, index + length)
            let piece = decoder.feed(Array(bytes[index..<end]))
            // Nothing decoded may be a broken character or a CR that turns out to start a CR LF.
            #expect(!piece.contains("\u{FFFD}"))
            #expect(!piece.hasSuffix("\r") || bytes[end - 1] != 0x0D || end == bytes.count || bytes[end] != 0x0A)
            text += piece
            index = end
        }
        text += decoder.finish()
        #expect(text == Self.expected)
    }

    @Test func aCrHeldAtTheEndOfOneAnswerJoinsTheLfOfTheNext() {
        var decoder = ConsoleDecoder()
        #expect(decoder.feed(Array("line\r".utf8)) == "line")
        #expect(decoder.feed(Array("\nnext\r\n".utf8)) == "\nnext\n")
        #expect(decoder.feed(Array("progress\r".utf8)) == "progress")
        #expect(decoder.finish() == "\r", "a CR with nothing after it is kept as it was")
    }
}
