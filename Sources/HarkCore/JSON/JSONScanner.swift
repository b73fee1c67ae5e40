/// Reads chosen values out of a JSON document without building it: a stream of 400,000 small
/// chunks is parsed in the time a full parse spends hashing dictionary keys. The caller walks
/// the members it wants and skips the rest; every value must be read or skipped exactly once.
/// Malformed documents throw, as with JSONParser.
public struct JSONScanner {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    /// Where the values lie that the caller left unread, when it asked (`scan(_:ignored:_:)`).
    private var ignored: [Range<Int>]?

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

    /// The same, noting in `ignored` where each value lies that `body` left unread: members it
    /// did not read and the elements after an array's first. Walking another document that
    /// differs only inside those values would read exactly the same (ChunkTemplate relies on it).
    static func scan<T>(_ buffer: UnsafeBufferPointer<UInt8>, ignored: inout [Range<Int>],
                        _ body: (inout JSONScanner) throws -> T) throws -> T {
        var scanner = JSONScanner(buffer)
        scanner.ignored = []
        defer { ignored = scanner.ignored ?? [] }
        scanner.skipWhitespace()
        let result = try body(&scanner)
        scanner.skipWhitespace()
        guard scanner.index == buffer.count else { throw scanner.error("trailing characters") }
        return result
    }

    /// Skips a value the caller did not read, noting where it lies when asked to.
    private mutating func skipIgnored() throws {
        skipWhitespace()
        let start = index
        try skip()
        ignored?.append(start..<index)
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
            if index == before { try skipIgnored() }  // a body that ignored the value
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
        if index == before { try skipIgnored() }
        while true {
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end") }
            if bytes[index] == UInt8(ascii: "]") {
                index += 1
                return
            }
            guard bytes[index] == UInt8(ascii: ",") else { throw error("expected ',' or ']'") }
            index += 1
            try skipIgnored()
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
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "\""),
           let end = Self.appendStringToken(bytes, openingQuote: index, to: &text) {
            defer { index = end }
            return index..<end
        }
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
        switch Self.valueEnd(bytes, at: index) {
        case .end(let end, _):
            index = end
        case .malformed(let offset, let reason):
            index = offset
            throw error(reason)
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
}
