/// A stream chunk's content string read in one pass: its end found, its escapes decoded, its
/// UTF-8 checked and its text copied, eight bytes at a time between the bytes that need a look.
/// Reading it as `scanString` then `appendText` do went over every byte three or four times,
/// which for 1 KiB of prose per chunk was most of what hark spent on a stream (BENCHMARKS.md).
extension JSONScanner {
    /// Appends the text of the string token whose opening quote is at `quote` to `text` and
    /// returns the offset just past its closing quote, when the token is well formed and its
    /// text well-formed UTF-8. Anything else (no closing quote, a raw control character, a
    /// malformed escape, invalid UTF-8) returns nil with `text` as it was: the caller then
    /// reads the token with `scanString` and `appendText`, which give the repair or the error.
    /// For a token both read, both append the same bytes.
    static func appendStringToken(_ bytes: UnsafeBufferPointer<UInt8>, openingQuote quote: Int,
                                  to text: inout [UInt8]) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        let count = bytes.count
        let start = text.count
        var index = quote + 1
        var runStart = index
        var reserved = false
        while true {
            // Plain ASCII eight bytes at a time: the lowest flagged byte is exact (JSONTokens).
            while index + 8 <= count {
                let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
                let mask = lookMask(word) | (word & highBits)
                if mask != 0 {
                    index += mask.trailingZeroBitCount >> 3
                    break
                }
                index += 8
            }
            guard index < count else { break }
            let byte = base[index]
            if byte == UInt8(ascii: "\"") {
                text.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: index - runStart))
                return index + 1
            }
            if byte == UInt8(ascii: "\\") {
                if !reserved, index - quote > 1 << 16 {
                    // A long string (a whole reply in one chunk) gets its room at once: growing
                    // by doubling would hold one and a half times its size while copying.
                    reserved = true
                    if case .closed(let end, _) = scanString(bytes, openingQuote: quote) {
                        text.reserveCapacity(start + end - quote)
                    }
                }
                text.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: index - runStart))
                guard case .decoded(let next) = JSONEscape.decode(bytes, backslash: index, into: &text) else { break }
                index = next
                runStart = index
            } else if byte < 0x20 {
                break
            } else if byte < 0x80 {
                index += 1  // the last few bytes, read one at a time
            } else {
                guard let length = UTF8Validation.sequenceLength(base, at: index, count: count) else { break }
                index += length
            }
        }
        text.removeSubrange(start...)
        return nil
    }
}
