/// Markdown for a colour terminal, rendered as a reply streams in: headings, emphasis, code
/// spans, links, block quotes with a bar, nested, ordered and task lists with hanging
/// indents, rules, tables drawn with box-drawing borders once their rows are in, and fenced
/// code coloured by its language. Prose is cut at spaces to the terminal's width; text shows
/// as it arrives, and only what must wait to be understood waits (a line's first characters,
/// a delimiter, a link until its `)`, a table). The text passes the `TerminalSanitizer` first:
/// whatever control sequences it holds show as dim marks. Used only when colours are on.
public struct MarkdownRenderer {
    enum Phase { case lineStart, inline, code, wholeLine }

    struct ListLevel {
        /// Spaces before the item's marker in the text.
        var indent: Int
        var quoteDepth: Int
        /// The column its text starts at, after the quote bars.
        var contentColumn: Int
    }

    /// A line held whole longer than this while its start is undecided is read at its end.
    static let longestHeldStart = 256

    let theme: Theme
    let hyperlinks: Bool
    /// Columns to fit; a change applies from the next line.
    public var width: Int
    var writer: ScreenWriter
    var prose: ProseWrapper
    var inline: InlineParser
    private var sanitizer = TerminalSanitizer()
    var phase = Phase.lineStart
    var held: [UInt8] = []
    var lists: [ListLevel] = []
    var fence: MarkdownLineStart.OpenFence?
    var code: CodeBlockWriter?
    var table: MarkdownTable?
    /// A line with a leading `|`, waiting for the next to say whether it heads a table.
    private var tableHeader: (line: [UInt8], start: MarkdownLineStart)?

    public init(width: Int, hyperlinks: Bool = false, theme: Theme = .standard) {
        self.theme = theme
        self.hyperlinks = hyperlinks
        self.width = width
        writer = ScreenWriter(colors: true, hyperlinks: hyperlinks)
        prose = ProseWrapper(width: width)
        inline = InlineParser(theme: theme, hyperlinks: hyperlinks)
    }

    /// The column the cursor is at after what was given out (hark never leaves a line to the
    /// terminal's auto-wrap, so this is where the terminal has it too).
    public var column: Int { writer.column }

    public mutating func feed(_ text: String) -> String {
        var sanitizer = self.sanitizer
        sanitizer.feed(text) { consume($0) }
        self.sanitizer = sanitizer
        return String(decoding: writer.take(), as: UTF8.self)
    }

    /// The reply ended: what was held is shown, the last line ends, and the next reply starts
    /// afresh.
    public mutating func finish() -> String {
        var sanitizer = self.sanitizer
        sanitizer.finish { consume($0) }
        self.sanitizer = TerminalSanitizer()
        endLine()
        if let header = tableHeader {
            tableHeader = nil
            renderWholeLine(header.line, header.start)
        }
        if table != nil { drawTable() }
        lists = []
        fence = nil
        code = nil
        return String(decoding: writer.take(), as: UTF8.self)
    }

    /// Another line is about to be shown in the middle of this reply (a status line): the
    /// current row ends, and the reply goes on after it where it was.
    public mutating func breakLine() -> String {
        switch phase {
        case .inline: prose.breakRow(into: &writer)
        case .code: code?.breakRow(into: &writer)
        case .lineStart, .wholeLine: break
        }
        return String(decoding: writer.take(), as: UTF8.self)
    }

    /// Ends whatever line is open, as if a line feed had come.
    private mutating func endLine() {
        switch phase {
        case .lineStart:
            if !held.isEmpty { decideLineStart(complete: true) }
        case .inline:
            endInlineLine()
        case .code:
            code?.endLine(into: &writer)
            phase = .lineStart
        case .wholeLine:
            finishWholeLine()
        }
    }

    mutating func consume(_ bytes: UnsafeBufferPointer<UInt8>) {
        var index = 0
        while index < bytes.count {
            switch phase {
            case .lineStart:
                let byte = bytes[index]
                index += 1
                if byte == 0x0A {
                    decideLineStart(complete: true)
                } else {
                    held.append(byte)
                    decideLineStart(complete: false)
                }
            case .inline, .code, .wholeLine:
                let end = CodeTokenizer.find(0x0A, in: bytes, from: index) ?? bytes.count
                let piece = UnsafeBufferPointer(rebasing: bytes[index..<end])
                switch phase {
                case .inline: feedInline(piece)
                case .code: code?.append(piece, into: &writer)
                default: held.append(contentsOf: piece)
                }
                index = end
                if end < bytes.count {
                    index += 1
                    endLine()
                }
            }
        }
    }

