/// How each kind of line starts on the screen: its quote bars, its list marker and the
/// hanging indent its further rows get; rules; a code block's label.
extension MarkdownRenderer {
    static let bullets = ["•", "◦", "▪"]

    func quoteBars(_ depth: Int) -> RowPrefix {
        var prefix = RowPrefix()
        for _ in 0..<min(depth, 8) { prefix.add("▌ ", theme.quoteBar) }
        return prefix
    }

    /// The lists the line is not part of end: those at its indent or deeper (a sibling, or a
    /// paragraph back at the margin), and all of them when the quote changes.
    mutating func popLists(for start: MarkdownLineStart) {
        while let last = lists.last, start.indent <= last.indent || last.quoteDepth != start.quoteDepth { lists.removeLast() }
    }

    /// Where a block (a table, code) starts: its quote bars and the text column of the list
    /// item it belongs to.
    mutating func blockPrefix(_ start: MarkdownLineStart) -> RowPrefix {
        popLists(for: start)
        var prefix = quoteBars(start.quoteDepth)
        if let last = lists.last { prefix.add(spaces: min(last.contentColumn, width / 3)) }
        return prefix
    }

    /// Writes the start of a line and readies the inline reader for its text.
    mutating func beginLine(_ start: MarkdownLineStart) {
        prose.width = width
        let bars = quoteBars(start.quoteDepth)
        switch start.kind {
        case .blank:
            writer.newline()
        case .rule:
            lists = []
            bars.write(into: &writer)
            writer.write(String(repeating: "─", count: max(3, width - bars.width)), theme.rule)
            writer.newline()
        case .heading(let level):
            lists = []
            startProse(first: bars, continuation: bars, base: theme.heading(level))
        case .item(let marker):
            popLists(for: start)
            let indent = min(lists.last?.contentColumn ?? 0, width / 3)
            let (text, attributes) = markerText(marker, level: lists.count)
            let markerWidth = TextWidth.of(text)
            lists.append(ListLevel(indent: start.indent, quoteDepth: start.quoteDepth, contentColumn: indent + markerWidth))
            var first = bars
            first.add(spaces: indent)
            first.add(text, attributes)
            var continuation = bars
            continuation.add(spaces: indent + markerWidth)
            startProse(first: first, continuation: continuation, base: .plain)
        case .paragraph:
            popLists(for: start)
            var prefix = bars
            if let last = lists.last { prefix.add(spaces: min(last.contentColumn, width / 3)) }
            startProse(first: prefix, continuation: prefix, base: .plain)
        case .fence, .tableRow, .code, .closingFence:
            break
        }
    }

    private mutating func startProse(first: RowPrefix, continuation: RowPrefix, base: TextAttributes) {
        first.write(into: &writer)
        prose.start(at: writer.column, continuation: continuation)
        inline.startLine(base: base)
        phase = .inline
    }

    func markerText(_ marker: MarkdownLineStart.ListMarker, level: Int) -> (String, TextAttributes) {
        switch marker {
        case .bullet: return (Self.bullets[level % Self.bullets.count] + " ", theme.bullet)
        case .ordered(let number): return (number + " ", theme.bullet)
        case .task(let checked): return (checked ? "☑ " : "☐ ", theme.bullet)
        }
    }

    /// An opening fence: a dim label with the language in its place, and the code after it.
    mutating func openFence(_ line: [UInt8], _ start: MarkdownLineStart) {
        let character = line[start.content]
        let run = line[start.content...].prefix { $0 == character }.count
        let info = line[(start.content + run)...]
        if character == 0x60 && info.contains(0x60) {
            var paragraph = start
            paragraph.kind = .paragraph
            renderWholeLine(line, paragraph)
            return
        }
        let word = info.split(whereSeparator: { $0 == 0x20 || $0 == 0x09 }).first ?? []
        let language = String(decoding: word.filter { $0 >= 0x20 }, as: UTF8.self)
        let prefix = blockPrefix(start)
        prefix.write(into: &writer)
        writer.write(language.isEmpty ? "code" : language, theme.codeLabel)
        writer.newline()
        fence = MarkdownLineStart.OpenFence(character: character, length: run, indent: start.indent, quoteDepth: start.quoteDepth)
        code = CodeBlockWriter(language: Languages.named(language), prefix: prefix, width: width, theme: theme)
    }
}
