import Testing
@testable import HarkCore

@Suite struct HTTPResponseParserTests {
    func parse(_ text: String, cuts: [Int] = [], head: Bool = false) throws -> (HTTPResponseHead?, String, Bool) {
        let bytes = Array(text.utf8)
        var parser = HTTPResponseParser(requestWasHead: head)
        var events: [HTTPResponseParser.Event] = []
        var start = 0
        for cut in cuts.sorted() + [bytes.count] where cut >= start {
            events += try parser.feed(Array(bytes[start..<cut]))
            start = cut
        }
        if !parser.isDone { events += try parser.finish() }
        var responseHead: HTTPResponseHead?
        var body: [UInt8] = []
        var ended = false
        for event in events {
            switch event {
            case .head(let value): responseHead = value
            case .body(let bytes): body += bytes
            case .end: ended = true
            }
        }
        return (responseHead, String(decoding: body, as: UTF8.self), ended)
    }

    static let chunked = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
        + "Set-Cookie: a=1\r\nSet-Cookie: b=2\r\nTransfer-Encoding: chunked\r\n\r\n"
        + "5;ext=1\r\nhello\r\n8\r\n, wörld\r\n0\r\nTrailer: x\r\n\r\n"

    @Test func chunkedBodiesSkippingInterimResponses() throws {
        let (head, body, ended) = try parse(Self.chunked)
        #expect(head?.status == 200)
        #expect(head?.header("set-cookie") == "a=1\nb=2")
        #expect(body == "hello, wörld")
        #expect(ended)
    }

    /// One read: the heads it completes, its body as one piece, then the end.
    @Test func aReadGivesItsHeadThenItsWholeBodyThenTheEnd() throws {
        var parser = HTTPResponseParser()
        let events = try parser.feed(Array(Self.chunked.utf8))
        #expect(events.count == 3)
        if case .head(let head) = events.first { #expect(head.status == 200) } else { Issue.record("no head first: \(events)") }
        #expect(events.dropFirst().first == .body(Array("hello, wörld".utf8)))
        #expect(events.last == .end)
    }

    /// The transport's form: body bytes appended to its own buffer, after what it holds.
    @Test func bodyBytesAreAppendedToTheCallersBuffer() throws {
        var parser = HTTPResponseParser()
        var body: [UInt8] = Array("kept ".utf8)
        let bytes = Array("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello".utf8)
        let events = try bytes.withUnsafeBufferPointer { try parser.feed($0, appendingBodyTo: &body) }
        #expect(events.count == 2)
        #expect(events.last == .end)
        #expect(body == Array("kept hello".utf8))
    }

    @Test func anyCutGivesTheSameResponse() throws {
        let whole = try parse(Self.chunked)
        for cut in 0...Self.chunked.utf8.count {
            let split = try parse(Self.chunked, cuts: [cut])
            #expect(split.0 == whole.0 && split.1 == whole.1 && split.2, "cut at \(cut)")
        }
    }

    /// Chunk framing read where it lies (hex digits and CRLF, the CRLF after the data) must
    /// give what reading each line gives: fed a byte at a time, every line is gathered first.
    @Test func chunkFramingReadInPlaceGivesWhatLinesGive() throws {
        let framings = ["5\r\nhello\r\n", "0005\r\nhello\r\n", "5;name=v\r\nhello\r\n", "5 \r\nhello\r\n",
                        "5\nhello\n", "A\r\n0123456789\r\n", "a\r\n0123456789\r\n", "000000000000005\r\nhello\r\n",
                        "0000000000000005\r\nhello\r\n", "1\r\nx\r\n"]
        let head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        for framing in framings {
            let text = head + framing + framing + "1\r\n!\r\n" + framing + "0\r\n\r\n"
            let whole = try parse(text)
            let byByte = try parse(text, cuts: Array(0...text.utf8.count))
            #expect(whole.1 == byByte.1 && whole.2 && byByte.2, "\(framing.debugDescription)")
            #expect(whole.1.hasSuffix("!") == false && whole.1.contains("!"))
        }
        for bad in ["fffffffffffffffff\r\n", "5\r\nhelloX\r\n", "g\r\n", "\r\n"] {
            #expect(throws: HarkError.self) { try parse(head + bad + "0\r\n\r\n") }
            #expect(throws: HarkError.self) { try parse(head + bad + "0\r\n\r\n", cuts: Array(0...(head + bad).utf8.count)) }
        }
    }

    @Test func contentLengthAndCloseDelimitedBodies() throws {
        #expect(try parse("HTTP/1.1 201 Created\r\nContent-Length: 3\r\n\r\nabcEXTRA").1 == "abc")
        #expect(try parse("HTTP/1.0 200 OK\r\n\r\nuntil close").1 == "until close")
        #expect(try parse("HTTP/1.1 204 No Content\r\n\r\n").2)
        #expect(try parse("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n", head: true).2)
    }

    @Test func truncatedBodiesAreErrors() {
        #expect(throws: HarkError.self) { try parse("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc") }
        #expect(throws: HarkError.self) { try parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab") }
        #expect(throws: HarkError.self) { try parse("HTTP/1.1 200") }
    }

    @Test(arguments: ["garbage\r\n\r\n", "HTTP/1.1 abc OK\r\n\r\n", "HTTP/1.1 200 OK\r\nno colon\r\n\r\n",
                      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"])
    func malformedResponsesAreOneLineErrors(_ text: String) {
        #expect(throws: HarkError.self) { try parse(text) }
    }
}
