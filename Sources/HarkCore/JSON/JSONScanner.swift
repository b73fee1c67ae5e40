/// Reads chosen values out of a JSON document without building it: a stream of 400,000 small
/// chunks is parsed in the time a full parse spends hashing dictionary keys. The caller walks
/// the members it wants and skips the rest; every value must be read or skipped exactly once.
/// Malformed documents throw, as with JSONParser.
public struct JSONScanner {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    public static func scan<T>(_ document: [UInt8], _ body: (inout JSONScanner) throws -> T) throws -> T {
        try document.withUnsafeBufferPointer { buffer in
            var scanner = JSONScanner(buffer)
            scanner.skipWhitespace()
            let result = try body(&scanner)
            scanner.skipWhitespace()
            guard scanner.index == buffer.count else { throw scanner.error("trailing characters") }
            return result
        }
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
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
            try skip()
            return nil
        }
        let start = index
        try skipString()
        let raw = UnsafeBufferPointer(rebasing: bytes[(start + 1)..<(index - 1)])
        if !raw.contains(UInt8(ascii: "\\")) { return String(decoding: raw, as: UTF8.self) }
        // Escapes: let the full parser decode this one string.
        return try JSONParser.parse(UnsafeBufferPointer(rebasing: bytes[start..<index])).string
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

    private mutating func skipString() throws {
        index += 1  // opening quote
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return
            }
            if byte == UInt8(ascii: "\\") { index += 1 } else if byte < 0x20 { throw error("control character in string") }
            index += 1
        }
        throw error("unterminated string")
    }
}
