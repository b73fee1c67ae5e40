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
            if base[index] < 0x80 {
                index += 1
                continue
            }
            guard let length = sequenceLength(base, at: index, count: count) else { return false }
            index += length
        }
        return true
    }

    /// The length of the well-formed multi-byte sequence whose lead byte (0x80 or more) is at
    /// `index`, or nil.
    @inline(__always)
    static func sequenceLength(_ base: UnsafePointer<UInt8>, at index: Int, count: Int) -> Int? {
        let lead = base[index]
        let length: Int
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0...0xEF: length = 3
        case 0xF0...0xF4: length = 4
        default: return nil
        }
        guard index + length <= count else { return nil }
        for offset in 1..<length where base[index + offset] & 0xC0 != 0x80 { return nil }
        let second = base[index + 1]
        if lead == 0xE0 && second < 0xA0 { return nil }  // overlong
        if lead == 0xED && second >= 0xA0 { return nil }  // a surrogate
        if lead == 0xF0 && second < 0x90 { return nil }  // overlong
        if lead == 0xF4 && second >= 0x90 { return nil }  // past U+10FFFF
        return length
    }
}

extension String {
    /// A String of bytes already known to be well-formed UTF-8 (each piece was checked, or
    /// repaired, as it was read), made without checking them again: the standard library's
    /// check of text that is not all ASCII cost more than the rest of reading a stream of
    /// prose (BENCHMARKS.md). Debug builds check anyway.
    init(alreadyValidUTF8 bytes: UnsafeBufferPointer<UInt8>) {
        assert(UTF8Validation.isValid(bytes), "not UTF-8")
        self = unsafe String(copying: UTF8Span(unchecked: bytes.span, isKnownASCII: false))
    }
}
