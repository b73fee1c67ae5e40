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

    /// n8n sends an error chunk for each failing node (also one set to continue on fail) and
    /// goes on streaming (packages/core/src/execution-engine/workflow-execute.ts): a notice on
    /// one line, in its place among the text, and the final answer still arrives.
    @Test func anErrorChunkIsANoticeAndTheStreamGoesOn() throws {
        let body = #"{"type":"begin","metadata":{"nodeId":"a1","nodeName":"AI Agent"}}"# + "\n"
            + #"{"type":"item","content":"par","metadata":{"nodeId":"a1","nodeName":"AI Agent"}}"# + "\n"
            + #"{"type":"error","content":"Model overloaded\nretry later\r\n  (429)","metadata":{"nodeId":"s1","nodeName":"Search"}}"# + "\n"
            + #"{"type":"error","metadata":{"nodeId":"s2","nodeName":"Lookup","runIndex":0,"itemIndex":0}}"# + "\n"
            + #"{"type":"item","content":"tial answer","metadata":{"nodeId":"a1","nodeName":"AI Agent"}}"# + "\n"
            + #"{"type":"end","metadata":{"nodeId":"a1"}}"# + "\n"
        let events = ReplyEvent.coalesced(try decode(body))
        #expect(events == [.text("par"), .notice("Search failed: Model overloaded retry later (429)"), .notice("Lookup failed"),
                           .text("tial answer"), .finished(reason: nil)])
    }

    /// A workflow whose nodes only failed sent no answer: that is an error, with the last.
    @Test func aStreamOfOnlyErrorsFailsWithTheLast() {
        let body = "{\"type\":\"begin\"}\n{\"type\":\"error\",\"content\":\"Model overloaded\"}\n{\"type\":\"end\"}\n"
        #expect(throws: HarkError.backend("n8n: a node failed: Model overloaded")) { try decode(body) }
    }

    /// n8n writes `{"type":"keepalive"}` every 30 s while it streams
    /// (packages/cli/src/webhooks/streaming-webhook-response-heartbeat.ts), first too when the
    /// agent thinks long; n8n's widget skips any type it does not know, and so does hark.
    @Test(arguments: [
        "{\"type\":\"keepalive\"}\n{\"type\":\"begin\"}\n{\"type\":\"item\",\"content\":\"hi\"}\n{\"type\":\"keepalive\"}\n{\"type\":\"end\"}\n",
        "{\"type\":\"keepalive\"}\n{\"type\":\"keepalive\"}\n{\"type\":\"item\",\"content\":\"hi\"}\n{\"type\":\"progress\",\"content\":\"x\"}\n{\"no\":\"type\"}\n",
        "{\"type\":\"begin\"}\n{\"type\":\"item\",\"content\":\"h\"}\n{\"type\":\"keepalive\"}\n{\"type\":\"item\",\"content\":\"i\"}",
    ])
    func keepalivesAndUnknownChunkTypesAreSkipped(_ body: String) throws {
        let events = ReplyEvent.coalesced(try decode(body))
        #expect(events == [.text("hi"), .finished(reason: nil)])
        let bytes = Array(body.utf8)
        for cut in 0...bytes.count {
            #expect(ReplyEvent.coalesced(try decode(bytes, cuts: [cut], contentType: "application/json")) == events, "cut at \(cut)")
        }
    }

    @Test func aStreamOfOnlyKeepalivesSaysNoResponse() throws {
        #expect(try decode("{\"type\":\"keepalive\"}\n") == [.notice("no response"), .finished(reason: nil)])
    }

    /// A whole reply that merely has a `type` member is still a whole reply.
    @Test func aWholeReplyWithATypeMemberIsNotAStream() throws {
        #expect(text(try decode(#"{"type":"order","output":"shipped"}"#)) == "shipped")
        #expect(text(try decode(#"{"type":"order","output":"shipped"}"# + "\n")) == "shipped")
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

    /// "Using Response Nodes": the execution goes to the chat socket when the backend takes it.
    @Test func executionStartedIsHandedOverWithItsResumeToken() throws {
        let handOver = N8NExecutionHandOver()
        var decoder = N8NReplyDecoder(handOver: handOver)
        try decoder.start(head: HTTPResponseHead(status: 200, headers: ["content-type": "application/json"]))
        let events = try decoder.feed(Array(#"{"executionStarted":true,"executionId":12,"resumeToken":"t.k"}"#.utf8))
            + (try decoder.finish())
        #expect(events == [.finished(reason: nil)])
        #expect(handOver.execution == N8NExecution(id: "12", token: "t.k"))
    }

    /// A body that is no text fails the reply (exit 6) and carries what arrived, for the
    /// history to keep; nothing of it is an event to print.
    @Test func binaryBodiesFailAndCarryWhatArrived() throws {
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0xFF, 0x00]
        #expect {
            _ = try decode(png, cuts: [], contentType: "image/png")
        } throws: { error in
            guard let unshowable = error as? UnshowableReply else { return false }
            return unshowable.received == String(decoding: png, as: UTF8.self) && unshowable.error.exitCode == .backend
                && unshowable.error.message.contains("6 bytes of binary data (image/png)")
        }
    }

    /// An error before any answer is held until the answer comes (then shown as a notice before
    /// it), so that a stream of errors alone says each error once, the last as the failure.
    @Test func errorsBeforeTheAnswerAreNoticesBeforeIt() throws {
        let body = #"{"type":"error","content":"lookup down","metadata":{"nodeName":"CRM"}}"# + "\n"
            + #"{"type":"item","content":"Shipped."}"# + "\n"
        for cut in 0...body.utf8.count {
            let events = try decode(body, cuts: [cut])
            #expect(events.filter { if case .notice = $0 { return true } else { return false } } == [.notice("CRM failed: lookup down")])
            #expect(text(events) == "Shipped.")
            let noticeAt = events.firstIndex(of: .notice("CRM failed: lookup down"))
            let textAt = events.firstIndex { if case .text = $0 { return true } else { return false } }
            #expect(noticeAt != nil && textAt != nil && noticeAt! < textAt!)
        }
        let onlyErrors = #"{"type":"error","content":"first"}"# + "\n" + #"{"type":"error","content":"second"}"# + "\n"
        #expect(throws: HarkError.backend("n8n: a node failed: second")) { try decode(onlyErrors) }
    }

    @Test func aSingleChunkWithoutNewlineIsStillAStream() throws {
        #expect(text(try decode(#"{"type":"item","content":"only"}"#)) == "only")
    }
}
