/// Text with meaning attached, not escape codes: the terminal decides how each style looks
/// (ANSI on a TTY, nothing in a pipe or with NO_COLOR).
public enum Style: Sendable, Equatable {
    case plain, dim, bold, italic, accent, success, warning, error, code, heading, user
    /// A block of Markdown: rendered on a TTY, printed as written elsewhere.
    case markdownBlock
}

public struct Span: Sendable, Equatable {
    public var text: String
    public var style: Style

    public init(_ text: String, _ style: Style = .plain) {
        self.text = text
        self.style = style
    }
}

public struct StyledLine: Sendable, Equatable, ExpressibleByStringLiteral {
    public var spans: [Span]
    /// A note about how the command went ("logged in to …"), not its answer: a pipe gets it
    /// on stderr, so stdout holds only the answer.
    public var isNote = false
    /// Prose that a terminal shows cut at spaces to its width, indented as its first line
    /// (`wrapped(to:)`); a pipe gets it whole.
    public var wraps = false

    public init(_ spans: [Span]) { self.spans = spans }
    public init(_ text: String, _ style: Style = .plain) { self.spans = [Span(text, style)] }
    public init(stringLiteral value: String) { self.spans = [Span(value)] }

    public var plainText: String { spans.map(\.text).joined() }

    public static func + (left: StyledLine, right: StyledLine) -> StyledLine { StyledLine(left.spans + right.spans) }
}

public typealias Document = [StyledLine]

/// Column-aligned rows, for lists of sessions, threads, search hits.
public enum Table {
    public static func render(_ rows: [[Span]], gap: Int = 2) -> Document {
        guard let columns = rows.map(\.count).max(), columns > 0 else { return [] }
        var widths = [Int](repeating: 0, count: columns)
        for row in rows where row.count > 1 {
            for (index, cell) in row.enumerated() where index < columns - 1 {
                widths[index] = max(widths[index], TextWidth.of(cell.text))
            }
        }
        return rows.map { full in
            // Empty cells at the end would only pad the line with spaces.
            var row = full
            while let last = row.last, last.text.isEmpty, row.count > 1 { row.removeLast() }
            var spans: [Span] = []
            for (index, cell) in row.enumerated() {
                spans.append(cell)
                if index < row.count - 1 {
                    spans.append(Span(String(repeating: " ", count: widths[index] - TextWidth.of(cell.text) + gap)))
                }
            }
            return StyledLine(spans)
        }
    }
}

/// Display width in terminal columns: wide East Asian characters and emoji take two.
public enum TextWidth {
    public static func of(_ text: String) -> Int {
        var width = 0
        for scalar in text.unicodeScalars { width += of(scalar) }
        return width
    }

    public static func of(_ scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if value < 0x20 || (0x7F..<0xA0).contains(value) { return 0 }
        if (0x300...0x36F).contains(value) || value == 0x200D || (0xFE00...0xFE0F).contains(value) { return 0 }
        if (0x1100...0x115F).contains(value) || (0x2E80...0xA4CF).contains(value) || (0xAC00...0xD7A3).contains(value)
            || (0xF900...0xFAFF).contains(value) || (0xFE30...0xFE4F).contains(value) || (0xFF00...0xFF60).contains(value)
            || (0xFFE0...0xFFE6).contains(value) || (0x1F300...0x1F64F).contains(value)
            || (0x1F900...0x1F9FF).contains(value) || (0x20000...0x3FFFD).contains(value) {
            return 2
        }
        return 1
    }
}
