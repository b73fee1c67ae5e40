/// Turns console bytes into text as they arrive. Jenkins sends every line end as CR LF
/// (stapler's LineEndNormalizingWriter), which becomes LF here; a lone CR (a progress bar
/// redrawing its line) is kept. A UTF-8 sequence or a CR LF cut by a read boundary is held
/// until the next bytes, so no character is split or mangled.
///
/// Console notes are removed, as Jenkins' own plain-text output does (ConsoleNote.removeNotes,
/// PlainTextConsoleOutputStream): `ESC[8mha:` + base64 + `ESC[0m`, the serialized hyperlinks
/// and markup of a build log. A terminal hides them (ESC[8m is "concealed"), but since
/// Jenkins 2.509 `progressiveText` sends them raw, and they would land in pipes, the history,
/// /search and /forward. A note cut by a read boundary is held until its end arrives.
public struct ConsoleDecoder: Sendable {
    static let preamble: [UInt8] = Array("\u{1B}[8mha:".utf8)
    static let postamble: [UInt8] = Array("\u{1B}[0m".utf8)
    /// A note is a few hundred bytes; a "note" longer than this never ends and is let through.
    static let longestNote = 1 << 16

    /// Bytes not yet searched for notes: an unfinished note, or what may be the start of one.
    private var raw: [UInt8] = []
    /// Clean bytes waiting for the rest of their CR LF or UTF-8 sequence.
    private var held: [UInt8] = []

    public init() {}

    public mutating func feed(_ bytes: [UInt8]) -> String {
        raw += bytes
        let cut = Self.settledEnd(raw)
        var clean = held + Self.removingNotes(raw[..<cut])
        raw.removeFirst(cut)
        var keep = 0
        // A CR at the very end may be the first half of a CR LF.
        if clean.last == 0x0D { keep = 1 }
        keep += Self.incompleteUTF8Tail(clean[..<(clean.count - keep)])
        held = Array(clean.suffix(keep))
        clean.removeLast(keep)
        return Self.text(clean)
    }

    /// The stream ended: whatever was held back, as it is (a note that never ended stays).
    public mutating func finish() -> String {
        defer {
            raw = []
            held = []
        }
        return Self.text(held + Self.removingNotes(raw[...]))
    }

    /// How much of `bytes` can be cleaned now: up to a note whose end has not arrived, or a
    /// tail that may be the first bytes of a note's start.
    static func settledEnd(_ bytes: [UInt8]) -> Int {
        var from = 0
        while let start = find(preamble, in: bytes[...], from: from) {
            guard let end = find(postamble, in: bytes[...], from: start + preamble.count) else {
                return bytes.count - start > longestNote ? bytes.count : start
            }
            from = end + postamble.count
        }
        for length in stride(from: min(preamble.count - 1, bytes.count - from), through: 1, by: -1)
            where bytes.suffix(length).elementsEqual(preamble.prefix(length)) {
            return bytes.count - length
        }
        return bytes.count
    }

    /// `bytes` without its complete notes.
    static func removingNotes(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            guard let start = find(preamble, in: bytes, from: index),
                  let end = find(postamble, in: bytes, from: start + preamble.count) else { break }
            out += bytes[index..<start]
            index = end + postamble.count
        }
        out += bytes[index...]
        return out
    }

    /// The index of `needle` in `bytes[from...]`: memchr for the ESC that starts both marks.
    static func find(_ needle: [UInt8], in bytes: ArraySlice<UInt8>, from: Int) -> Int? {
        bytes.withUnsafeBufferPointer { buffer -> Int? in
            var offset = from - bytes.startIndex
            while let found = buffer.firstOffset(of: needle[0], from: offset, to: buffer.count) {
                guard buffer.count - found >= needle.count else { return nil }
                if needle.indices.allSatisfy({ buffer[found + $0] == needle[$0] }) { return bytes.startIndex + found }
                offset = found + 1
            }
            return nil
        }
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
