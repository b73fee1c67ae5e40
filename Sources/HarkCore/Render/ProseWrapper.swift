/// Prose cut at spaces to the terminal's width as it streams in. Each piece of text is
/// written the moment it arrives; when a word that is still arriving no longer fits, it is
/// taken back and written again at the start of the next row, so a word is never split unless
/// it is wider than a whole row (then it is cut at the edge). Rows after the first start with
/// the continuation prefix: a list item's hanging indent, a quote's bar.
struct ProseWrapper {
    var width: Int
    var continuation = RowPrefix()
    /// The column where the row's text starts (after its prefix): a word there cannot move.
    private var rowStart = 0
    /// Nothing but the prefix is on the row yet; continuation rows drop leading spaces.
    private var rowIsContinued = false
    private var pendingSpaces = 0
    private var spaceAttributes = TextAttributes.plain
    /// The current word as written on this row, to write it again on the next.
    private var wordBytes: [UInt8] = []
    private var wordPieces: [(attributes: TextAttributes, end: Int)] = []
    private var wordColumn = -1
    /// Where the spaces before the current word start (its column when none were written).
    private var spaceColumn = -1
    /// The row was ended by another line shown in the middle: the text goes on after it.
    private var resumeOnNewRow = false

    init(width: Int) {
        self.width = max(width, 8)
    }

    /// A new line of prose starts at the writer's column (its first prefix written).
    mutating func start(at column: Int, continuation: RowPrefix) {
        self.continuation = continuation
        rowStart = column
        rowIsContinued = false
        resumeOnNewRow = false
        pendingSpaces = 0
        endWord()
    }

    /// Spaces between words (a tab counts as the spaces to the next multiple of four).
    mutating func space(_ count: Int = 1, _ attributes: TextAttributes = .plain) {
        if pendingSpaces == 0 { spaceAttributes = attributes }
        pendingSpaces += count
        endWord()
    }

    /// The line ends here.
    mutating func endLine(into writer: inout ScreenWriter) {
        pendingSpaces = 0
        endWord()
        if resumeOnNewRow {
            resumeOnNewRow = false
            return
        }
        writer.newline()
    }

    /// Another line is shown in the middle of this one: the row ends now, and the text that
    /// follows goes on on a new row, as a continuation.
    mutating func breakRow(into writer: inout ScreenWriter) {
        guard writer.column > 0, !resumeOnNewRow else { return }
        writer.newline()
        resumeOnNewRow = true
        endWord()
    }

    /// Text with no spaces or line breaks in it.
    mutating func text(_ bytes: UnsafeBufferPointer<UInt8>, _ attributes: TextAttributes, into writer: inout ScreenWriter) {
        if resumeOnNewRow {
            resumeOnNewRow = false
            continuation.write(into: &writer)
            rowStart = writer.column
            rowIsContinued = true
        }
        var index = 0
        while index < bytes.count {
            let rest = UnsafeBufferPointer(rebasing: bytes[index...])
            if wordColumn < 0 { startWord(width: TextWidth.of(utf8: rest), into: &writer) }
            let (end, runWidth) = Self.fitting(rest, from: 0, room: width - writer.column)
            if end == rest.count || wordColumn == rowStart {
                // It fits, or the word has the row to itself and takes what fits of it.
                if end > 0 {
                    let run = UnsafeBufferPointer(rebasing: rest[..<end])
                    writer.write(run, width: runWidth, attributes)
                    wordBytes.append(contentsOf: run)
                    wordPieces.append((attributes, wordBytes.count))
                    index += end
                }
                guard index < bytes.count else { break }
                if end == 0 && writer.column == rowStart {
                    // Not even one character fits beside the prefix: it goes anyway.
                    let one = UnsafeBufferPointer(rebasing: rest[..<min(UTF8Scalar.length(lead: rest[0]), rest.count)])
                    writer.write(one, width: TextWidth.of(utf8: one), attributes)
                    index += one.count
                    continue
                }
                newRow(into: &writer)
                wordColumn = writer.column
                wordBytes.removeAll(keepingCapacity: true)
                wordPieces.removeAll(keepingCapacity: true)
            } else if wordBytes.isEmpty {
                newRow(into: &writer)
                wordColumn = writer.column
            } else {
                moveWordToNextRow(into: &writer)
            }
        }
    }

    /// A word begins: the spaces before it are written, or the row ends there if the word's
    /// text at hand would not fit after them.
    private mutating func startWord(width runWidth: Int, into writer: inout ScreenWriter) {
        var spacesStart = writer.column
        if pendingSpaces > 0 {
            if rowIsContinued && writer.column == rowStart {
                // A continuation row starts with the word, not with the spaces that broke the row.
            } else if writer.column + pendingSpaces + runWidth > width && writer.column > rowStart {
                newRow(into: &writer)
                spacesStart = writer.column
            } else {
                writer.spaces(pendingSpaces, spaceAttributes)
            }
            pendingSpaces = 0
        }
        spaceColumn = spacesStart
        wordColumn = writer.column
    }

    /// The word written so far (and the spaces before it) goes to the start of the next row,
    /// and from there goes on.
    private mutating func moveWordToNextRow(into writer: inout ScreenWriter) {
        writer.erase(backTo: min(spaceColumn, wordColumn))
        newRow(into: &writer)
        let bytes = wordBytes
        let pieces = wordPieces
        wordBytes.removeAll(keepingCapacity: true)
        wordPieces.removeAll(keepingCapacity: true)
        wordColumn = writer.column
        var start = 0
        bytes.withUnsafeBufferPointer { all in
            for piece in pieces {
                text(UnsafeBufferPointer(rebasing: all[start..<piece.end]), piece.attributes, into: &writer)
                start = piece.end
            }
        }
    }

    private mutating func newRow(into writer: inout ScreenWriter) {
        writer.newline()
        continuation.write(into: &writer)
        rowStart = writer.column
        rowIsContinued = true
    }

    private mutating func endWord() {
        wordColumn = -1
        wordBytes.removeAll(keepingCapacity: true)
        wordPieces.removeAll(keepingCapacity: true)
    }

    /// The end of the longest run from `start` that fits in `room` columns, and its width.
    @inline(__always)
    static func fitting(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, room: Int) -> (end: Int, width: Int) {
        var index = start
        var used = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte < 0x80 {
                guard used < room else { break }
                used += 1
                index += 1
            } else {
                let (value, length) = UTF8Scalar.decode(bytes, at: index)
                let cells = TextWidth.of(codePoint: value)
                guard used + cells <= room else { break }
                used += cells
                index += length
            }
        }
        return (index, used)
    }

}
