/// One scalar read from valid UTF-8 (a Swift string's bytes), for the renderers that walk
/// text a byte at a time.
enum UTF8Scalar {
    /// The scalar starting at `index` and how many bytes it takes. Bytes that do not make a
    /// scalar (a cut sequence) read as U+FFFD, one byte each.
    @inline(__always)
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> (value: UInt32, length: Int) {
        let lead = UInt32(bytes[index])
        if lead < 0x80 { return (lead, 1) }
        let length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1
        guard length > 1, index + length <= bytes.count else { return (0xFFFD, 1) }
        var value = lead & (0xFF >> (length + 1))
        for offset in 1..<length {
            let byte = UInt32(bytes[index + offset])
            guard byte & 0xC0 == 0x80 else { return (0xFFFD, 1) }
            value = value << 6 | (byte & 0x3F)
        }
        return (value, length)
    }

    /// How many bytes the scalar whose first byte is `lead` takes.
    @inline(__always)
    static func length(lead: UInt8) -> Int {
        lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1
    }
}
