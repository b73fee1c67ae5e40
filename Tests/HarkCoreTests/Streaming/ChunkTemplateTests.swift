import Testing
import TestSupport
@testable import HarkCore

/// A decoder that reads chunks shaped like the last plain one by comparing bytes.
protocol TemplatedDecoder: ReplyDecoder {
    var usesTemplate: Bool { get set }
    var chunksReadByTemplate: Int { get }
}

extension ChatCompletionDecoder: TemplatedDecoder {}
extension N8NReplyDecoder: TemplatedDecoder {}

/// What a decoder made of a body: the events of each feed, then of finish, and the error.
struct DecodedFeeds: Equatable, CustomStringConvertible {
    var feeds: [[ReplyEvent]] = []
    var error: HarkError?
    var description: String { "\(feeds) \(error.map { "\($0)" } ?? "no error")" }
    var text: String { feeds.joined().compactMap { if case .text(let text) = $0 { text } else { nil } }.joined() }
}

/// The chunk template must be invisible: every stream gives, feed by feed, the events and the
/// error that the full walk of each chunk gives (a decoder with `usesTemplate` off).
struct TemplateComparison<Decoder: TemplatedDecoder>: Sendable {
    let make: @Sendable () -> Decoder
    let contentType: String

    /// `body` fed in the pieces `cuts` make, by a decoder with or without the template, and how
    /// many chunks the template read.
    func decode(_ body: [UInt8], cuts: [Int], usesTemplate: Bool) -> (DecodedFeeds, templateReads: Int) {
        var decoder = make()
        decoder.usesTemplate = usesTemplate
        var decoded = DecodedFeeds()
        do {
            try decoder.start(head: HTTPResponseHead(status: 200, headers: ["content-type": contentType]))
            var start = 0
            for cut in cuts.sorted() + [body.count] where cut >= start {
                var events: [ReplyEvent] = []
                defer { decoded.feeds.append(events) }
                try decoder.feed(Array(body[start..<cut]), into: &events)
                start = cut
            }
            var events: [ReplyEvent] = []
            defer { decoded.feeds.append(events) }
            try decoder.finish(into: &events)
        } catch {
            decoded.error = error as? HarkError ?? .io("\(error)")
        }
        return (decoded, decoder.chunksReadByTemplate)
    }

    /// Checks that the template changes nothing for `body` cut at `cuts`; returns the decoded
    /// reply and how many chunks the template read.
    @discardableResult
    func expectSameAsFullWalk(_ body: [UInt8], cuts: [Int] = [],
                              sourceLocation: SourceLocation = #_sourceLocation) -> (DecodedFeeds, templateReads: Int) {
        let full = decode(body, cuts: cuts, usesTemplate: false).0
        let fast = decode(body, cuts: cuts, usesTemplate: true)
        #expect(fast.0 == full, "cuts \(cuts) of \(String(decoding: body, as: UTF8.self).debugDescription)",
                sourceLocation: sourceLocation)
        return fast
    }

    @discardableResult
    func expectSameAsFullWalk(_ body: String, cuts: [Int] = [], sourceLocation: SourceLocation = #_sourceLocation)
        -> (DecodedFeeds, templateReads: Int) {
        expectSameAsFullWalk(Array(body.utf8), cuts: cuts, sourceLocation: sourceLocation)
    }
}

@Suite struct ChunkTemplateTests {
    static let check = TemplateComparison(make: { ChatCompletionDecoder() }, contentType: "text/event-stream")

    /// One SSE event of the usual shape; `content` is the string's JSON text, escapes as written.
    static func chunk(_ content: String, id: String = "chatcmpl-1", model: String = "m", finish: String = "null",
                      more: String = "") -> String {
        #"data: {"id":"\#(id)","object":"chat.completion.chunk","created":1700000000,"model":"\#(model)","#
            + #""choices":[{"index":0,"delta":{"content":"\#(content)"},"finish_reason":\#(finish)}]\#(more)}"# + "\n\n"
    }

    static let done = "data: [DONE]\n\n"
    /// The first chunk reports the model and the second becomes the template.
    static let opening = chunk("Hel") + chunk("lo")

    @Test func aTypicalStreamIsReadByTheTemplate() {
        let words = (0..<100).map { "word\($0) " }
        let (decoded, reads) = Self.check.expectSameAsFullWalk(words.map { Self.chunk($0) }.joined() + Self.done)
        #expect(decoded.text == words.joined())
        #expect(decoded.error == nil)
        #expect(reads == 98)
    }

