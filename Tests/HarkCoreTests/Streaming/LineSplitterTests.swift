import Testing
@testable import HarkCore

@Suite struct LineSplitterTests {
    func split(_ bytes: [UInt8], cuts: [Int]) throws -> [String] {
        var splitter = LineSplitter()
        var lines: [[UInt8]] = []
        var start = 0
        for cut in cuts.sorted() + [bytes.count] where cut >= start {
            lines += try splitter.feed(Array(bytes[start..<cut]))
            start = cut
        }
        if let last = splitter.finish() { lines.append(last) }
        return lines.map { String(decoding: $0, as: UTF8.self) }
    }

    @Test func splitsAtNewlinesSkippingBlankLinesAndKeepingTheTail() throws {
        #expect(try split(Array("a\n\n  \nb\r\nc".utf8), cuts: []) == ["a", "b", "c"])
    }

    @Test func multiByteCharactersSplitAcrossChunksSurvive() throws {
        let bytes = Array("{\"content\":\"한국어 😀\"}\n{\"content\":\"é\"}\n".utf8)
        let whole = try split(bytes, cuts: [])
        for cut in 0...bytes.count {
            #expect(try split(bytes, cuts: [cut]) == whole, "cut at \(cut)")
        }
        #expect(whole == ["{\"content\":\"한국어 😀\"}", "{\"content\":\"é\"}"])
    }

    @Test func overlongLineIsAnError() {
        var splitter = LineSplitter(maxLineBytes: 10)
        #expect(throws: LineSplitter.Failure.self) { _ = try splitter.feed(Array("0123456789abc".utf8)) }
    }
}
