import Foundation
import HarkCore

/// Text as a screen shows it, row by row: a carriage return goes back to the row's start, a
/// line end on to the next row, ESC [ K erases the rest of the row and ESC [ J the rest of the
/// screen, ESC [ n A goes up n rows, ESC [ n G to column n, ESC 7 and ESC 8 save and restore
/// the cursor; other escape sequences (colours) and bells leave no mark. A wide character
/// takes two columns. Rows are not cut to a width (the text a person would read, unwrapped)
/// unless `wrapAt` is set: then a character that does not fit goes to the next row, as a
/// terminal's automatic margins do, and a tab moves to the next tab stop.
struct ScreenText {
    var wrapAt: Int?
    /// Cells of each row: a character, or nil for the second column of a wide one (or a gap).
    private var rows: [[Unicode.Scalar?]] = [[]]
    private var row = 0
    private var column = 0
    private var saved = (row: 0, column: 0)
    private var escape: [Unicode.Scalar]?
    private(set) var bells = 0

    /// The rows up to the cursor's, and any below it that hold text (an empty row below the
    /// cursor, left by a line erased, shows nothing).
    var text: String {
        let last = max(row, rows.lastIndex { !$0.isEmpty } ?? 0)
        return rows[...last].map { cells in String(String.UnicodeScalarView(cells.compactMap { $0 })) }.joined(separator: "\n")
    }

    mutating func apply(_ text: String) {
        for scalar in text.unicodeScalars {
            if var sequence = escape {
                sequence.append(scalar)
                escape = sequence
                // ESC [ parameters final-byte, or ESC and one character.
                let done = sequence.count == 1 ? scalar != "[" : (0x40...0x7E).contains(scalar.value)
                if done {
                    perform(sequence)
                    escape = nil
                }
                continue
            }
            switch scalar {
            case "\u{1B}": escape = []
            case "\r": column = 0
            case "\n":
                row += 1
                column = 0
                if row == rows.count { rows.append([]) }
            case "\u{7}": bells += 1
            case "\t" where wrapAt != nil:
                // As a terminal: on to the next tab stop, at most the last column.
                column = min((column / 8 + 1) * 8, wrapAt!)
            default:
                put(scalar)
            }
        }
    }

    private mutating func put(_ scalar: Unicode.Scalar) {
        let width = max(TextWidth.of(scalar), 1)
        if let wrapAt, column + width > wrapAt {
            row += 1
            column = 0
            if row == rows.count { rows.append([]) }
        }
        var cells = rows[row]
        while cells.count < column { cells.append(" ") }
        let cell: [Unicode.Scalar?] = width == 2 ? [scalar, nil] : [scalar]
        let end = min(column + width, cells.count)
        cells.replaceSubrange(column..<max(column, end), with: cell)
        rows[row] = cells
        column += width
    }

    private mutating func perform(_ sequence: [Unicode.Scalar]) {
        let final = sequence.last!
        let count = Int(String(String.UnicodeScalarView(sequence.dropFirst().dropLast()))) ?? 1
        switch (sequence.first, final) {
        case ("7", _) where sequence.count == 1: saved = (row, column)
        case ("8", _) where sequence.count == 1: (row, column) = saved
        case ("[", "K"): rows[row].removeSubrange(min(column, rows[row].count)...)
        case ("[", "J"):
            rows[row].removeSubrange(min(column, rows[row].count)...)
            rows.removeSubrange((row + 1)...)
        case ("[", "A"): row = max(0, row - count)
        case ("[", "G"): column = max(0, count - 1)
        // The cursor forward (hark takes back a word that moves to the next row with CR,
        // this, and an erase).
        case ("[", "C"):
            column += count
            while rows[row].count < column { rows[row].append(" ") }
        default: break
        }
    }
}
