/// Turns console bytes into text as they arrive. Jenkins sends every line end as CR LF
/// (stapler's LineEndNormalizingWriter), which becomes LF here; a lone CR (a progress bar
/// redrawing its line) is kept. A UTF-8 sequence or a CR LF cut by a read boundary is held
/// until the next bytes, so no character is split or mangled.
public struct ConsoleDecoder: Sendable {
    private var pending: [UInt8] = []

    public init() {}

    public mutating func feed(_ bytes: [UInt8]) -> String {
        pending += bytes
        var keep = 0
        // A CR at the very end may be the first half of a CR LF.
        if pending.last == 0x0D { keep = 1 }
        keep += Self.incompleteUTF8Tail(pending[..<(pending.count - keep)])
        let ready = Array(pending[..<(pending.count - keep)])
        pending.removeFirst(pending.count - keep)
        return Self.text(ready)
    }

    /// The stream ended: whatever was held back, as it is.
    public mutating func finish() -> String {
        defer { pending = [] }
        return Self.text(pending)
    }

    static func text(_ bytes: [UInt8]) -> String {
        guard !bytes.isEmpty else { return "" }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == 0x0D, index + 1 < bytes.count, bytes[index + 1] == 0x0A {
                index += 1
                continue
            }
            out.append(bytes[index])
            index += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// How many bytes at the end start a UTF-8 sequence that has not finished yet.
    static func incompleteUTF8Tail(_ bytes: ArraySlice<UInt8>) -> Int {
        var count = 0
        var index = bytes.endIndex
        while index > bytes.startIndex, count < 3 {
            index -= 1
            count += 1
            let byte = bytes[index]
            if byte & 0xC0 == 0x80 { continue }  // a continuation byte: look further back
            let length: Int
            if byte & 0xE0 == 0xC0 { length = 2 } else if byte & 0xF0 == 0xE0 { length = 3 } else if byte & 0xF8 == 0xF0 {
                length = 4
            } else {
                return 0  // ASCII or invalid: nothing to wait for
            }
            return length > count ? count : 0
        }
        return 0
    }
}
