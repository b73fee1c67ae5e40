import Testing
@testable import HarkCore

/// The stand-ins for NSString's search, replace, format and percent-encoding: the same results
/// on the inputs hark gives them.
@Suite struct TextSearchTests {
    @Test func replacingIsLiteralAndByScalar() {
        #expect("a-b-c".replacingOccurrences(of: "-", with: "+") == "a+b+c")
        #expect("none here".replacingOccurrences(of: "x", with: "y") == "none here")
        // A "\n" inside "\r\n" is one Character but two scalars: it is still found.
        #expect("one\r\ntwo".replacingOccurrences(of: "\n", with: "|") == "one\r|two")
        #expect("é and é".replacingOccurrences(of: "é", with: "e") == "e and e")
        #expect("aaa".replacingOccurrences(of: "aa", with: "b") == "ba")
        #expect("x".replacingOccurrences(of: "", with: "y") == "x")
        #expect("Line<BR>break<br/>".replacingOccurrences(of: "<br>", with: " ", options: .caseInsensitive) == "Line break<br/>")
    }

    @Test func rangeFindsTheFirstMatchWithinTheRangeGiven() throws {
        let text = "<Title>Bad Gateway</TITLE>"
        let start = try #require(text.range(of: "<title>", options: .caseInsensitive))
        let end = try #require(text.range(of: "</title>", options: .caseInsensitive, range: start.upperBound..<text.endIndex))
        #expect(text[start.upperBound..<end.lowerBound] == "Bad Gateway")
        #expect(text.range(of: "<title>") == nil)
        #expect("{{a}} {{b}}".dropFirst(3).range(of: "{{").map { "{{a}} {{b}}".distance(from: "{{a}} {{b}}".startIndex, to: $0.lowerBound) } == 6)
        #expect("Main Branch".localizedCaseInsensitiveContains("main b"))
        #expect(!"Main".localizedCaseInsensitiveContains("mains"))
    }

    @Test func cFormatIsPrintf() {
        #expect(String(cFormat: "%.1fs", 2.25) == "2.2s")
        #expect(String(cFormat: "%dm%02ds", 3, 7) == "3m07s")
        #expect(String(cFormat: "%.1f MB", 1536.0 / 1024) == "1.5 MB")
        let long = String(cFormat: "%0300d", 1)
        #expect(long.count == 300 && long.hasSuffix("01"))
    }

    @Test func percentEncodingRoundTrips() {
        #expect("a b/c?d#é~".percentEncoded(keeping: "-._~") == "a%20b%2Fc%3Fd%23%C3%A9~")
        #expect("tok/en+42=abc".percentEncoded() == "tok%2Fen%2B42%3Dabc")
        #expect("a%20b%2Fc%C3%A9".percentDecoded == "a b/cé")
        #expect("100%".percentDecoded == nil)
        #expect("%zz".percentDecoded == nil)
        #expect("%FF".percentDecoded == nil, "not UTF-8")
    }
}