    @Test func escapesAreDecodedAsTheFullWalkDoes() {
        let contents = [#"a\"b"#, #"back\\"#, #"\\\""#, #"caf\u00e9"#, #"\ud83d\ude00"#, #"\ud800"#, #"\ud800x"#,
                        #"\udc00\ud800"#, #"\/\b\f\n\r\t"#, #"\u0000"#, "é 😀", ""]
        for content in contents {
            let (decoded, reads) = Self.check.expectSameAsFullWalk(Self.opening + Self.chunk(content) + Self.done)
            #expect(decoded.error == nil, "\(content)")
            #expect(reads == 1, "\(content)")
        }
        let (decoded, _) = Self.check.expectSameAsFullWalk(Self.opening + Self.chunk(#"\ud83d\ude00 \u00e9"#) + Self.done)
        #expect(decoded.text == "Hello😀 é")
    }

    @Test func invalidUTF8IsRepairedAsTheFullWalkDoes() {
        for bad: [UInt8] in [[0xFF], [0xC3], [0xE2, 0x82], [0xC3, 0x28], [0xED, 0xA0, 0x80]] {
            let chunk = Array(Self.chunk("x@x").utf8).flatMap { $0 == UInt8(ascii: "@") ? bad : [$0] }
            let (decoded, reads) = Self.check.expectSameAsFullWalk(Array(Self.opening.utf8) + chunk + Array(Self.done.utf8))
            #expect(decoded.error == nil)
            #expect(reads == 1)
        }
    }

    @Test func invalidStringsFailAsTheFullWalkDoes() {
        for content in [#"\x"#, #"\u12"#, #"\uZZZZ"#, #"\ud800\uZZZZ"#, "a\u{01}b", "tab\there", #"\"#] {
            let (decoded, _) = Self.check.expectSameAsFullWalk(Self.opening + Self.chunk(content) + Self.chunk("after") + Self.done)
            #expect(decoded.error != nil, "\(content.debugDescription)")
        }
    }

    @Test func chunksThatChangeAnythingElseAreWalked() {
        let stream = Self.opening
            + Self.chunk("a", finish: #""stop""#) + Self.chunk("b")
            + Self.chunk("c", more: #","usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}"#) + Self.chunk("d")
            + Self.chunk("e", model: "other") + Self.chunk("f", id: "chatcmpl-2") + Self.chunk("g")
            + #"data: {"choices":[{"delta":{"reasoning_content":"hmm","content":"h"}}]}"# + "\n\n" + Self.chunk("i")
            + #"data: {"choices":[{"delta":{"content":"j","content":"k"}}]}"# + "\n\n"
            + #"data: {"choices":[{"delta":{"content":"l","content":"m"}}]}"# + "\n\n"
            + Self.chunk("n", finish: #""length""#) + Self.done
        let (decoded, reads) = Self.check.expectSameAsFullWalk(stream)
        #expect(decoded.text == "Helloabcdefghijklmn")
        #expect(decoded.feeds.joined().contains(.usage(Usage(promptTokens: 1, completionTokens: 2, totalTokens: 3))))
        #expect(decoded.feeds.last?.last == .finished(reason: "length"))
        // Read by the template: b (the stop chunk did not replace it), d, g and i. e and f are
        // walked: the model (read once, then left unread) and the id changed, so from then on
        // both may change (g has the first id back); a chunk with two contents is never a template.
        #expect(reads == 4)
    }

    @Test func chunksThatDifferElsewhereAreWalked() {
        let shapes = [
            Self.chunk("x", more: ",\"extra\":1"), Self.chunk("x").replacing("\"content\":\"", with: "\"content\": \""),
            Self.chunk("x").replacing("}]}\n", with: "}]} \n"),
            Self.chunk("x").replacing("}]}\n", with: "}]}}\n"),
            Self.chunk("x").replacing("\"content\":\"x\"", with: "\"content\":null"),
            Self.chunk("x").replacing("\"content\":\"x\"", with: "\"content\":7"),
            Self.chunk("x").replacing("\"content\":\"x\"", with: #""content":"x" "#),
            Self.chunk("x").replacing("\"content\":\"x\"", with: #""content":"x"y""#),
            #"data: {"error":{"message":"overloaded"}}"# + "\n\n",
        ]
        for shape in shapes {
            let (decoded, reads) = Self.check.expectSameAsFullWalk(Self.opening + shape + Self.chunk("z") + Self.done)
            #expect(reads <= 1, "\(shape)")
            _ = decoded
        }
    }

    /// Events are read whole (`data: `, the chunk, two line feeds) only between events; any
    /// other framing goes through the SSE parser and must give the same.
    @Test func otherEventFramingsGiveWhatTheParserGives() {
        let chunk = Self.chunk("x")
        let framings = [
            chunk.replacing("\n\n", with: "\r\n\r\n"), chunk.replacing("data: ", with: "data:"),
            chunk.replacing("data: ", with: "data:  "), "id: 7\n" + chunk, "event: delta\n" + chunk, ": ping\n\n" + chunk,
            chunk.replacing("\n\n", with: "\ndata: \n\n"), chunk.replacing("\n\n", with: "\n\n\n"),
            chunk.replacing(#"{"content":"x"}"#, with: "{\"content\":\"x\\\n\"}"),
            chunk.replacing(#"{"index":0,"#, with: "{\n\"index\":0,").replacing("\n\"index", with: "\ndata: \"index"),
        ]
        for framing in framings {
            let stream = Array(("\u{FEFF}" + Self.opening + framing + Self.chunk("y") + framing + Self.chunk("z") + Self.done).utf8)
            for cut in stride(from: 0, through: stream.count, by: 7) {
                Self.check.expectSameAsFullWalk(stream, cuts: [cut])
            }
        }
    }

    /// A read that starts with a whole event laid out like the template may still be the
    /// second data line of an event begun in the read before (here: an invalid one).
    @Test func anEventBegunInTheLastReadIsFinishedByTheParser() {
        let stream = Array((Self.opening + Self.chunk("x").replacing("\n\n", with: "\n") + Self.chunk("y")
            + Self.chunk("z") + Self.done).utf8)
        for cut in 0...stream.count {
            let (decoded, _) = Self.check.expectSameAsFullWalk(stream, cuts: [cut])
            #expect(decoded.error != nil)
        }
    }

    /// A template taken from an event of two data lines holds a line break; the same bytes
    /// on one data line are two lines to the parser (the second one a field it ignores).
    @Test func aTemplateWithALineBreakIsNotReadAsOneLine() {
        let twoLines = "data: {\"id\":\"c\",\ndata: \"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n"
        let oneLine = "data: {\"id\":\"c\",\n\"choices\":[{\"delta\":{\"content\":\"b\"}}]}\n\n"
        let (decoded, _) = Self.check.expectSameAsFullWalk(Self.opening + twoLines + oneLine + Self.done)
        #expect(decoded.error != nil)
    }

    @Test func anyCutGivesTheSameEventsAsTheFullWalk() {
        let stream = Array((Self.opening + Self.chunk(#"caf\u00e9 "#) + Self.chunk("ok", finish: #""stop""#)
            + Self.chunk(#"\ud83d\ude00"#) + Self.chunk("end") + Self.done).utf8)
        for cut in 0...stream.count {
            Self.check.expectSameAsFullWalk(stream, cuts: [cut])
        }
    }

    /// Streams made of random chunk shapes and random strings (escapes, surrogates, bad bytes,
    /// control characters), fed in random pieces.
    @Test func generatedStreamsMatchTheFullWalk() {
        var random = SplitMix(seed: 0x5EED)
        let pieces = ["a", "é", "😀", " ", #"\""#, #"\\"#, #"\n"#, #"\u00e9"#, #"\ud83d\ude00"#, #"\ud800"#, #"\q"#,
                      "\u{01}", #"\u12G4"#, "\"", "}", "\u{7F}"]
        for _ in 0..<40 {
            var stream = ""
            for _ in 0..<Int.random(in: 1...60, using: &random) {
                var content = ""
                for _ in 0..<Int.random(in: 0...4, using: &random) { content += pieces.randomElement(using: &random)! }
                // Mostly valid: a stream that fails early tests little.
                if Int.random(in: 0..<10, using: &random) < 8 {
                    content = content.replacing(#"\q"#, with: "q").replacing("\u{01}", with: "")
                        .replacing(#"\u12G4"#, with: "").replacing("\"", with: "")
                }
                switch Int.random(in: 0..<10, using: &random) {
                case 0: stream += Self.chunk(content, finish: #""stop""#)
                case 1: stream += Self.chunk(content, id: "chatcmpl-\(Int.random(in: 0..<3, using: &random))")
                case 2: stream += Self.chunk(content, more: #","usage":{"total_tokens":5}"#)
                default: stream += Self.chunk(content)
                }
            }
            let bytes = Array((stream + Self.done).utf8)
            let cuts = (0..<Int.random(in: 0...8, using: &random)).map { _ in Int.random(in: 0...bytes.count, using: &random) }
            Self.check.expectSameAsFullWalk(bytes, cuts: cuts)
        }
    }
}
