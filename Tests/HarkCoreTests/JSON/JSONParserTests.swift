import Testing
@testable import HarkCore

@Suite struct JSONParserTests {
    @Test func parsesEveryKindOfValue() throws {
        let value = try JSON.parse(#"{"a":[1,-2.5,3e2,true,false,null],"b":{"c":"d"},"e":""}"#)
        #expect(value["a"] == [1, -2.5, 300, true, false, nil])
        #expect(value["b"]?["c"]?.string == "d")
        #expect(value["e"]?.string == "")
    }

    @Test func decodesEscapesAndSurrogatePairs() throws {
        let value = try JSON.parse(#""a\"b\\c\/d\n\t\u00e9\ud83d\ude00""#)
        #expect(value.string == "a\"b\\c/d\n\té😀")
    }

    @Test func loneSurrogateBecomesReplacementCharacter() throws {
        #expect(try JSON.parse(#""x\ud800y""#).string == "x\u{FFFD}y")
    }

    @Test func invalidUTF8InStringsIsReplacedNotRejected() throws {
        let bytes: [UInt8] = [0x22, 0x61, 0xFF, 0x62, 0x22]
        #expect(try JSON.parse(bytes).string == "a\u{FFFD}b")
    }

    @Test(arguments: ["", "{", "[1,]", "{\"a\" 1}", "01", "1.", "-", "tru", "\"abc", "{\"a\":1}x", "\"\u{01}\"", "[1 2]"])
    func rejectsMalformedDocuments(_ text: String) {
        #expect(throws: JSONError.self) { try JSON.parse(text) }
    }

    /// appendString is parse(token).string as bytes, for the escaped content of stream chunks;
    /// a token parse refuses leaves the buffer as it was.
    @Test func appendStringGivesWhatParseGives() throws {
        let texts = [#""a\"b\\c\/d\n\t\u00e9\ud83d\ude00""#, #""x\ud800y""#, #""\udc00\ud800\u0041""#, #""plain""#, #""""#, "\"é😀\""]
        // Invalid UTF-8 next to an escape: repaired as a whole, as parse does.
        let tokens = texts.map { Array($0.utf8) } + [[0x22, 0x61, 0xFF, 0x62, 0x5C, 0x6E, 0xC3, 0x22]]
        for token in tokens {
            var text: [UInt8] = Array("before ".utf8)
            try token.withUnsafeBufferPointer { try JSONParser.appendString($0, to: &text) }
            let parsed = try JSON.parse(token).string ?? ""
            #expect(text == Array(("before " + parsed).utf8), "\(token)")
        }
        let refused = [#""\x""#, #""\u12""#, #""\uZZZZ""#, #""\ud800\uZZZZ""#, "\"a\u{01}\"", #""open"#, #""a" "#, #""a"b""#]
        for token in refused.map({ Array($0.utf8) }) {
            var text: [UInt8] = Array("before ".utf8)
            #expect(throws: JSONError.self) { try token.withUnsafeBufferPointer { try JSONParser.appendString($0, to: &text) } }
            #expect(text == Array("before ".utf8))
        }
    }

    @Test func deepNestingIsAnErrorNotACrash() {
        let text = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONError.self) { try JSON.parse(text) }
    }

    @Test func integersKeepTheirValue() throws {
        #expect(try JSON.parse("9007199254740991").int == 9_007_199_254_740_991)
        #expect(try JSON.parse("-42").int == -42)
        #expect(try JSON.parse("1.5").int == nil)
    }

    @Test func encodingRoundTripsAndSortsKeys() throws {
        let value: JSON = ["b": "line\nbreak \"quoted\" \u{01}", "a": [1, 2.5, nil, true]]
        let text = value.encoded()
        #expect(text == #"{"a":[1,2.5,null,true],"b":"line\nbreak \"quoted\" \u0001"}"#)
        #expect(try JSON.parse(text) == value)
    }

    /// Found by the n8n fuzzer: an integer field holding a number beyond Int's range (a
    /// runIndex or token count of 1e999) crashed the scanner.
    @Test func scannerReadsAnOutOfRangeIntegerAsNil() throws {
        for token in ["1e999", "-1e999", "1e19", "9223372036854775808", "2.5e3"] {
            let value = try JSONScanner.scan(Array("{\"n\":\(token)}".utf8)) { root in
                var read: Int?? = .none
                try root.forEachMember { _, value in read = .some(try value.int()) }
                return read
            }
            #expect(value == .some(token == "2.5e3" ? 2500 : nil), "\(token)")
        }
    }
}
