/// Text with meaning attached, not escape codes: the terminal decides how each style looks
/// (ANSI on a TTY, nothing in a pipe or with NO_COLOR).
public enum Style: Sendable, Equatable {
    case plain, dim, bold, italic, accent, success, warning, error, code, heading, user
    /// A mark that stands for a control character or escape sequence of untrusted text.
    case inert
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
    /// Where a terminal starts this line's further rows when it cuts it to its width (a
    /// table's last column); nil: under the text after its leading spaces and list marker.
    public var hangingIndent: Int?

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
            var line = StyledLine(spans)
            // A long last cell (a command's description) goes on under itself.
            if row.count > 1 { line.hangingIndent = widths[..<(row.count - 1)].reduce(0) { $0 + $1 + gap } }
            return line
        }
    }
}
