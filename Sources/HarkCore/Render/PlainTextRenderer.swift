/// Text shown as written on a terminal, cut at spaces to its width: a reply on a terminal
/// without colours, a build's console, a model's reasoning. Each line's further rows hang
/// under its text (after its leading spaces and a list or quote marker); lines between code
/// fences are never reflowed, only continued behind a "↪". The text passes the
/// `TerminalSanitizer` first; with `keepingColors` (a console) its SGR colours are kept, as
/// attributes the writer writes again.
public struct PlainTextRenderer {
    /// Columns to fit; a change applies from the next line.
    public var width: Int
    private let base: TextAttributes
    private let tracksFences: Bool
    private var writer: ScreenWriter
    private var prose: ProseWrapper
    private var sanitizer: TerminalSanitizer
    private var colors = TextAttributes.plain
    private var inMark = false
    private var atLineStart = true
    /// The current line's first bytes, to find its hanging indent and whether it is a fence.
    private var head: [UInt8] = []
    private var hangFound = false
    private var code: CodeBlockWriter?

    public init(width: Int, colors: Bool, keepingColors: Bool = false, tracksFences: Bool = true, base: TextAttributes = .plain) {
        self.width = width
        self.base = base
        self.tracksFences = tracksFences
        writer = ScreenWriter(colors: colors)
        prose = ProseWrapper(width: width)
        sanitizer = TerminalSanitizer(keepingColors: keepingColors)
    }

    public var column: Int { writer.column }

    public mutating func feed(_ text: String) -> String {
        var sanitizer = self.sanitizer
        sanitizer.feed(text, { consume($0) }, recolor: { colors = $0 })
        self.sanitizer = sanitizer
        return String(decoding: writer.take(), as: UTF8.self)
    }

    /// The text ended: its last line ends.
    public mutating func finish() -> String {
        var sanitizer = self.sanitizer
        sanitizer.finish { consume($0) }
        self.sanitizer = TerminalSanitizer(keepingColors: sanitizer.keepingColors)
        if !atLineStart { endLine() }
        colors = .plain
        return String(decoding: writer.take(), as: UTF8.self)
    }

    /// Another line is about to be shown in the middle of this text.
    public mutating func breakLine() -> String {
        if code != nil { code?.breakRow(into: &writer) } else { prose.breakRow(into: &writer) }
        return String(decoding: writer.take(), as: UTF8.self)
    }

    mutating func consume(_ bytes: UnsafeBufferPointer<UInt8>) {
        var index = 0
        while index < bytes.count {
            if atLineStart {
                atLineStart = false
                head.removeAll(keepingCapacity: true)
                hangFound = false
                prose.width = width
                if code == nil { prose.start(at: 0, continuation: RowPrefix()) }
            }
            let end = CodeTokenizer.find(0x0A, in: bytes, from: index) ?? bytes.count
            let piece = UnsafeBufferPointer(rebasing: bytes[index..<end])
            if head.count < 16 { head.append(contentsOf: piece.prefix(16 - head.count)) }
            if code != nil {
                code?.append(piece, into: &writer)
            } else {
                text(piece)
            }
            index = end
            if end < bytes.count {
                index += 1
                endLine()
            }
        }
    }

    private mutating func endLine() {
        if code != nil { code?.endLine(into: &writer) } else { prose.endLine(into: &writer) }
        atLineStart = true
        inMark = false
        guard tracksFences else { return }
        let trimmed = head.drop { $0 == 0x20 }
        if trimmed.starts(with: Array("```".utf8)) || trimmed.starts(with: Array("~~~".utf8)) {
            code = code == nil ? CodeBlockWriter(language: nil, prefix: RowPrefix(), width: width, theme: .standard) : nil
        }
    }

    /// Prose: words, the spaces between them, and marks drawn inert.
    private mutating func text(_ bytes: UnsafeBufferPointer<UInt8>) {
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == TerminalSanitizer.markStart || byte == TerminalSanitizer.markEnd {
                inMark = byte == TerminalSanitizer.markStart
                index += 1
                continue
            }
            if byte == 0x20 || byte == 0x09 {
                prose.space(byte == 0x09 ? 4 : 1, inMark ? .inertMark : base.merged(colors))
                index += 1
                continue
            }
            var end = index + 1
            while end < bytes.count && bytes[end] != 0x20 && bytes[end] != 0x09 && bytes[end] != TerminalSanitizer.markStart
                && bytes[end] != TerminalSanitizer.markEnd { end += 1 }
            if !hangFound { findHang() }
            prose.text(UnsafeBufferPointer(rebasing: bytes[index..<end]), inMark ? .inertMark : base.merged(colors), into: &writer)
            index = end
        }
    }

    /// Once the line's start is known: its leading spaces and a marker (`- `, `* `, `> `,
    /// `1. `) set where its further rows start.
    private mutating func findHang() {
        var index = 0
        while index < head.count && head[index] == 0x20 { index += 1 }
        var markerEnd = index
        if index < head.count, [0x2D, 0x2A, 0x2B, 0x3E].contains(head[index]) {
            markerEnd = index + 1
        } else {
            while markerEnd < head.count && head[markerEnd] >= 0x30 && head[markerEnd] <= 0x39 { markerEnd += 1 }
            if markerEnd > index && markerEnd < head.count && (head[markerEnd] == 0x2E || head[markerEnd] == 0x29) {
                markerEnd += 1
            } else {
                markerEnd = index
            }
        }
        guard markerEnd == index || markerEnd < head.count else { return }  // the marker's space has not come yet
        hangFound = true
        let hang = markerEnd > index && head[markerEnd] == 0x20 ? markerEnd + 1 : index
        guard hang <= width / 3 else { return }
        var continuation = RowPrefix()
        continuation.add(spaces: hang)
        prose.continuation = continuation
    }
}
