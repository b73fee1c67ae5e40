/// What was wrong with a JSON document, and where.
public struct JSONError: Error, Sendable, Equatable, CustomStringConvertible {
    public let reason: String
    public let offset: Int
    public var description: String { "invalid JSON at byte \(offset): \(reason)" }
}

/// A strict RFC 8259 parser over UTF-8 bytes. Invalid UTF-8 inside strings is replaced by
/// U+FFFD rather than rejected: a reply with one bad byte is still worth showing.
public struct JSONParser {
    static let maxDepth = 512

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var depth = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONError) -> JSON {
        var parser = JSONParser(bytes)
        parser.skipWhitespace()
        let value = try parser.parseValue()
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.error("trailing characters") }
        return value
    }

    private func error(_ reason: String) -> JSONError { JSONError(reason: reason, offset: index) }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    private mutating func parseValue() throws(JSONError) -> JSON {
        guard index < bytes.count else { throw error("unexpected end") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected character")
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONError) {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw error("unexpected end") }
        let start = literal.utf8Start
        for offset in 0..<count where bytes[index + offset] != start[offset] {
            throw error("invalid literal")
        }
        index += count
    }

    private mutating func enter() throws(JSONError) {
        depth += 1
        if depth > JSONParser.maxDepth { throw error("nested too deeply") }
    }

    private mutating func parseObject() throws(JSONError) -> JSON {
        try enter()
        index += 1
        var members: [String: JSON] = [:]
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a key") }
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':'") }
            index += 1
            skipWhitespace()
            members[key] = try parseValue()
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; break }
            throw error("expected ',' or '}'")
        }
        depth -= 1
        return .object(members)
    }

    private mutating func parseArray() throws(JSONError) -> JSON {
        try enter()
        index += 1
        var items: [JSON] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(items)
        }
        while true {
            skipWhitespace()
            items.append(try parseValue())
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; break }
            throw error("expected ',' or ']'")
        }
        depth -= 1
        return .array(items)
    }

    private mutating func parseString() throws(JSONError) -> String {
        index += 1  // opening quote
        let start = index
        // Fast path: no escapes, so the bytes are the string.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw error("control character in string") }
            index += 1
        }
        guard index < bytes.count else { throw error("unterminated string") }
        var scalars: [UInt8] = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
        try decodeStringRest(into: &scalars)
        return String(decoding: scalars, as: UTF8.self)
    }

    /// Appends the text of the string token `quoted` (quotes included) to `text` as UTF-8,
    /// escapes decoded and invalid UTF-8 repaired: the bytes of `parse(quoted).string`, without
    /// building a String and a JSON value for each of a stream's escaped tokens. Throws, with
    /// `text` unchanged, when the token is not one valid string.
    static func appendString(_ quoted: UnsafeBufferPointer<UInt8>, to text: inout [UInt8]) throws(JSONError) {
        var parser = JSONParser(quoted)
        let start = text.count
        do throws(JSONError) {
            guard quoted.first == UInt8(ascii: "\"") else { throw parser.error("expected a string") }
            parser.index = 1
            try parser.decodeStringRest(into: &text)
            guard parser.index == quoted.count else { throw parser.error("trailing characters") }
        } catch {
            text.removeSubrange(start...)
            throw error
        }
        // Checked in place first: the repair copies, twice, which for one 30 MB string was
        // four times its size in memory.
        if !text.withUnsafeBufferPointer({
            let added = UnsafeBufferPointer(rebasing: $0[start...])
            return JSONScanner.isASCII(added) || UTF8Validation.isValid(added)
        }) {
            // What String(decoding:) makes of them, as parseString returns.
            let repaired = String(decoding: text[start...], as: UTF8.self)
            text.replaceSubrange(start..., with: repaired.utf8)
        }
    }

    /// Decodes the rest of a string, from `index` to its closing quote, into `scalars`: raw
    /// bytes as they are (repaired later, with the rest) and escapes as UTF-8.
    private mutating func decodeStringRest(into scalars: inout [UInt8]) throws(JSONError) {
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return
            case UInt8(ascii: "\\"):
                switch JSONEscape.decode(bytes, backslash: index, into: &scalars) {
                case .decoded(let next): index = next
                case .invalid(let reason, let offset):
                    index = offset
                    throw error(reason)
                }
            default:
                if byte < 0x20 { throw error("control character in string") }
                // The run up to the next escape or quote at once: prose sent with a `\n` every
                // line is long runs between escapes, and a byte at a time was most of its cost.
                let end = JSONScanner.plainRunEnd(bytes, from: index + 1)
                scalars.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[index..<end]))
                index = end
            }
        }
        throw error("unterminated string")
    }

    private mutating func parseNumber() throws(JSONError) -> JSON {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count else { throw error("invalid number") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else if (UInt8(ascii: "1")...UInt8(ascii: "9")).contains(bytes[index]) {
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
        } else {
            throw error("invalid number")
        }
        var integral = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            integral = false
            index += 1
            let digits = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            guard index > digits else { throw error("invalid number") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            integral = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            let digits = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            guard index > digits else { throw error("invalid number") }
        }
        let slice = UnsafeBufferPointer(rebasing: bytes[start..<index])
        if integral, slice.count <= 15 {
            var value = 0
            var negative = false
            for byte in slice {
                if byte == UInt8(ascii: "-") { negative = true; continue }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return .number(Double(negative ? -value : value))
        }
        guard let value = Double(String(decoding: slice, as: UTF8.self)) else { throw error("invalid number") }
        return .number(value)
    }
}
