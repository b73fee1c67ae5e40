/// Checks UTF-8 where it lies. `String(decoding:as:)` checks too, but into a new String: for
/// a reply sent as one 30 MB string, that copy was a third of the memory it took.
enum UTF8Validation {
    /// True when `bytes` is well-formed UTF-8: no overlong forms, no surrogates, nothing past
    /// U+10FFFF, no sequence cut short (the rules `String(decoding:as:)` repairs by).
    static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let count = bytes.count
        var index = 0
        while index < count {
            // ASCII eight bytes at a time.
            while index + 8 <= count,
                  UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                index += 8
            }
            guard index < count else { return true }
            let lead = base[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            let length: Int
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0...0xEF: length = 3
            case 0xF0...0xF4: length = 4
            default: return false
            }
            guard index + length <= count else { return false }
            for offset in 1..<length where base[index + offset] & 0xC0 != 0x80 { return false }
            let second = base[index + 1]
            if lead == 0xE0 && second < 0xA0 { return false }  // overlong
            if lead == 0xED && second >= 0xA0 { return false }  // a surrogate
            if lead == 0xF0 && second < 0x90 { return false }  // overlong
            if lead == 0xF4 && second >= 0x90 { return false }  // past U+10FFFF
            index += length
        }
        return true
    }
}
