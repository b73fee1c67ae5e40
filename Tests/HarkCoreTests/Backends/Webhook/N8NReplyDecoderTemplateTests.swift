import Testing
import TestSupport
@testable import HarkCore

/// n8n items read by the chunk template give what reading every line gives (see
/// TemplateComparison in ChunkTemplateTests).
@Suite struct N8NReplyDecoderTemplateTests {
    static let check = TemplateComparison(make: { N8NReplyDecoder() }, contentType: "application/json; charset=utf-8")

    /// One line of n8n's stream; `content` is the string's JSON text, escapes as written.
    static func item(_ content: String, node: String = "a1", run: Int = 0, type: String = "item") -> String {
        #"{"type":"\#(type)","content":"\#(content)","metadata":{"nodeId":"\#(node)","nodeName":"AI Agent","#
            + #""itemIndex":0,"runIndex":\#(run),"timestamp":1}}"# + "\n"
    }

    static let begin = #"{"type":"begin","metadata":{"nodeId":"a1","nodeName":"AI Agent","itemIndex":0,"runIndex":0}}"# + "\n"
    static let end = #"{"type":"end","metadata":{"nodeId":"a1","runIndex":0}}"# + "\n"

    @Test func aTypicalStreamIsReadByTheTemplate() {
        let words = (0..<100).map { "word\($0) " }
        let (decoded, reads) = Self.check.expectSameAsFullWalk(Self.begin + words.map { Self.item($0) }.joined() + Self.end)
        #expect(decoded.text == words.joined())
        #expect(decoded.error == nil)
        #expect(reads == 99)
    }

    /// n8n stamps each chunk with `Date.now()` (StructuredChunk's `metadata.timestamp`, in
    /// packages/frontend/@n8n/chat/src/types/streaming.ts): a value hark does not read, so the
    /// template lets it change; a change of node or run is still read by the full walk.
    @Test func aTimestampThatChangesWithEveryLineIsReadByTheTemplate() {
        let words = (0..<60).map { "word\($0) " }
        let lines = words.enumerated().map { index, word in
            Self.item(word, node: index < 40 ? "a1" : "b2").replacing("\"timestamp\":1}", with: "\"timestamp\":\(1_764_000_000_000 + index * 7)}")
        }
        let (decoded, reads) = Self.check.expectSameAsFullWalk(Self.begin + lines.joined() + Self.end)
        #expect(decoded.text == words[..<40].joined() + "\n\n" + words[40...].joined())
        #expect(reads >= 55, "\(reads) of 60")
    }

    @Test func escapesAndBadBytesAreReadAsTheFullWalkDoes() {
        for content in [#"a\"b"#, #"back\\"#, #"caf\u00e9"#, #"\ud83d\ude00"#, #"\ud800"#, #"line\n"#, "é 😀", "",
                        #"\x"#, #"\u12"#, "a\u{01}b", #"\"#] {
            Self.check.expectSameAsFullWalk(Self.begin + Self.item("one") + Self.item(content) + Self.item("two") + Self.end)
        }
        for bad: [UInt8] in [[0xFF], [0xC3], [0xE2, 0x82], [0xED, 0xA0, 0x80]] {
            let line = Array(Self.item("x@x").utf8).flatMap { $0 == UInt8(ascii: "@") ? bad : [$0] }
            let (_, reads) = Self.check.expectSameAsFullWalk(Array((Self.begin + Self.item("one")).utf8) + line + Array(Self.end.utf8))
            #expect(reads == 1)
        }
    }

    /// Another node or run writing in between puts a blank line between the texts; the
    /// template of the first run must not skip it when that run writes again.
    @Test func runsTakingTurnsKeepTheirSeparators() {
        let stream = Self.begin + Self.item("a") + Self.item("b") + Self.item("c", node: "b2") + Self.item("d")
            + Self.item("", node: "b2") + Self.item("e") + Self.item("f", run: 1) + Self.item("g", run: 1)
            + Self.item("h") + "not json\n" + Self.item("i") + Self.item("j", type: "begin") + Self.item("k")
            // A line of another run that does not become the template (two contents): the
            // first run's template must not be used for "l", which needs a separator.
            + #"{"type":"item","content":"x","content":"y","metadata":{"nodeId":"b2","runIndex":0}}"# + "\n"
            + Self.item("l") + Self.end
        let (decoded, reads) = Self.check.expectSameAsFullWalk(stream)
        #expect(decoded.text == "ab\n\nc\n\nde\n\nfg\n\nhnot jsonik\n\ny\n\nl")
        #expect(reads > 0)
    }

    /// An error chunk and a keepalive between items: a notice and nothing, and the items
    /// after them are still read by the template, as the full walk reads them.
    @Test func errorAndKeepaliveLinesBetweenItemsAreReadAsTheFullWalkDoes() {
        let stream = Self.begin + Self.item("a") + Self.item("b") + Self.item("failed", type: "error")
            + #"{"type":"keepalive"}"# + "\n" + Self.item("c") + Self.item("d") + Self.end
        let (decoded, reads) = Self.check.expectSameAsFullWalk(stream)
        #expect(decoded.error == nil)
        #expect(decoded.text == "abcd")
        #expect(decoded.feeds.joined().contains(.notice("AI Agent failed: failed")))
        #expect(reads == 3)
        let bytes = Array(stream.utf8)
        for cut in 0...bytes.count { Self.check.expectSameAsFullWalk(bytes, cuts: [cut]) }
    }

    @Test func anyCutGivesTheSameEventsAsTheFullWalk() {
        let stream = Array((Self.begin + Self.item("one ") + Self.item(#"caf\u00e9 "#) + Self.item("x", node: "b2")
            + Self.item("two") + Self.item(#"\ud83d\ude00"#) + Self.end).utf8)
        for cut in 0...stream.count {
            Self.check.expectSameAsFullWalk(stream, cuts: [cut])
        }
    }

    @Test func generatedStreamsMatchTheFullWalk() {
        var random = SplitMix(seed: 0xA8A8)
        let pieces = ["a", "é", "😀", " ", #"\""#, #"\\"#, #"\n"#, #"\u00e9"#, #"\ud800"#, #"\q"#, "\u{01}", "}"]
        for _ in 0..<40 {
            var stream = Self.begin
            for _ in 0..<Int.random(in: 1...60, using: &random) {
                var content = ""
                for _ in 0..<Int.random(in: 0...4, using: &random) { content += pieces.randomElement(using: &random)! }
                switch Int.random(in: 0..<10, using: &random) {
                case 0: stream += Self.item(content, node: "b2")
                case 1: stream += Self.item(content, run: 1)
                case 2: stream += "plain text \(content)\n"
                default: stream += Self.item(content)
                }
            }
            let bytes = Array((stream + Self.end).utf8)
            let cuts = (0..<Int.random(in: 0...8, using: &random)).map { _ in Int.random(in: 0...bytes.count, using: &random) }
            Self.check.expectSameAsFullWalk(bytes, cuts: cuts)
        }
    }
}
