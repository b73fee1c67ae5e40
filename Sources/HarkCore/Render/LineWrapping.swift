/// hark's own lines (a table of commands, a notice, an error, a history entry) cut at spaces
/// to the terminal's width, on a terminal only: the terminal itself would cut mid-word at the
/// edge and start the rest at column 0. Further rows hang under the line's text: after its
/// leading spaces and a marker (`• `, `- `, `» `, `1. `), or at `hangingIndent` (a table's
/// last column). A pipe gets each line whole.
extension StyledLine {
    /// Markers whose further rows go under the text after them.
    static let markers = ["• ", "- ", "* ", "» ", "⚙ ", "→ ", "· ", "◦ ", "> ", "✓ ", "✗ ", "↪ "]

    /// The line in rows no wider than `width` columns (a line holding line breaks is cut there
    /// first), cut where it has spaces (dropped at the cuts, kept elsewhere); a word wider
    /// than a row is cut at the edge. A Markdown block is left to the Markdown renderer.
    public func wrapped(to width: Int) -> [StyledLine] {
        guard !spans.contains(where: { $0.style == .markdownBlock }) else { return [self] }
        let lines = splitAtLineBreaks()
        if lines.count > 1 { return lines.flatMap { $0.wrapped(to: width) } }
        guard TextWidth.of(plainText) > width else { return [self] }
        if let column = hangingIndent, width - column < 24, let (left, right) = split(atColumn: column) {
            // The last column would be too narrow to read beside the others: it goes under them.
            let indent = left.spans.first.map { $0.text.prefix { $0 == " " }.count } ?? 0
            var below = StyledLine([Span(String(repeating: " ", count: indent + 4))] + right.spans)
            below.isNote = isNote
            return [left] + below.wrapped(to: width)
        }
        let (indent, words) = Self.words(spans)
        var hang = hangingIndent ?? (indent + Self.markerWidth(after: indent, in: plainText))
        if width - hang < 16 { hang = width - indent >= 16 ? indent : 0 }
        var rows: [StyledLine] = []
        var current: [Span] = indent > 0 ? [Span(String(repeating: " ", count: indent))] : []
        var used = indent
        var rowStart = indent
        func newRow() {
            rows.append(line(current))
            current = hang > 0 ? [Span(String(repeating: " ", count: hang))] : []
            used = hang
            rowStart = hang
        }
        for word in words {
            let wordWidth = word.spans.reduce(0) { $0 + TextWidth.of($1.text) }
            if used > rowStart && used + word.gap + wordWidth > width { newRow() }
            if used > rowStart && word.gap > 0 {
                current.append(Span(String(repeating: " ", count: word.gap)))
                used += word.gap
            }
            for span in word.spans {
                var rest = Substring(span.text)
                while !rest.isEmpty {
                    let room = width - used
                    let (piece, pieceWidth) = Self.prefix(of: rest, fitting: room)
                    if piece.isEmpty {
                        if used == rowStart {
                            // Not one character fits beside the indent: it goes alone.
                            let one = String(rest.unicodeScalars.first!)
                            current.append(Span(one, span.style))
                            used += TextWidth.of(one)
                            rest = rest.dropFirst(one.count)
                        }
                        newRow()
                        continue
                    }
                    current.append(Span(String(piece), span.style))
                    used += pieceWidth
                    rest = rest[piece.endIndex...]
                }
            }
        }
        rows.append(line(current))
        return rows
    }

    /// The line cut at a display column: what is before it (without its trailing spaces) and
    /// what is after it (without its leading spaces); nil when nothing comes after.
    func split(atColumn column: Int) -> (StyledLine, StyledLine)? {
        var left: [Span] = []
        var right: [Span] = []
        var used = 0
        for span in spans {
            let room = column - used
            if room <= 0 {
                right.append(span)
                continue
            }
            let (piece, width) = Self.prefix(of: Substring(span.text), fitting: room)
            if !piece.isEmpty { left.append(Span(String(piece), span.style)) }
            used += width
            let rest = span.text.unicodeScalars.dropFirst(piece.unicodeScalars.count)
            if !rest.isEmpty { right.append(Span(String(String.UnicodeScalarView(rest)), span.style)) }
        }
        while let last = left.last, last.text.hasSuffix(" ") {
            let trimmed = String(last.text.reversed().drop { $0 == " " }.reversed())
            left.removeLast()
            if !trimmed.isEmpty {
                left.append(Span(trimmed, last.style))
                break
            }
        }
        while let first = right.first, first.text.hasPrefix(" ") {
            let trimmed = String(first.text.drop { $0 == " " })
            right.removeFirst()
            if !trimmed.isEmpty {
                right.insert(Span(trimmed, first.style), at: 0)
                break
            }
        }
        guard !right.isEmpty else { return nil }
        var first = StyledLine(left)
        first.isNote = isNote
        return (first, StyledLine(right))
    }