    private mutating func feedInline(_ bytes: UnsafeBufferPointer<UInt8>) {
        var parser = InlineParser(theme: theme, hyperlinks: hyperlinks)
        swap(&parser, &inline)
        parser.feed(bytes, into: &self)
        swap(&parser, &inline)
    }

    private mutating func endInlineLine() {
        var parser = InlineParser(theme: theme, hyperlinks: hyperlinks)
        swap(&parser, &inline)
        parser.endLine(into: &self)
        swap(&parser, &inline)
        prose.endLine(into: &writer)
        phase = .lineStart
    }

    /// The held start of a line may now say what the line is.
    private mutating func decideLineStart(complete: Bool) {
        if tableHeader != nil || (!complete && held.count > Self.longestHeldStart) {
            phase = .wholeLine
            if complete { finishWholeLine() }
            return
        }
        guard let start = MarkdownLineStart.classify(held, complete: complete, fence: fence) else { return }
        if table != nil && start.kind != .tableRow { drawTable() }
        switch start.kind {
        case .fence, .tableRow:
            phase = .wholeLine
            if complete { finishWholeLine() }
            return
        case .closingFence:
            fence = nil
            code = nil
        case .code:
            let content = Array(held[start.content...])
            phase = .code
            content.withUnsafeBufferPointer { code?.append($0, into: &writer) }
            if complete {
                code?.endLine(into: &writer)
                phase = .lineStart
            }
        default:
            let line = held
            held.removeAll(keepingCapacity: true)
            beginLine(start)
            if phase == .inline {
                line.withUnsafeBufferPointer { feedInline(UnsafeBufferPointer(rebasing: $0[start.content...])) }
                if complete { endInlineLine() }
            }
            return
        }
        held.removeAll(keepingCapacity: true)
    }

    /// A whole held line has come: a fence's opening, a table's row, or what decides whether
    /// the line before it heads a table.
    private mutating func finishWholeLine() {
        let line = held
        held.removeAll(keepingCapacity: true)
        phase = .lineStart
        if let header = tableHeader {
            tableHeader = nil
            let start = MarkdownLineStart.classify(line, complete: true, fence: nil)
            let headerCells = MarkdownTable.cells(header.line[header.start.content...])
            if let start, let alignments = MarkdownTable.alignments(line[start.content...]), alignments.count == headerCells.count {
                table = MarkdownTable(header: headerCells, alignments: alignments, prefix: blockPrefix(header.start))
                return
            }
            renderWholeLine(header.line, header.start)
            consumeAgain(line)
            return
        }
        guard let start = MarkdownLineStart.classify(line, complete: true, fence: fence) else { return }
        if table != nil && start.kind != .tableRow { drawTable() }
        switch start.kind {
        case .fence: openFence(line, start)
        case .tableRow:
            if table != nil {
                table?.rows.append(MarkdownTable.cells(line[start.content...]))
            } else {
                tableHeader = (line, start)
            }
        default:
            renderWholeLine(line, start)
        }
    }

    private mutating func consumeAgain(_ line: [UInt8]) {
        (line + [0x0A]).withUnsafeBufferPointer { consume($0) }
    }

    /// A line read whole, rendered as it would have been streamed.
    mutating func renderWholeLine(_ line: [UInt8], _ start: MarkdownLineStart) {
        var start = start
        switch start.kind {
        case .code:
            phase = .code
            line.withUnsafeBufferPointer { code?.append(UnsafeBufferPointer(rebasing: $0[start.content...]), into: &writer) }
            code?.endLine(into: &writer)
            phase = .lineStart
            return
        case .closingFence:
            fence = nil
            code = nil
            return
        case .fence, .tableRow:
            start.kind = .paragraph
        default:
            break
        }
        beginLine(start)
        if phase == .inline {
            line.withUnsafeBufferPointer { feedInline(UnsafeBufferPointer(rebasing: $0[min(start.content, line.count)...])) }
            endInlineLine()
        }
    }

    private mutating func drawTable() {
        guard let table else { return }
        self.table = nil
        if !TableLayout.draw(table, width: width, theme: theme, hyperlinks: hyperlinks, into: &writer) {
            // Too narrow for a column each: the rows as text.
            for row in [table.header] + table.rows {
                let line = Array(row.map { $0 }.joined(separator: Array(" │ ".utf8)))
                beginLine(MarkdownLineStart(kind: .paragraph))
                line.withUnsafeBufferPointer { feedInline($0) }
                endInlineLine()
            }
        }
    }
}

extension MarkdownRenderer: InlineSink {
    mutating func text(_ bytes: UnsafeBufferPointer<UInt8>, _ attributes: TextAttributes) {
        prose.text(bytes, attributes, into: &writer)
    }

    mutating func space(_ count: Int, _ attributes: TextAttributes) {
        prose.space(count, attributes)
    }
}
