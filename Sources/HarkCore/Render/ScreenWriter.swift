/// The bytes hark writes on a terminal, a row at a time, with the column always known: hark
/// cuts its own lines to the width and never leaves a line to the terminal's auto-wrap, so
/// what it writes never depends on where the terminal would have cut. Attributes become SGR
/// here (only here, from `TextAttributes`), links OSC 8 where the terminal shows them; with
/// colours off, only the text.
struct ScreenWriter {
    private(set) var bytes: [UInt8] = []
    /// Cells written on the current row.
    private(set) var column = 0
    let colors: Bool
    let hyperlinks: Bool
    /// What is in effect on the terminal.
    private var current = TextAttributes.plain
    private var openLink: String?

    init(colors: Bool, hyperlinks: Bool = false) {
        self.colors = colors
        self.hyperlinks = hyperlinks && colors
    }

    /// Takes what was written so far.
    mutating func take() -> [UInt8] {
        defer { bytes.removeAll(keepingCapacity: true) }
        return bytes
    }

    var isEmpty: Bool { bytes.isEmpty }

    /// Text (no control characters: those the sanitizer made marks of; its mark brackets, if
    /// one reaches here, are dropped, so that nothing but this writer's own sequences is ever
    /// written).
    mutating func write(_ text: UnsafeBufferPointer<UInt8>, width: Int, _ attributes: TextAttributes) {
        guard !text.isEmpty else { return }
        apply(attributes)
        if text.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
            bytes.append(contentsOf: text.lazy.filter { $0 >= 0x20 && $0 != 0x7F })
        } else {
            bytes.append(contentsOf: text)
        }
        column += width
    }

    mutating func write(_ text: String, _ attributes: TextAttributes) {
        var text = text
        text.withUTF8 { write($0, width: TextWidth.of(utf8: $0), attributes) }
    }

    mutating func spaces(_ count: Int, _ attributes: TextAttributes = .plain) {
        guard count > 0 else { return }
        apply(attributes)
        bytes.append(contentsOf: repeatElement(0x20, count: count))
        column += count
    }

    /// Ends the row: styles and links closed first, so nothing bleeds into what comes next.
    mutating func newline() {
        apply(.plain)
        bytes.append(0x0A)
        column = 0
    }

    /// Takes back what the row holds from `target` on: the cursor goes there (from the row's
    /// start, which is exact even after the last column was written) and the rest is erased.
    mutating func erase(backTo target: Int) {
        apply(.plain)
        bytes.append(0x0D)
        if target > 0 {
            bytes += [0x1B, 0x5B]
            TextAttributes.appendNumber(target, to: &bytes)
            bytes.append(0x43)  // C: forward
        }
        bytes += [0x1B, 0x5B, 0x4B]  // EL
        column = target
    }

    private mutating func apply(_ attributes: TextAttributes) {
        guard colors else { return }
        let link = hyperlinks ? attributes.link : nil
        if link != openLink {
            if openLink != nil { bytes += Self.linkEnd }
            if let link { Self.appendLinkStart(link, to: &bytes) }
            openLink = link
        }
        var look = attributes
        look.link = nil
        guard look != current else { return }
        if look.isPlain {
            bytes += [0x1B, 0x5B, 0x30, 0x6D]
        } else {
            look.appendSGR(to: &bytes)
        }
        current = look
    }

    static let linkEnd: [UInt8] = [0x1B, 0x5D, 0x38, 0x3B, 0x3B, 0x1B, 0x5C]

    /// OSC 8 with the target's bytes limited to printable ASCII (anything else percent-encoded),
    /// so a target can never end the sequence or start another.
    static func appendLinkStart(_ target: String, to out: inout [UInt8]) {
        out += [0x1B, 0x5D, 0x38, 0x3B, 0x3B]
        let hex: [UInt8] = Array("0123456789ABCDEF".utf8)
        for byte in target.utf8 {
            if byte > 0x20 && byte < 0x7F {
                out.append(byte)
            } else {
                out += [0x25, hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        out += [0x1B, 0x5C]
    }
}

/// What starts a row before its text: quote bars, a list's indent, a continuation sign.
struct RowPrefix: Sendable {
    var pieces: [(TextAttributes, String)] = []
    private(set) var width = 0

    init() {}

    init(_ text: String, _ attributes: TextAttributes = .plain) {
        add(text, attributes)
    }

    mutating func add(_ text: String, _ attributes: TextAttributes = .plain) {
        guard !text.isEmpty else { return }
        pieces.append((attributes, text))
        width += TextWidth.of(text)
    }

    mutating func add(spaces count: Int) {
        if count > 0 { add(String(repeating: " ", count: count)) }
    }

    static func + (left: RowPrefix, right: RowPrefix) -> RowPrefix {
        var result = left
        for (attributes, text) in right.pieces { result.add(text, attributes) }
        return result
    }

    func write(into writer: inout ScreenWriter) {
        for (attributes, text) in pieces { writer.write(text, attributes) }
    }
}
