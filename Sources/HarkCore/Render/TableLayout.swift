/// A Markdown table's rows as they came, until the table ends and can be drawn.
struct MarkdownTable {
    enum Alignment: Sendable { case left, center, right }

    var header: [[UInt8]]
    var alignments: [Alignment]
    var rows: [[[UInt8]]] = []
    /// The prefix of the table's rows (quote bars, a list's indent).
    var prefix: RowPrefix

    /// A row's cells: split at `|` (not an escaped one, nor one inside code or a mark), the
    /// outer pipes dropped, each cell trimmed.
    static func cells(_ line: ArraySlice<UInt8>) -> [[UInt8]] {
        var cells: [[UInt8]] = []
        var current: [UInt8] = []
        var inCode = false
        var inMark = false
        var escaped = false
        for byte in line {
            if escaped {
                if byte != 0x7C { current.append(0x5C) }
                current.append(byte)
                escaped = false
                continue
            }
            switch byte {
            case 0x5C where !inMark: escaped = true
            case 0x60 where !inMark:
                inCode.toggle()
                current.append(byte)
            case TerminalSanitizer.markStart:
                inMark = true
                current.append(byte)
            case TerminalSanitizer.markEnd:
                inMark = false
                current.append(byte)
            case 0x7C where !inCode && !inMark:
                cells.append(current)
                current = []
            default:
                current.append(byte)
            }
        }
        if escaped { current.append(0x5C) }
        cells.append(current)
        var trimmed = cells.map { Self.trim($0) }
        if trimmed.first?.isEmpty == true, line.drop(while: { $0 == 0x20 }).first == 0x7C { trimmed.removeFirst() }
        if trimmed.count > 1, trimmed.last?.isEmpty == true, Self.trim(Array(line)).last == 0x7C { trimmed.removeLast() }
        return trimmed
    }

    /// The alignments of a delimiter row (`|:---|:--:|--:|`), or nil when the line is not one.
    static func alignments(_ line: ArraySlice<UInt8>) -> [Alignment]? {
        let cells = cells(line)
        guard !cells.isEmpty else { return nil }
        var alignments: [Alignment] = []
        for cell in cells {
            guard !cell.isEmpty, cell.allSatisfy({ $0 == 0x2D || $0 == 0x3A }), cell.contains(0x2D) else { return nil }
            let left = cell.first == 0x3A
            let right = cell.last == 0x3A
            alignments.append(left && right ? .center : right ? .right : .left)
        }
        return alignments
    }

    static func trim(_ bytes: [UInt8]) -> [UInt8] {
        var slice = bytes[...]
        while slice.first == 0x20 || slice.first == 0x09 { slice = slice.dropFirst() }
        while slice.last == 0x20 || slice.last == 0x09 { slice = slice.dropLast() }
        return Array(slice)
    }
}

/// A cell's text as words in their looks, laid out to a column's width.
struct CellText: InlineSink {
    struct Word {
        var pieces: [(TextAttributes, [UInt8])] = []
        var width = 0
        var spaceBefore = false
    }

    private(set) var words: [Word] = []
    private var pendingSpace = false

    mutating func text(_ bytes: UnsafeBufferPointer<UInt8>, _ attributes: TextAttributes) {
        if words.isEmpty || pendingSpace {
            words.append(Word(spaceBefore: pendingSpace && !words.isEmpty))
            pendingSpace = false
        }
        words[words.count - 1].pieces.append((attributes, Array(bytes)))
        words[words.count - 1].width += TextWidth.of(utf8: bytes)
    }

    mutating func space(_ count: Int, _ attributes: TextAttributes) {
        pendingSpace = true
    }

    /// The width on one line.
    var naturalWidth: Int { words.reduce(0) { $0 + $1.width + ($1.spaceBefore ? 1 : 0) } }

    var longestWord: Int { words.map(\.width).max() ?? 0 }

    /// The words in lines no wider than `width`; a longer word is cut.
    func lines(width: Int) -> [[(TextAttributes, [UInt8])]] {
        var lines: [[(TextAttributes, [UInt8])]] = [[]]
        var used = 0
        for word in words {
            if used > 0 && used + 1 + word.width > width {
                lines.append([])
                used = 0
            }
            if used > 0 && word.spaceBefore {
                lines[lines.count - 1].append((.plain, [0x20]))
                used += 1
            }
            for (attributes, bytes) in word.pieces {
                var rest = bytes[...]
                while !rest.isEmpty {
                    let (end, cells) = rest.withUnsafeBufferPointer { ProseWrapper.fitting($0, from: 0, room: width - used) }
                    if end == 0 {
                        if used == 0 {
                            // Not one character fits: it goes alone.
                            let one = UTF8Scalar.length(lead: rest.first!)
                            lines[lines.count - 1].append((attributes, Array(rest.prefix(one))))
                            rest = rest.dropFirst(one)
                        }
                        lines.append([])
                        used = 0
                        continue
                    }
                    lines[lines.count - 1].append((attributes, Array(rest.prefix(end))))
                    used += cells
                    rest = rest.dropFirst(end)
                }
            }
        }
        return lines
    }
}

