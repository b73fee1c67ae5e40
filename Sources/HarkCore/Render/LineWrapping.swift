/// Long lines of prose (an /ask snippet) cut at spaces to the terminal's width, each further
/// line indented as the first: the terminal itself cuts mid-word at the edge and starts the
/// rest at column 0, under the citation. Only on a TTY; a pipe gets the line whole.
extension StyledLine {
    /// The line in lines no wider than `width` columns, cut where it has spaces (they are
    /// dropped at the cuts and kept elsewhere), each after the first starting with the first's
    /// leading spaces. A word wider than a line stays whole on a line of its own. The line as
    /// it is when it fits, or when the width leaves too little room beside the indent.
    public func wrapped(to width: Int) -> [StyledLine] {
        guard TextWidth.of(plainText) > width else { return [self] }
        let (indent, words) = Self.words(spans)
        guard width - indent >= 20 else { return [self] }
        let margin = Span(String(repeating: " ", count: indent))
        var lines: [StyledLine] = []
        var current: [Span] = [margin]
        var used = indent
        for word in words {
            let wordWidth = word.spans.reduce(0) { $0 + TextWidth.of($1.text) }
            if used > indent && used + word.gap + wordWidth > width {
                lines.append(line(current))
                current = [margin]
                used = indent
            }
            if used > indent && word.gap > 0 {
                current.append(Span(String(repeating: " ", count: word.gap)))
                used += word.gap
            }
            current += word.spans
            used += wordWidth
        }
        lines.append(line(current))
        return lines
    }

    /// A piece of this line with its flags.
    private func line(_ spans: [Span]) -> StyledLine {
        var line = StyledLine(spans)
        line.isNote = isNote
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
}