    /// The longest start of `text` that fits in `room` columns, by scalar.
    static func prefix(of text: Substring, fitting room: Int) -> (Substring, Int) {
        var used = 0
        var end = text.unicodeScalars.startIndex
        for index in text.unicodeScalars.indices {
            let cells = TextWidth.of(text.unicodeScalars[index])
            if used + cells > room { break }
            used += cells
            end = text.unicodeScalars.index(after: index)
        }
        return (Substring(text.unicodeScalars[..<end]), used)
    }

    /// The width of a list marker or arrow at `offset` of `text`, or 0.
    static func markerWidth(after offset: Int, in text: String) -> Int {
        let rest = text.unicodeScalars.dropFirst(offset)
        let start = String(String.UnicodeScalarView(rest.prefix(4)))
        if let marker = markers.first(where: { start.hasPrefix($0) }) { return TextWidth.of(marker) }
        let digits = rest.prefix { $0.value >= 0x30 && $0.value <= 0x39 }.count
        if digits > 0 && digits < 4 {
            let after = Array(rest.dropFirst(digits).prefix(2))
            if after.count == 2 && (after[0] == "." || after[0] == ")") && after[1] == " " { return digits + 2 }
        }
        return 0
    }

    /// The line cut at its line breaks, each piece in its spans' styles.
    func splitAtLineBreaks() -> [StyledLine] {
        guard spans.contains(where: { $0.text.utf8.contains(0x0A) }) else { return [self] }
        var lines: [[Span]] = [[]]
        for span in spans {
            let parts = span.text.split(separator: "\n", omittingEmptySubsequences: false)
            for (index, part) in parts.enumerated() {
                if index > 0 { lines.append([]) }
                if !part.isEmpty { lines[lines.count - 1].append(Span(String(part), span.style)) }
            }
        }
        return lines.map { line($0) }
    }

    /// A piece of this line with its flags.
    private func line(_ spans: [Span]) -> StyledLine {
        var line = StyledLine(spans)
        line.isNote = isNote
        line.hangingIndent = hangingIndent
        return line
    }

    /// The leading spaces' count, and the words after them: each its pieces in their styles (a
    /// highlighted part of a word stays in the word) and the spaces before it.
    private static func words(_ spans: [Span]) -> (indent: Int, words: [(gap: Int, spans: [Span])]) {
        var indent = 0
        var words: [(gap: Int, spans: [Span])] = []
        var gap = 0
        var inWord = false
        for span in spans {
            var piece = ""
            for character in span.text {
                if character == " " {
                    if !piece.isEmpty { words[words.count - 1].spans.append(Span(piece, span.style)) }
                    piece = ""
                    if words.isEmpty { indent += 1 } else { gap += 1 }
                    inWord = false
                } else {
                    if !inWord {
                        words.append((gap, []))
                        gap = 0
                        inWord = true
                    }
                    piece.append(character)
                }
            }
            if !piece.isEmpty { words[words.count - 1].spans.append(Span(piece, span.style)) }
        }
        return (indent, words)
    }

    /// The line with untrusted text made safe: control characters and escape sequences in
    /// its spans become inert spans that show what they were, tabs become spaces. Markdown
    /// blocks are left to the Markdown renderer, which sanitizes its text itself.
    public func sanitized() -> StyledLine {
        let needsWork = { (span: Span) in
            span.style != .markdownBlock && (TerminalSanitizer.needsWork(span.text) || span.text.utf8.contains(0x09))
        }
        guard spans.contains(where: needsWork) else { return self }
        var result: [Span] = []
        for span in spans {
            guard needsWork(span) else {
                result.append(span)
                continue
            }
            for (text, inert) in TerminalSanitizer.pieces(span.text) {
                result.append(Span(inert ? text : text.replacingTabs, inert ? .inert : span.style))
            }
        }
        return line(result)
    }
}

extension StyledLine {
    /// Lines as a terminal with these capabilities shows them (no line feed after the last):
    /// untrusted text made inert where it must be, each line cut to `columns` when given.
    public static func rendered(_ document: Document, capabilities: TerminalCapabilities, columns: Int?) -> String {
        let ansi = ANSI(capabilities)
        var lines = document
        if capabilities.sanitizes { lines = lines.map { $0.sanitized() } }
        if let columns { lines = lines.flatMap { $0.wrapped(to: columns) } }
        return lines.map { ansi.render($0, width: columns) }.joined(separator: "\n")
    }
}

private extension String {
    var replacingTabs: String {
        guard utf8.contains(0x09) else { return self }
        return split(separator: "\t", omittingEmptySubsequences: false).joined(separator: "    ")
    }
}
