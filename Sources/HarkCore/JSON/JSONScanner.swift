/// Reads chosen values out of a JSON document without building it: a stream of 400,000 small
/// chunks is parsed in the time a full parse spends hashing dictionary keys. The caller walks
/// the members it wants and skips the rest; every value must be read or skipped exactly once.
/// Malformed documents throw, as with JSONParser.
public struct JSONScanner {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    public static func scan<T>(_ document: [UInt8], _ body: (inout JSONScanner) throws -> T) throws -> T {
        try document.withUnsafeBufferPointer { buffer in try scan(buffer, body) }
    }

    public static func scan<T>(_ buffer: UnsafeBufferPointer<UInt8>, _ body: (inout JSONScanner) throws -> T) throws -> T {
        var scanner = JSONScanner(buffer)
        scanner.skipWhitespace()
        let result = try body(&scanner)
        scanner.skipWhitespace()
        guard scanner.index == buffer.count else { throw scanner.error("trailing characters") }
        return result
    }

    /// A member name as it appears in the document (escapes are not decoded: the names read this
    /// way are plain ASCII).
    public struct Key {
        let bytes: UnsafeBufferPointer<UInt8>

        public static func == (key: Key, name: StaticString) -> Bool {
            guard key.bytes.count == name.utf8CodeUnitCount else { return false }
            let start = name.utf8Start
            for offset in 0..<key.bytes.count where key.bytes[offset] != start[offset] { return false }
            return true
        }
    }

    private func error(_ reason: String) -> JSONError { JSONError(reason: reason, offset: index) }

