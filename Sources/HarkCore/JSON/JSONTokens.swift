/// Token-level scanning shared by JSONScanner, the parser and ChunkTemplate: where a string or
/// any value ends, found eight bytes at a time where most of a stream chunk's bytes are.
extension JSONScanner {
    /// Where the value that starts exactly at `start` ends, as `skip` reads it, and whether a
    /// line break lies between its tokens; or where and why it is malformed.
    enum ValueEnd {
        case end(Int, lineBreak: Bool)
        case malformed(at: Int, reason: String)
    }

    /// What `skip` does after the whitespace, for a caller that knows where a value starts
    /// (ChunkTemplate's varying values). Brackets are matched with a bit per level, the first
    /// 64 levels without an allocation.
    static func valueEnd(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> ValueEnd {
        let count = bytes.count
        guard start < count else { return .malformed(at: start, reason: "unexpected end") }
        var index = start
        switch bytes[start] {
        case UInt8(ascii: "\""):
            return stringEnd(bytes, at: start)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            // Bit set: an object is open at that level; deeper levels go to `deeper`.
            var objects: UInt64 = 0
            var deeper: [Bool] = []
            var depth = 0
            var lineBreak = false
            repeat {
                // Numbers, names, commas and colons eight bytes at a time (a `logprobs` object in
                // every chunk is mostly those and strings).
                while index + 8 <= count {
                    let mask = structureMask(UnsafeRawPointer(bytes.baseAddress! + index).loadUnaligned(as: UInt64.self))
                    if mask != 0 {
                        index += mask.trailingZeroBitCount >> 3
                        break
                    }
                    index += 8
                }
                guard index < count else { return .malformed(at: index, reason: "unexpected end") }
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: "\""):
                    switch scanString(bytes, openingQuote: index) {
                    case .closed(let end, _): index = end
                    case .controlCharacter(let offset): return .malformed(at: offset, reason: "control character in string")
                    case .unterminated(let offset): return .malformed(at: offset, reason: "unterminated string")
                    }
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    let isObject = byte == UInt8(ascii: "{")
                    if depth < 64 {
                        if isObject { objects |= 1 << UInt64(depth) } else { objects &= ~(1 << UInt64(depth)) }
                    } else {
                        deeper.append(isObject)
                    }
                    depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    let top = depth - 1
                    let isObject = top >= 64 ? deeper.last == true : (objects >> UInt64(max(top, 0))) & 1 == 1
                    guard depth > 0, isObject == (byte == UInt8(ascii: "}")) else {
                        return .malformed(at: index, reason: "mismatched bracket")
                    }
                    if top >= 64 { deeper.removeLast() }
                    depth -= 1
                case 0x0A, 0x0D:
                    lineBreak = true
                default:
                    break
                }
                index += 1
                if depth > JSONParser.maxDepth { return .malformed(at: index, reason: "nested too deeply") }
            } while depth > 0
            return .end(index, lineBreak: lineBreak)
        default:
            while index < count, isTokenByte(bytes[index]) { index += 1 }
            guard index > start else { return .malformed(at: index, reason: "unexpected character") }
            return .end(index, lineBreak: false)
        }
    }

    /// A byte of a number or a name (`true`, `null`): what `skip` reads as one token.
    @inline(__always)
    static func isTokenByte(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x61...0x7A).contains(byte) || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: "+") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "E")
    }

    /// The string that starts at `quote`, as a value's end.
    @inline(__always)
    private static func stringEnd(_ bytes: UnsafeBufferPointer<UInt8>, at quote: Int) -> ValueEnd {
        switch scanString(bytes, openingQuote: quote) {
        case .closed(let end, _): return .end(end, lineBreak: false)
        case .controlCharacter(let offset): return .malformed(at: offset, reason: "control character in string")
        case .unterminated(let offset): return .malformed(at: offset, reason: "unterminated string")
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

    /// The first quote, backslash or control character at or after `start`, or the end.
    @inline(__always)
    static func plainRunEnd(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        let count = bytes.count
        guard let base = bytes.baseAddress else { return count }
        var index = start
        while index + 8 <= count {
            let mask = lookMask(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
            if mask != 0 { return index + mask.trailingZeroBitCount >> 3 }
            index += 8
        }
        while index < count {
            let byte = base[index]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { return index }
            index += 1
        }
        return count
    }

    static let ones: UInt64 = 0x0101_0101_0101_0101
    static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// The high bit of each of the eight bytes that is a quote, a backslash or a control
    /// character: the classic "has a zero byte" test, `(x - 0x01…) & ~x & 0x80…`, applied three
    /// times. Only the lowest flag is exact (a borrow can flag a byte above a true hit).
    @inline(__always)
    static func lookMask(_ word: UInt64) -> UInt64 {
        let quotes = word ^ (ones &* 0x22)
        let backslashes = word ^ (ones &* 0x5C)
        let hasQuote = (quotes &- ones) & ~quotes
        let hasBackslash = (backslashes &- ones) & ~backslashes
        let hasControl = (word &- ones &* 0x20) & ~word
        return (hasQuote | hasBackslash | hasControl) & highBits
    }

    /// The high bit of each of the eight bytes that is a quote, a bracket or a control
    /// character, as `lookMask` finds its bytes (only the lowest flag is exact). A byte with
    /// 0x20 set is `{` or `[` when it is 0x7B, `}` or `]` when it is 0x7D.
    @inline(__always)
    static func structureMask(_ word: UInt64) -> UInt64 {
        let folded = word | (ones &* 0x20)
        let opens = folded ^ (ones &* 0x7B)
        let closes = folded ^ (ones &* 0x7D)
        let quotes = word ^ (ones &* 0x22)
        let hasOpen = (opens &- ones) & ~opens
        let hasClose = (closes &- ones) & ~closes
        let hasQuote = (quotes &- ones) & ~quotes
        let hasControl = (word &- ones &* 0x20) & ~word
        return (hasOpen | hasClose | hasQuote | hasControl) & highBits
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
