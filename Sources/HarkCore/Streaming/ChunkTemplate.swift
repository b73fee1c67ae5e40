#if canImport(Glibc)
import Glibc
#endif

/// A streamed chunk's layout, kept to read the chunks that follow without walking their JSON.
/// Servers send every token as the same chunk with another string in the content's place, in
/// whatever field order they use: llama.cpp's `{"choices":[{…"delta":{"content":"…"}}],
/// "created":…,"id":…}`, OpenAI's `{"id":…,"object":…,"created":…,"model":…,"choices":[…]}`,
/// an n8n `{"type":"item","content":"…","metadata":…}`. Some values change as it streams
/// without meaning anything to hark: `created` each second (llama.cpp, Ollama), OpenAI's random
/// `obfuscation` and `logprobs` in every chunk.
///
/// The template is a chunk whose walk did nothing but append its content (the decoder
/// decides), cut into literal stretches and holes: the content string, and each value the walk
/// left unread (JSONScanner's `ignored`) that has been seen to change. A chunk made of the same
/// literal bytes around a string token in the content's hole and any well-formed values in the
/// others is the template's document with other values where the walk reads nothing but that
/// string: walking it would visit the same members with the same values, so appending the new
/// string is exactly what the walk would do, for the price of a few memcmp calls, a scan of the
/// string and one of each varying value.
struct ChunkTemplate {
    /// The template chunk's bytes.
    private var bytes: [UInt8] = []
    /// Where its content string and its unread values lie, in document order.
    private var slots: [Slot] = []
    /// What a match compares: literal stretches of `bytes`, each followed by a hole.
    private var pieces: [Piece] = []
    /// No literal stretch holds a line break, so the chunk can be an SSE event's one data line.
    private var fitsOnOneLine = false

    private struct Slot: Equatable {
        var range: Range<Int>
        var isContent: Bool
        /// Seen to differ between two chunks of this layout: matched by skipping any value.
        var varies: Bool
    }

    private enum Hole { case content, value, end }

    private struct Piece {
        let literal: Range<Int>
        let hole: Hole
        /// For a varying value: where the template's own value lies, when it holds no line
        /// break. Most chunks carry the same value there (a `created` that changes once a
        /// second), which one memcmp reads.
        var previous: Range<Int>?
    }

    /// Forgets the template (its chunk's effects no longer hold).
    mutating func clear() {
        bytes.removeAll(keepingCapacity: true)
        slots.removeAll(keepingCapacity: true)
        pieces.removeAll(keepingCapacity: true)
    }

    /// Keeps `chunk`, whose content string's token (quotes included) lies at `content` and whose
    /// walk left the values at `ignored` unread. When the template before it had the same layout
    /// (the same slots, the same bytes between them), the unread values that differ between the
    /// two vary from now on, and so do those that varied before.
    mutating func take(_ chunk: UnsafeBufferPointer<UInt8>, content: Range<Int>, ignored: [Range<Int>] = []) {
        var taken = ignored.map { Slot(range: $0, isContent: false, varies: false) }
        taken.append(Slot(range: content, isContent: true, varies: true))
        taken.sort { $0.range.lowerBound < $1.range.lowerBound }
        if sameLayout(chunk, taken) {
            for index in taken.indices where !taken[index].varies {
                taken[index].varies = slots[index].varies || !bytes.withUnsafeBufferPointer { old in
                    Self.equal(UnsafeBufferPointer(rebasing: old[slots[index].range]),
                               UnsafeBufferPointer(rebasing: chunk[taken[index].range]))
                }
            }
        }
        bytes.removeAll(keepingCapacity: true)
        bytes.append(contentsOf: chunk)
        slots = taken
        compile()
    }

    /// Whether `chunk` with its slots `taken` has the template's literal bytes around them.
    private func sameLayout(_ chunk: UnsafeBufferPointer<UInt8>, _ taken: [Slot]) -> Bool {
        guard !bytes.isEmpty, slots.count == taken.count else { return false }
        return bytes.withUnsafeBufferPointer { old in
            var oldStart = 0
            var newStart = 0
            for (slot, new) in zip(slots, taken) {
                guard slot.isContent == new.isContent,
                      Self.equal(UnsafeBufferPointer(rebasing: old[oldStart..<slot.range.lowerBound]),
                                 UnsafeBufferPointer(rebasing: chunk[newStart..<new.range.lowerBound])) else { return false }
                oldStart = slot.range.upperBound
                newStart = new.range.upperBound
            }
            return Self.equal(UnsafeBufferPointer(rebasing: old[oldStart...]), UnsafeBufferPointer(rebasing: chunk[newStart...]))
        }
    }

    /// The literal stretches between the holes. The content's opening quote ends the stretch
    /// before it (the scan of a string starts at its quote).
    private mutating func compile() {
        pieces.removeAll(keepingCapacity: true)
        var start = 0
        for slot in slots where slot.varies {
            if slot.isContent {
                pieces.append(Piece(literal: start..<(slot.range.lowerBound + 1), hole: .content))
            } else {
                let plain = !bytes[slot.range].contains { $0 == 0x0A || $0 == 0x0D }
                pieces.append(Piece(literal: start..<slot.range.lowerBound, hole: .value, previous: plain ? slot.range : nil))
            }
            start = slot.range.upperBound
        }
        pieces.append(Piece(literal: start..<bytes.count, hole: .end))
        fitsOnOneLine = !pieces.contains { piece in bytes[piece.literal].contains { $0 == 0x0A || $0 == 0x0D } }
    }