/// Draws a table with box-drawing borders: the header emphasised and ruled off, each column
/// aligned as its delimiter row says, cells wrapped to their column; a table wider than the
/// screen shrinks its widest columns first, as rich's tables do.
enum TableLayout {
    static func draw(_ table: MarkdownTable, width: Int, theme: Theme, hyperlinks: Bool, into writer: inout ScreenWriter) -> Bool {
        let columns = max(table.header.count, table.rows.map(\.count).max() ?? 0)
        func text(_ cell: [UInt8], header: Bool) -> CellText {
            var parser = InlineParser(theme: theme, hyperlinks: hyperlinks, base: header ? theme.tableHeader : .plain)
            var sink = CellText()
            cell.withUnsafeBufferPointer { parser.feed($0, into: &sink) }
            parser.endLine(into: &sink)
            return sink
        }
        let pad = { (row: [[UInt8]]) in row + Array(repeating: [], count: max(0, columns - row.count)) }
        let header = pad(table.header).prefix(columns).map { text($0, header: true) }
        let body = table.rows.map { pad($0).prefix(columns).map { text($0, header: false) } }
        let available = width - table.prefix.width - (3 * columns + 1)
        guard let widths = columnWidths([header] + body, available: available) else { return false }
        let alignments = (0..<columns).map { $0 < table.alignments.count ? table.alignments[$0] : .left }
        let border = theme.tableBorder
        func rule(_ left: String, _ middle: String, _ right: String) {
            table.prefix.write(into: &writer)
            writer.write(left + widths.map { String(repeating: "─", count: $0 + 2) }.joined(separator: middle) + right, border)
            writer.newline()
        }
        func row(_ cells: [CellText]) {
            let lines = zip(cells, widths).map { $0.lines(width: $1) }
            for index in 0..<(lines.map(\.count).max() ?? 1) {
                table.prefix.write(into: &writer)
                writer.write("│", border)
                for (column, cellLines) in lines.enumerated() {
                    let line = index < cellLines.count ? cellLines[index] : []
                    let used = line.reduce(0) { $0 + $1.1.withUnsafeBufferPointer { TextWidth.of(utf8: $0) } }
                    let room = widths[column] - used
                    let before = alignments[column] == .right ? room : alignments[column] == .center ? room / 2 : 0
                    writer.spaces(1 + before)
                    for (attributes, bytes) in line {
                        bytes.withUnsafeBufferPointer { writer.write($0, width: TextWidth.of(utf8: $0), attributes) }
                    }
                    writer.spaces(room - before + 1)
                    writer.write("│", border)
                }
                writer.newline()
            }
        }
        rule("┌", "┬", "┐")
        row(header)
        rule("├", "┼", "┤")
        for cells in body { row(cells) }
        rule("└", "┴", "┘")
        return true
    }

    /// Each column's width: as wide as its widest cell when the table fits; otherwise the
    /// widest columns give up room first, down to their longest word, then below it (words
    /// are cut). Nil when not even one character a column fits.
    static func columnWidths(_ rows: [[CellText]], available: Int) -> [Int]? {
        guard let columns = rows.first?.count, columns > 0, available >= columns else { return nil }
        var widths = (0..<columns).map { column in max(1, rows.map { $0[column].naturalWidth }.max() ?? 1) }
        let floors = (0..<columns).map { column in min(max(1, rows.map { $0[column].longestWord }.max() ?? 1), 12) }
        while widths.reduce(0, +) > available {
            // Shrink the widest column that is still above its floor; when all are at their
            // floors, the widest of all.
            let candidates = widths.indices.filter { widths[$0] > floors[$0] }
            let pool = candidates.isEmpty ? Array(widths.indices) : candidates
            guard let widest = pool.max(by: { widths[$0] < widths[$1] }), widths[widest] > 1 else { return nil }
            widths[widest] -= 1
        }
        return widths
    }
}
