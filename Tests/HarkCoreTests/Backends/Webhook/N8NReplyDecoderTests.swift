import Testing
import TestSupport
@testable import HarkCore

@Suite struct N8NReplyDecoderTests {
    func decode(_ body: String, cuts: [Int] = [], contentType: String = "application/json; charset=utf-8") throws -> [ReplyEvent] {
        try decode(Array(body.utf8), cuts: cuts, contentType: contentType)
    }

    func decode(_ bytes: [UInt8], cuts: [Int], contentType: String) throws -> [ReplyEvent] {
        var decoder = N8NReplyDecoder()
        try decoder.start(head: HTTPResponseHead(status: 200, headers: ["content-type": contentType]))
        var events: [ReplyEvent] = []
        var start = 0
        for cut in cuts.sorted() + [bytes.count] where cut >= start {
            events += try decoder.feed(Array(bytes[start..<cut]))
            start = cut
        }
        events += try decoder.finish()
        return events
    }

    func text(_ events: [ReplyEvent]) -> String {
        events.compactMap { if case .text(let text) = $0 { return text } else { return nil } }.joined()
    }

    /// A streamed line past the splitter's 32 MB limit is a one-line protocol error, not the
    /// splitter's own error type printed as Swift would.
    @Test func aLineOverThirtyTwoMegabytesIsAOneLineError() throws {
        var decoder = N8NReplyDecoder()
        try decoder.start(head: HTTPResponseHead(status: 200, headers: [:]))
        _ = try decoder.feed(Array("{\"type\":\"begin\",\"metadata\":{\"nodeId\":\"a\"}}\n{\"type\":\"item\",\"content\":\"".utf8))
        let block = [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20)
        #expect(throws: HarkError.protocolViolation("a line of the webhook's stream is larger than 32 MB")) {
            for _ in 0..<40 { _ = try decoder.feed(block) }
        }
    }

    static let stream = """
        {"type":"begin","metadata":{"nodeId":"a1","nodeName":"AI Agent","itemIndex":0,"runIndex":0,"timestamp":1}}
        {"type":"item","content":"안녕하세요, ","metadata":{"nodeId":"a1","runIndex":0}}
        {"type":"item","content":"wörld 😀\\n","metadata":{"nodeId":"a1","runIndex":0}}
        {"type":"item","content":"done","metadata":{"nodeId":"a1","runIndex":0}}
        {"type":"end","metadata":{"nodeId":"a1","runIndex":0}}

        """

    @Test func streamedChunksBecomeText() throws {
        let events = try decode(Self.stream)
        #expect(text(events) == "안녕하세요, wörld 😀\ndone")
        #expect(events.last == .finished(reason: nil))
    }

    @Test func chunkBoundariesAnywhereGiveTheSameReply() throws {
        let bytes = Array(Self.stream.utf8)
        let whole = text(try decode(bytes, cuts: [], contentType: "application/json"))
        // Every single cut, including inside JSON strings and inside multi-byte characters.
        for cut in 0...bytes.count {
            #expect(text(try decode(bytes, cuts: [cut], contentType: "application/json")) == whole, "cut at \(cut)")
        }
        var generator = SplitMix(seed: 7)
        for _ in 0..<200 {
            let cuts = (0..<Int(generator.next() % 12 + 1)).map { _ in Int(generator.next() % UInt64(bytes.count)) }
            #expect(text(try decode(bytes, cuts: cuts, contentType: "application/json")) == whole)
        }
    }

    @Test func nonJSONLinesInAStreamAreText() throws {
        let body = "{\"type\":\"begin\",\"metadata\":{\"nodeId\":\"a\"}}\nplain words\n{\"type\":\"item\",\"content\":\"!\"}\n"
        #expect(text(try decode(body)) == "plain words!")
    }

    @Test func severalNodesAreKeptApart() throws {
        let body = """
            {"type":"begin","metadata":{"nodeId":"a","runIndex":0}}
            {"type":"item","content":"first","metadata":{"nodeId":"a","runIndex":0}}
            {"type":"end","metadata":{"nodeId":"a","runIndex":0}}
            {"type":"begin","metadata":{"nodeId":"b","runIndex":0}}
            {"type":"item","content":"second","metadata":{"nodeId":"b","runIndex":0}}
            {"type":"end","metadata":{"nodeId":"b","runIndex":0}}
            """
        #expect(text(try decode(body)) == "first\n\nsecond")
    }

    @Test func anErrorChunkFailsTheReplyWithItsMessage() {
        let body = "{\"type\":\"begin\"}\n{\"type\":\"item\",\"content\":\"par\"}\n{\"type\":\"error\",\"content\":\"Model overloaded\"}\n"
        #expect(throws: HarkError.backend("n8n: Model overloaded")) { try decode(body) }
    }

    @Test func aStreamWithNoItemsSaysNoResponse() throws {
        let events = try decode("{\"type\":\"begin\"}\n{\"type\":\"end\"}\n")
        #expect(events.contains(.notice("no response")))
        #expect(text(events).isEmpty)
    }

    @Test(arguments: [
        (#"{"output":"from output","text":"no"}"#, "from output"),
        (#"{"text":"from text","message":"no"}"#, "from text"),
        (#"{"message":"Workflow was started"}"#, "Workflow was started"),
        (#"[{"output":"one"},{"output":"two"}]"#, "one\n\ntwo"),
        ("  {\n  \"output\": \"pretty printed\"\n}\n", "pretty printed"),
        ("\"a bare string\"", "a bare string"),
        ("plain text reply\nsecond line", "plain text reply\nsecond line"),
    ])
    func wholeRepliesFollowOutputTextMessage(_ body: String, _ expected: String) throws {
        for cut in [0, 1, body.utf8.count / 2] {
            #expect(text(try decode(body, cuts: [cut], contentType: "application/json")) == expected)
        }
    }

    @Test func otherJSONIsShownAsJSON() throws {
        #expect(text(try decode(#"{"answer":42}"#)) == "```json\n{\n  \"answer\": 42\n}\n```")
    }

    @Test func executionStartedMeansNoBotMessage() throws {
        let events = try decode(#"{"executionStarted":true,"executionId":"12"}"#)
        #expect(text(events).isEmpty)
        #expect(events.contains(.notice("the workflow started and sends no reply")))
    }

    @Test func binaryBodiesAreDescribedNotPrinted() throws {
        let events = try decode([0x89, 0x50, 0x4E, 0x47, 0xFF, 0x00], cuts: [], contentType: "image/png")
        #expect(events.contains(.notice("binary reply: 6 bytes of image/png")))
    }

    @Test func aSingleChunkWithoutNewlineIsStillAStream() throws {
        #expect(text(try decode(#"{"type":"item","content":"only"}"#)) == "only")
    }
}