    /// When `chunk` is the template with another string token in the content's place (and any
    /// values in the varying places), appends that string's text to `text` and returns true.
    /// Otherwise, or when the string is not valid (a bad escape, a raw control character),
    /// returns false with `text` unchanged: the full walk then reads the chunk and reports what
    /// is wrong. Mutating only so that the decoder's call borrows the stored arrays in place: a
    /// copy of the template would retain and release them for every chunk.
    mutating func appendContent(of chunk: UnsafeBufferPointer<UInt8>, to text: inout [UInt8]) -> Bool {
        let before = text.count
        guard let end = read(chunk, from: 0, appendingTo: &text) else { return false }
        if end == chunk.count { return true }
        text.removeSubrange(before...)
        return false
    }

    /// The same for a server-sent event at the start of `bytes` whose one data line is such a
    /// chunk: `data: `, the chunk, two line feeds. Returns the event's length, or nil. An SSE
    /// parser between events would hand exactly that chunk to its handler and be between
    /// events again after it: the literal stretches hold no line break, a string token holds
    /// none that is valid (a raw one stops the scan or follows a backslash, which is an invalid
    /// escape), and a varying value holding one is not matched.
    mutating func appendContent(ofEventAt bytes: UnsafeBufferPointer<UInt8>, maxDataBytes: Int, to text: inout [UInt8]) -> Int? {
        let dataStart = 6
        guard fitsOnOneLine, bytes.count > dataStart, bytes[0] == UInt8(ascii: "d"), bytes[1] == UInt8(ascii: "a"),
              bytes[2] == UInt8(ascii: "t"), bytes[3] == UInt8(ascii: "a"), bytes[4] == UInt8(ascii: ":"),
              bytes[5] == UInt8(ascii: " ") else { return nil }
        let before = text.count
        guard let end = read(bytes, from: dataStart, appendingTo: &text) else { return nil }
        guard end + 2 <= bytes.count, bytes[end] == 0x0A, bytes[end + 1] == 0x0A, end - dataStart <= maxDataBytes else {
            text.removeSubrange(before...)
            return nil
        }
        return end + 2
    }

    /// When the bytes from `start` are the template's literal stretches around a string token
    /// and well-formed values without line breaks, appends the token's text to `text` and
    /// returns where the match ends. Otherwise, or when the string is not valid (a bad escape,
    /// a raw control character), returns nil with `text` as it was.
    private func read(_ chunk: UnsafeBufferPointer<UInt8>, from start: Int, appendingTo text: inout [UInt8]) -> Int? {
        guard !pieces.isEmpty, let base = chunk.baseAddress else { return nil }
        let before = text.count
        // A token the one-pass reader left (invalid UTF-8 to repair, or an error): read as the
        // walk reads it, once the rest has matched.
        var slowToken: (range: Range<Int>, escaped: Bool)?
        let end = bytes.withUnsafeBufferPointer { template -> Int? in
            var position = start
            for piece in pieces {
                let length = piece.literal.count
                guard chunk.count - position >= length,
                      memcmp(base + position, template.baseAddress! + piece.literal.lowerBound, length) == 0 else { return nil }
                position += length
                switch piece.hole {
                case .content:
                    let quote = position - 1
                    if let end = JSONScanner.appendStringToken(chunk, openingQuote: quote, to: &text) {
                        position = end
                    } else {
                        guard case .closed(let end, let escaped) = JSONScanner.scanString(chunk, openingQuote: quote) else { return nil }
                        slowToken = (quote..<end, escaped)
                        position = end
                    }
                case .value:
                    if let previous = piece.previous, chunk.count - position >= previous.count,
                       memcmp(base + position, template.baseAddress! + previous.lowerBound, previous.count) == 0,
                       Self.endsThere(template[previous.lowerBound], chunk, at: position + previous.count) {
                        position += previous.count
                        continue
                    }
                    guard case .end(let end, lineBreak: false) = JSONScanner.valueEnd(chunk, at: position) else { return nil }
                    position = end
                case .end:
                    break
                }
            }
            return position
        }
        guard let end else {
            text.removeSubrange(before...)
            return nil
        }
        if let slowToken {
            do {
                try JSONScanner.appendText(of: UnsafeBufferPointer(rebasing: chunk[slowToken.range]), escaped: slowToken.escaped,
                                           to: &text)
            } catch {
                return nil
            }
        }
        return end
    }

    /// Whether the template's value, which starts with `first`, also ends at `end` in the chunk
    /// that repeats its bytes: a string or a bracketed value ends with them; a number or a
    /// name (`null`) only if no more of it follows, as `valueEnd` reads a token.
    private static func endsThere(_ first: UInt8, _ chunk: UnsafeBufferPointer<UInt8>, at end: Int) -> Bool {
        if first == UInt8(ascii: "\"") || first == UInt8(ascii: "{") || first == UInt8(ascii: "[") { return true }
        return end == chunk.count || !JSONScanner.isTokenByte(chunk[end])
    }

    private static func equal(_ first: UnsafeBufferPointer<UInt8>, _ second: UnsafeBufferPointer<UInt8>) -> Bool {
        first.count == second.count && (first.isEmpty || memcmp(first.baseAddress!, second.baseAddress!, first.count) == 0)
    }
}
