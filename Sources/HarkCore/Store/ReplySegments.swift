/// How text is cut into segments for the full-text index.
enum ReplySegments {
    /// A read that brings at least this much (with what waits) is written as segments.
    static let minBytes = 16 << 10
    /// No segment is longer: a search's snippet reads one segment, and the indexer holds the
    /// write lock for about a millisecond per segment.
    static let maxBytes = 64 << 10

    /// The segments `bytes` holds, as ranges, and where the unfinished rest begins. A segment
    /// ends after the last line end (else space) of its final quarter, or at `maxBytes` off a
    /// UTF-8 continuation byte when there is none; the rest is the word still being written,
    /// unless `final`, when everything goes into segments.
    static func cut(_ bytes: UnsafeBufferPointer<UInt8>, final: Bool) -> (segments: [Range<Int>], rest: Int) {
        var segments: [Range<Int>] = []
        var start = 0
        while start < bytes.count {
            let remaining = bytes.count - start
            if remaining <= maxBytes {
                if final {
                    segments.append(start..<bytes.count)
                    start = bytes.count
                } else if remaining >= minBytes,
                          let space = lastBreak(in: bytes, from: start, to: bytes.count, preferringLineEnd: false) {
                    segments.append(start..<space)
                    start = space
                }
                break
            }
            let limit = start + maxBytes
            var end = lastBreak(in: bytes, from: start + maxBytes * 3 / 4, to: limit) ?? limit
            if end == limit {
                while end > start + 1, bytes[end] & 0xC0 == 0x80 { end -= 1 }
            }
            segments.append(start..<end)
            start = end
        }
        return (segments, start)
    }

    /// Just after the last line end in `from..<to`, else after the last space (or just after
    /// whichever comes last); nil if neither.
    static func lastBreak(in bytes: UnsafeBufferPointer<UInt8>, from: Int, to: Int,
                          preferringLineEnd: Bool = true) -> Int? {
        guard from < to, let base = bytes.baseAddress else { return nil }
        var space: Int?
        var index = to
        // Eight bytes at a time from the end: a reply with no line end (a long plain paragraph)
        // was a byte-by-byte walk over a quarter of every segment.
        while index - 8 >= from {
            let word = UnsafeRawPointer(base + index - 8).loadUnaligned(as: UInt64.self)
            let lineEnds = zeroBytes(word ^ (ones &* 0x0A))
            let spaces = zeroBytes(word ^ (ones &* 0x20)) | zeroBytes(word ^ (ones &* 0x09))
            if lineEnds | spaces != 0 {
                // The highest flagged byte of the word is the last one in the text (little-endian).
                let lastLineEnd = lineEnds == 0 ? -1 : index - 1 - lineEnds.leadingZeroBitCount >> 3
                let lastSpace = spaces == 0 ? -1 : index - 1 - spaces.leadingZeroBitCount >> 3
                if lastLineEnd >= 0 && (preferringLineEnd || lastLineEnd > lastSpace) { return lastLineEnd + 1 }
                if lastSpace >= 0 {
                    if !preferringLineEnd { return lastSpace + 1 }
                    if space == nil { space = lastSpace + 1 }
                }
            }
            index -= 8
        }
        while index > from {
            index -= 1
            let byte = base[index]
            if byte == 0x0A { return index + 1 }
            if space == nil && (byte == 0x20 || byte == 0x09) {
                if !preferringLineEnd { return index + 1 }
                space = index + 1
            }
        }
        return space
    }

    private static let ones: UInt64 = 0x0101_0101_0101_0101

    /// The high bit of each byte of `word` that is zero, exactly (no borrow between bytes).
    @inline(__always)
    private static func zeroBytes(_ word: UInt64) -> UInt64 {
        let low = UInt64(0x7F7F_7F7F_7F7F_7F7F)
        return ~(((word & low) &+ low) | word | low)
    }
}
