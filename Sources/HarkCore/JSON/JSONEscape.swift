/// One backslash escape of a JSON string, decoded to UTF-8: shared by the parser and by the
/// stream's string reader (JSONStringReader), so both read every escape alike.
enum JSONEscape {
    enum Decoded {
        /// Decoded; the escape ends just before `next`.
        case decoded(next: Int)
        /// Malformed, with the parser's reason and the offset it reports.
        case invalid(reason: String, at: Int)
    }

    /// Decodes the escape whose backslash is at `backslash`, appending its UTF-8 to `text`.
    /// `\uXXXX` pairs of surrogates join; a lone surrogate becomes U+FFFD.
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, backslash: Int, into text: inout [UInt8]) -> Decoded {
        var index = backslash + 1
        guard index < bytes.count else { return .invalid(reason: "unterminated escape", at: index) }
        let escape = bytes[index]
        index += 1
        switch escape {
        case UInt8(ascii: "\""): text.append(0x22)
        case UInt8(ascii: "\\"): text.append(0x5C)
        case UInt8(ascii: "/"): text.append(0x2F)
        case UInt8(ascii: "b"): text.append(0x08)
        case UInt8(ascii: "f"): text.append(0x0C)
        case UInt8(ascii: "n"): text.append(0x0A)
        case UInt8(ascii: "r"): text.append(0x0D)
        case UInt8(ascii: "t"): text.append(0x09)
        case UInt8(ascii: "u"):
            switch unicodeEscape(bytes, at: index) {
            case .success(let (scalar, next)):
                UTF8.encode(scalar) { text.append($0) }
                index = next
            case .failure(let invalid):
                return invalid
            }
        default:
            return .invalid(reason: "invalid escape", at: index)
        }
        return .decoded(next: index)
    }

    /// The scalar of a `\u` escape whose hex digits start at `start`, joining a surrogate pair;
    /// a lone surrogate is U+FFFD.
    private static func unicodeEscape(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int)
        -> Result<(Unicode.Scalar, Int), Decoded> {
        guard let first = hex4(bytes, at: start) else { return .failure(hexFailure(bytes, at: start)) }
        var index = start + 4
        if (0xD800...0xDBFF).contains(first) {
            if index + 6 <= bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") {
                guard let second = hex4(bytes, at: index + 2) else { return .failure(hexFailure(bytes, at: index + 2)) }
                if (0xDC00...0xDFFF).contains(second) {
                    index += 6
                    let combined = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                    return .success((Unicode.Scalar(combined) ?? "\u{FFFD}", index))
                }
            }
            return .success(("\u{FFFD}", index))
        }
        return .success((Unicode.Scalar(first) ?? "\u{FFFD}", index))
    }

    /// Four hex digits at `start`, or nil.
    private static func hex4(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> UInt32? {
        guard start + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for offset in 0..<4 {
            guard let digit = hexDigit(bytes[start + offset]) else { return nil }
            value = value << 4 | digit
        }
        return value
    }

    private static func hexDigit(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    /// Why four hex digits at `start` are not: too few bytes, or the first that is no digit.
    private static func hexFailure(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> Decoded {
        guard start + 4 <= bytes.count else { return .invalid(reason: "short \\u escape", at: start) }
        let bad = (start..<(start + 4)).first { hexDigit(bytes[$0]) == nil } ?? start
        return .invalid(reason: "invalid \\u escape", at: bad)
    }
}

extension JSONEscape.Decoded: Error {}
