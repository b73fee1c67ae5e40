import Testing
import TestSupport
@testable import HarkCore

/// Feeds `bytes` to a parser in pieces cut at the given offsets.
func feedSSE(_ bytes: [UInt8], cuts: [Int]) throws -> [SSEEvent] {
    var parser = SSEParser()
    var events: [SSEEvent] = []
    var start = 0
    for cut in cuts.sorted() + [bytes.count] where cut >= start {
        events += try parser.feed(Array(bytes[start..<cut]))
        start = cut
    }
    parser.finish()
    return events
}

/// Random cut points, reproducible from the seed.
func randomCuts(count: Int, in length: Int, seed: UInt64) -> [Int] {
    var generator = SplitMix(seed: seed)
    return (0..<count).map { _ in Int(generator.next() % UInt64(max(length, 1))) }
}

@Suite struct SSEParserTests {
    @Test func dispatchesOnBlankLineAndJoinsDataLines() throws {
        let events = try feedSSE(Array("data: one\ndata:two\n\nevent: custom\ndata: three\nid: 7\nretry: 1500\n\n".utf8), cuts: [])
        #expect(events.map(\.text) == ["one\ntwo", "three"])
        #expect(events.map(\.type) == ["message", "custom"])
        #expect(events[1].id == "7")
        #expect(events[1].retry == 1500)
    }

    @Test func dropsOneLeadingBOMAndIgnoresComments() throws {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array(": keep-alive\n\ndata: hi\n\n".utf8)
        for cut in 0...bytes.count {
            let events = try feedSSE(bytes, cuts: [cut])
            #expect(events.map(\.text) == ["hi"], "cut at \(cut)")
        }
    }

    @Test func aSecondBOMIsData() throws {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF, 0xEF, 0xBB, 0xBF] + Array("data: x\n\n".utf8)
        // The second BOM starts the field name, so the line is not a data line.
        #expect(try feedSSE(bytes, cuts: []).isEmpty)
    }

    @Test func crlfSplitAcrossReadsIsOneLineEnd() throws {
        let bytes = Array("data: a\r\n\r\ndata: b\r\r".utf8)
        for cut in 0...bytes.count {
            #expect(try feedSSE(bytes, cuts: [cut]).map(\.text) == ["a", "b"], "cut at \(cut)")
        }
    }

    @Test func loneCarriageReturnsEndLines() throws {
        #expect(try feedSSE(Array("data: a\rdata: b\r\r".utf8), cuts: []).map(\.text) == ["a\nb"])
    }

    @Test func fieldWithoutColonAndSpaceHandling() throws {
        let events = try feedSSE(Array("data\n\ndata:  two spaces\n\n".utf8), cuts: [])
        #expect(events.map(\.text) == ["", " two spaces"])
    }

    @Test func idWithNulIsIgnoredAndRetryNeedsDigits() throws {
        let events = try feedSSE(Array("id: 1\ndata: a\n\nid: x\u{0}y\nretry: 12a\ndata: b\n\n".utf8), cuts: [])
        #expect(events.map(\.id) == ["1", "1"])
        #expect(events[1].retry == nil)
    }

    /// Found by the sse fuzzer: an overflowing retry used to reset the reconnection time to nil.
    @Test func retryTooLargeForAnIntKeepsThePreviousOne() throws {
        let events = try feedSSE(Array("retry: 5\nretry: 99999999999999999999999\ndata: x\n\n".utf8), cuts: [])
        #expect(events.map(\.retry) == [5])
    }

    @Test func incompleteEventAtEOFIsDropped() throws {
        #expect(try feedSSE(Array("data: done\n\ndata: half".utf8), cuts: []).map(\.text) == ["done"])
    }

    @Test func emptyDataBufferDispatchesNothing() throws {
        #expect(try feedSSE(Array("event: ping\n\n".utf8), cuts: []).isEmpty)
    }

    @Test func anyChunkingGivesTheSameEvents() throws {
        var text = "\u{FEFF}: hello\r\n"
        for index in 0..<40 {
            text += "data: {\"n\":\(index),\"s\":\"héllo wörld 😀\"}\r\n"
            if index % 3 == 0 { text += "data: second line\n" }
            text += index % 2 == 0 ? "\r\n" : "\n"
        }
        let bytes = Array(text.utf8)
        let whole = try feedSSE(bytes, cuts: [])
        #expect(whole.count == 40)
        for seed in 0..<200 as Range<UInt64> {
            let cuts = randomCuts(count: Int(seed % 30) + 1, in: bytes.count, seed: seed)
            #expect(try feedSSE(bytes, cuts: cuts) == whole, "seed \(seed)")
        }
        // And one byte at a time.
        #expect(try feedSSE(bytes, cuts: Array(0..<bytes.count)) == whole)
    }

    @Test func oversizedEventIsAnError() {
        var parser = SSEParser(maxEventBytes: 1000)
        #expect(throws: SSEParser.Failure.self) {
            _ = try parser.feed(Array(("data: " + String(repeating: "x", count: 2000)).utf8))
        }
        // A whole line in one read, which the parser reads in place rather than copying.
        var another = SSEParser(maxEventBytes: 1000)
        #expect(throws: SSEParser.Failure.self) {
            _ = try another.feed(Array(("data: " + String(repeating: "x", count: 2000) + "\n").utf8))
        }
    }

    /// A data line longer than a read (a whole reply in one event) is handed over, not copied:
    /// the event is the same wherever the reads cut it, and what follows it still parses.
    @Test func aLongDataLineAcrossReadsIsOneEvent() throws {
        let long = String(repeating: "long line ", count: SSEParser.longLineBytes / 5)
        let stream = Array("event: big\ndata: \(long)\n\ndata: after\n\n: comment \(long)\ndata:\(long)\ndata: second\n\n".utf8)
        var generator = SplitMix(seed: 7)
        for _ in 0..<20 {
            var parser = SSEParser()
            var events: [SSEEvent] = []
            var offset = 0
            while offset < stream.count {
                let size = 1 + Int(generator.next() % UInt64(SSEParser.longLineBytes / 3))
                let end = min(stream.count, offset + size)
                events += try parser.feed(Array(stream[offset..<end]))
                offset = end
            }
            #expect(events == [SSEEvent(type: "big", data: Array(long.utf8)), SSEEvent(data: Array("after".utf8)),
                               SSEEvent(data: Array((long + "\nsecond").utf8))])
        }
    }
}
