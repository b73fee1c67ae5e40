#if canImport(Glibc)
import Glibc
#endif

extension UnsafeBufferPointer<UInt8> {
    /// The offset of the first `byte` in `self[from..<to]`, or nil: memchr, which looks at a
    /// vector of bytes at a time, for the stream parsers' line ends and field separators.
    func firstOffset(of byte: UInt8, from: Int, to: Int) -> Int? {
        guard from < to, let base = baseAddress, let found = memchr(base + from, Int32(byte), to - from) else { return nil }
        return UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found))
    }
}