    private mutating func skipWhitespace() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 {
            index += 1
        }
    }

    private mutating func expect(_ byte: UInt8) throws {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == byte else { throw error("expected '\(Character(Unicode.Scalar(byte)))'") }
        index += 1
    }

    /// Calls `body` for each member of the object here; `body` must read or skip the value.
    /// Anything but an object (null included) is skipped without calling `body`.
    public mutating func forEachMember(_ body: (Key, inout JSONScanner) throws -> Void) throws {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else { return try skip() }
        index += 1
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a key") }
            let keyStart = index + 1
            try skipString()
            let key = Key(bytes: UnsafeBufferPointer(rebasing: bytes[keyStart..<(index - 1)]))
            try expect(UInt8(ascii: ":"))
            skipWhitespace()
            let before = index
            try body(key, &self)
            if index == before { try skip() }  // a body that ignored the value
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "}") {
                index += 1
                return
            }
            throw error("expected ',' or '}'")
        }
    }

    /// Calls `body` with the array's first element and skips the rest; anything but a
    /// non-empty array is skipped.
    public mutating func firstElement(_ body: (inout JSONScanner) throws -> Void) throws {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "[") else { return try skip() }
        index += 1
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return
        }
        let before = index
        try body(&self)
        if index == before { try skip() }
        while true {
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end") }
            if bytes[index] == UInt8(ascii: "]") {
                index += 1
                return
            }
            guard bytes[index] == UInt8(ascii: ",") else { throw error("expected ',' or ']'") }
            index += 1
            try skip()
        }
    }

    /// The string here, or nil for null or any other type (which is skipped).
    public mutating func string() throws -> String? {
        guard let (quoted, escaped) = try stringToken() else { return nil }
        let raw = UnsafeBufferPointer(rebasing: quoted.dropFirst().dropLast())
        if !escaped { return String(decoding: raw, as: UTF8.self) }
        // Escapes: let the full parser decode this one string.
        return try JSONParser.parse(quoted).string
    }

    /// Appends the string here to `text` as UTF-8 (invalid sequences repaired, as `string()`
    /// does) without making a String of it. Returns where its token lies in the document, quotes
    /// included, for a caller that reuses the document's layout (ChunkTemplate); nil, with the
    /// value skipped, for anything else.
    public mutating func appendString(to text: inout [UInt8]) throws -> Range<Int>? {
        guard let (quoted, escaped) = try stringToken() else { return nil }
        try Self.appendText(of: quoted, escaped: escaped, to: &text)
        return (index - quoted.count)..<index
    }

    /// Appends the text of a string token (quotes included; `escaped` as `scanString` found)
    /// to `text`. Throws, leaving `text` as it was, when an escape is invalid.
    static func appendText(of quoted: UnsafeBufferPointer<UInt8>, escaped: Bool, to text: inout [UInt8]) throws {
        let raw = UnsafeBufferPointer(rebasing: quoted.dropFirst().dropLast())
        // A long string (a whole reply in one chunk) gets its room at once: growing by
        // doubling would hold one and a half times its size while copying.
        if raw.count > 1 << 16 { text.reserveCapacity(text.count + raw.count) }
        if escaped {
            try JSONParser.appendString(quoted, to: &text)
        } else if isASCII(raw) || UTF8Validation.isValid(raw) {
            text.append(contentsOf: raw)
        } else {
            text.append(contentsOf: String(decoding: raw, as: UTF8.self).utf8)
        }
    }

    /// The string token here, quotes included, and whether it holds escapes; nil, with the
    /// value skipped, for anything but a string.
    private mutating func stringToken() throws -> (quoted: UnsafeBufferPointer<UInt8>, escaped: Bool)? {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
            try skip()
            return nil
        }
        let start = index
        let escaped = try skipString()
        return (UnsafeBufferPointer(rebasing: bytes[start..<index]), escaped)
    }

    /// The integer here, or nil for anything else (which is skipped).
    public mutating func int() throws -> Int? {
        skipWhitespace()
        let start = index
        try skip()
        let token = UnsafeBufferPointer(rebasing: bytes[start..<index])
        guard let first = token.first, first == UInt8(ascii: "-") || (0x30...0x39).contains(first) else { return nil }
        // Int(exactly:): a number beyond Int's range (1e999 is infinity) is nil, not a crash.
        return Int(String(decoding: token, as: UTF8.self))
            ?? Double(String(decoding: token, as: UTF8.self)).flatMap { Int(exactly: $0.rounded(.towardZero)) }
    }

    /// Skips one value of any kind, checking that brackets and strings are well formed.
    public mutating func skip() throws {
        skipWhitespace()
        guard index < bytes.count else { throw error("unexpected end") }
        switch bytes[index] {
        case UInt8(ascii: "\""):
            try skipString()
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var stack: [UInt8] = []
            repeat {
                guard index < bytes.count else { throw error("unexpected end") }
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: "\""): try skipString(); continue
                case UInt8(ascii: "{"): stack.append(UInt8(ascii: "}"))
                case UInt8(ascii: "["): stack.append(UInt8(ascii: "]"))
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    guard stack.last == byte else { throw error("mismatched bracket") }
                    stack.removeLast()
                default:
                    break
                }
                index += 1
                if stack.count > JSONParser.maxDepth { throw error("nested too deeply") }
            } while !stack.isEmpty
        default:
            let start = index
            while index < bytes.count {
                let byte = bytes[index]
                let isToken = (0x30...0x39).contains(byte) || (0x61...0x7A).contains(byte) || byte == UInt8(ascii: "-")
                    || byte == UInt8(ascii: "+") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "E")
                guard isToken else { break }
                index += 1
            }
            guard index > start else { throw error("unexpected character") }
        }
    }

    /// Moves past the string that starts here; returns whether it holds an escape.
    @discardableResult
    private mutating func skipString() throws -> Bool {
        switch Self.scanString(bytes, openingQuote: index) {
        case .closed(let end, let escaped):
            index = end
            return escaped
        case .controlCharacter(let offset):
            index = offset
            throw error("control character in string")
        case .unterminated(let offset):
            index = offset
            throw error("unterminated string")
        }
    }

    /// How a string token ends: just past its closing quote (and whether it holds an escape),
    /// or malformed at an offset.
    enum StringEnd {
        case closed(end: Int, escaped: Bool)
        case controlCharacter(at: Int)
        case unterminated(at: Int)
    }

    /// Finds the end of the string whose opening quote is at `quote`: the first quote not
    /// after a backslash. Escapes are only stepped over here; their text is checked when the
    /// string is read (`appendText`, `string()`).
    @inline(__always)
    static func scanString(_ bytes: UnsafeBufferPointer<UInt8>, openingQuote quote: Int) -> StringEnd {
        var index = quote + 1
        var escaped = false
        let count = bytes.count
        guard let base = bytes.baseAddress else { return .unterminated(at: index) }
        while true {
            // Eight bytes at a time (SWAR): most of a stream chunk's bytes are inside strings.
            if index + 8 <= count {
                let mask = lookMask(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
                if mask == 0 {
                    index += 8
                    continue
                }
                // The lowest flagged byte is exact (little-endian): go straight to it.
                index += mask.trailingZeroBitCount >> 3
            } else if index >= count {
                return .unterminated(at: index)
            }
            let byte = base[index]
            if byte == UInt8(ascii: "\"") {
                return .closed(end: index + 1, escaped: escaped)
            }
            if byte == UInt8(ascii: "\\") {
                escaped = true
                index += 2
            } else if byte < 0x20 {
                return .controlCharacter(at: index)
            } else {
                index += 1  // only in the last few bytes, read one at a time
            }
        }
    }

    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// The high bit of each of the eight bytes that is a quote, a backslash or a control
    /// character: the classic "has a zero byte" test, `(x - 0x01…) & ~x & 0x80…`, applied three
    /// times. Only the lowest flag is exact (a borrow can flag a byte above a true hit).
    @inline(__always)
    private static func lookMask(_ word: UInt64) -> UInt64 {
        let quotes = word ^ (ones &* 0x22)
        let backslashes = word ^ (ones &* 0x5C)
        let hasQuote = (quotes &- ones) & ~quotes
        let hasBackslash = (backslashes &- ones) & ~backslashes
        let hasControl = (word &- ones &* 0x20) & ~word
        return (hasQuote | hasBackslash | hasControl) & highBits
    }

    static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        var index = 0
        while index + 8 <= bytes.count {
            if UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self) & highBits != 0 { return false }
            index += 8
        }
        while index < bytes.count {
            if base[index] >= 0x80 { return false }
            index += 1
        }
        return true
    }
}
