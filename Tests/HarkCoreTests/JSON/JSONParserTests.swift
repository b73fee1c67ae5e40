import Foundation
import Testing
import TestSupport
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

    /// Strings of runs of every length between escapes (the runs are copied at once, a word
    /// at a time) decode as Foundation's JSONSerialization decodes them.
    @Test func escapedStringsDecodeAsFoundationDoes() throws {
        var random = SplitMix(seed: 0xE5CA9E)
        let pieces = [#"\n"#, #"\""#, #"\\"#, #"\/"#, #"\t"#, #"\u00e9"#, #"\u003c"#, #"\ud83d\ude00"#, #"\u0000"#, "é", "😀", "“"]
        for _ in 0..<400 {
            var token = "\""
            for _ in 0..<Int.random(in: 0...6, using: &random) {
                token += String(repeating: "abcdefghij", count: 3).prefix(Int.random(in: 0...25, using: &random))
                token += pieces.randomElement(using: &random)!
            }
            token += String("xyz0123456789".prefix(Int.random(in: 0...13, using: &random))) + "\""
            let expected = try JSONSerialization.jsonObject(with: Data(token.utf8), options: .fragmentsAllowed) as? String
            #expect(try JSON.parse(token).string == expected, "\(token)")
            var appended: [UInt8] = []
            try Array(token.utf8).withUnsafeBufferPointer { try JSONParser.appendString($0, to: &appended) }
            #expect(appended == Array((expected ?? "").utf8), "\(token)")
        }
    }

    /// Skipping a value matches brackets with a bit per level (an array beyond 64): it must
    /// accept and refuse what a stack of brackets does, at the same offsets.
    @Test func skippingMatchesBracketsAsAStackDoes() {
        var random = SplitMix(seed: 0xB1A5)
        let pieces = ["[", "]", "{", "}", "1", ",", "\"s\"", "\"]\"", "\n", " "]
        for length in [1, 2, 5, 20, 64, 65, 130, 600] {
            for _ in 0..<60 {
                var text = Int.random(in: 0..<2, using: &random) == 0 ? "[" : "{"
                for _ in 0..<length { text += pieces.randomElement(using: &random)! }
                // Mostly balanced: a well-formed value deep enough to cross 64 levels.
                if Int.random(in: 0..<3, using: &random) == 0 {
                    let depth = Int.random(in: 60...70, using: &random)
                    text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
                }
                let bytes = Array(text.utf8)
                let found = bytes.withUnsafeBufferPointer { buffer -> String in
                    switch JSONScanner.valueEnd(buffer, at: 0) {
                    case .end(let end, _): "end \(end)"
                    case .malformed(let offset, let reason): "\(reason) at \(offset)"
                    }
                }
                #expect(found == Self.skipWithAStack(bytes), "\(text)")
            }
        }
    }

    /// The bracket walk as it was written with an array for a stack.
    static func skipWithAStack(_ bytes: [UInt8]) -> String {
        var stack: [UInt8] = []
        var index = 0
        repeat {
            guard index < bytes.count else { return "unexpected end at \(index)" }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                    if bytes[index] < 0x20 { return "control character in string at \(index)" }
                    index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
                }
                guard index < bytes.count else { return "unterminated string at \(index)" }
                index += 1
                continue
            case UInt8(ascii: "{"): stack.append(UInt8(ascii: "}"))
            case UInt8(ascii: "["): stack.append(UInt8(ascii: "]"))
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                guard stack.last == byte else { return "mismatched bracket at \(index)" }
                stack.removeLast()
            default:
                break
            }
            index += 1
            if stack.count > JSONParser.maxDepth { return "nested too deeply at \(index)" }
        } while !stack.isEmpty
        return "end \(index)"
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
