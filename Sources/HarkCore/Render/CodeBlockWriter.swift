/// The lines of a fenced code block as they stream in, coloured by their language's tokenizer.
/// A line is never reflowed: one wider than the screen goes on, on the rows after it, behind
/// a dim "↪" (no border or gutter, so a mouse copy of the code is the code). What the
/// tokenizer has settled is written for good; the token still arriving (`ret`, which may
/// become `return`) is written plain and, once settled, written again in its colour.
struct CodeBlockWriter {
    static let continuationSign = "↪"

    let theme: Theme
    let prefix: RowPrefix
    var width: Int
    private var line: [UInt8] = []
    /// Bytes of `line` written for good, and the tokenizer as it stood there.
    private var settled = 0
    private var tokenizer: CodeTokenizer
    /// Cells of code on this line up to `settled` (for tab stops).
    private var settledCells = 0
    /// Bytes after `settled` written plain, from this column of the current row.
    private var provisional: (column: Int, count: Int)?
    private var rowStarted = false

    init(language: Language?, prefix: RowPrefix, width: Int, theme: Theme) {
        self.prefix = prefix
        self.width = max(width, prefix.width + 8)
        self.theme = theme
        tokenizer = CodeTokenizer(language: language)
    }

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>, into writer: inout ScreenWriter) {
        line.append(contentsOf: bytes)
        update(complete: false, into: &writer)
    }

    mutating func endLine(into writer: inout ScreenWriter) {
        update(complete: true, into: &writer)
        if !rowStarted { prefix.write(into: &writer) }
        tokenizer.endLine()
        writer.newline()
        line.removeAll(keepingCapacity: true)
        settled = 0
        settledCells = 0
        provisional = nil
        rowStarted = false
    }

    /// Another line is shown in the middle of this one (a status line): the rest of this
    /// line goes on after it, as a continuation.
    mutating func breakRow(into writer: inout ScreenWriter) {
        if let shown = provisional {
            writer.erase(backTo: shown.column)
            provisional = nil
        }
        if writer.column > 0 { writer.newline() }
        rowStarted = false
    }

    private mutating func update(complete: Bool, into writer: inout ScreenWriter) {
        if !rowStarted {
            prefix.write(into: &writer)
            if settled > 0 { writer.write(Self.continuationSign, theme.continuation) }
            rowStarted = true
        }
        let line = self.line
        line.withUnsafeBufferPointer { buffer in
            var index = settled
            while index < buffer.count {
                let before = tokenizer
                let token = tokenizer.next(buffer, from: index, complete: complete)
                if token.open && !token.carries {
                    tokenizer = before
                    showProvisionally(UnsafeBufferPointer(rebasing: buffer[index...]), into: &writer)
                    return
                }
                let attributes = theme.token(token.kind)
                var from = index
                if let shown = provisional {
                    provisional = nil
                    if attributes.isPlain && token.end - index >= shown.count {
                        from = index + shown.count
                        settledCells += Self.cells(UnsafeBufferPointer(rebasing: buffer[index..<from]), startingAt: settledCells)
                    } else {
                        writer.erase(backTo: shown.column)
                    }
                }
                write(UnsafeBufferPointer(rebasing: buffer[from..<token.end]), attributes, into: &writer)
                index = token.end
                settled = index
            }
        }
    }

    /// The token still arriving, plain, if it fits on this row; otherwise nothing yet.
    private mutating func showProvisionally(_ bytes: UnsafeBufferPointer<UInt8>, into writer: inout ScreenWriter) {
        let cells = Self.cells(bytes, startingAt: settledCells)
        if let shown = provisional {
            if shown.column + cells <= width {
                let written = UnsafeBufferPointer(rebasing: bytes[..<shown.count])
                let writtenCells = Self.cells(written, startingAt: settledCells)
                writeExpanded(UnsafeBufferPointer(rebasing: bytes[shown.count...]), .plain, startCells: settledCells + writtenCells,
                              into: &writer)
                provisional = (shown.column, bytes.count)
                return
            }
            writer.erase(backTo: shown.column)
            provisional = nil
        }
        guard writer.column + cells <= width else { return }
        let column = writer.column
        writeExpanded(bytes, .plain, startCells: settledCells, into: &writer)
        provisional = (column, bytes.count)
    }

    /// Settled code: cut into rows at the screen's edge, each further row behind the sign.
    private mutating func write(_ bytes: UnsafeBufferPointer<UInt8>, _ attributes: TextAttributes, into writer: inout ScreenWriter) {
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == TerminalSanitizer.markStart || byte == TerminalSanitizer.markEnd {
                index += 1
                continue
            }
            let length = UTF8Scalar.length(lead: byte)
            let scalar = UnsafeBufferPointer(rebasing: bytes[index..<min(index + length, bytes.count)])
            let cells = byte == 0x09 ? 4 - settledCells % 4 : TextWidth.of(utf8: scalar)
            if writer.column + cells > width && writer.column > prefix.width + 1 {
                writer.newline()
                prefix.write(into: &writer)
                writer.write(Self.continuationSign, theme.continuation)
            }
            if byte == 0x09 {
                writer.spaces(cells, attributes)
            } else {
                writer.write(scalar, width: cells, attributes)
            }
            settledCells += cells
            index += scalar.count
        }
    }

    private func writeExpanded(_ bytes: UnsafeBufferPointer<UInt8>, _ attributes: TextAttributes, startCells: Int,
                               into writer: inout ScreenWriter) {
        var cells = startCells
        var start = 0
        for index in 0..<bytes.count where bytes[index] == 0x09 {
            let run = UnsafeBufferPointer(rebasing: bytes[start..<index])
            let runCells = TextWidth.of(utf8: run)
            writer.write(run, width: runCells, attributes)
            cells += runCells
            writer.spaces(4 - cells % 4, attributes)
            cells += 4 - cells % 4
            start = index + 1
        }
        let run = UnsafeBufferPointer(rebasing: bytes[start...])
        writer.write(run, width: TextWidth.of(utf8: run), attributes)
    }

    /// Cells `bytes` take when the line has `start` cells before them (tabs to multiples of 4).
    static func cells(_ bytes: UnsafeBufferPointer<UInt8>, startingAt start: Int) -> Int {
        var cells = start
        var runStart = 0
        for index in 0..<bytes.count where bytes[index] == 0x09 {
            cells += TextWidth.of(utf8: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
            cells += 4 - cells % 4
            runStart = index + 1
        }
        cells += TextWidth.of(utf8: UnsafeBufferPointer(rebasing: bytes[runStart...]))
        return cells - start
    }
}
