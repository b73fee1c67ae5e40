import HarkCore

/// Where text flowing above a line being edited ends on screen, worked out from what is
/// written (printable text, line ends, carriage returns, SGR and other escape sequences), so
/// that each write can go back to it and the line be drawn again below it. hark never relies
/// on this being read back from the terminal. Pure: it returns the bytes to write.
///
/// The flow's last row is either a fresh row (`atRowStart`: the input line sits on it, and
/// the next text goes where the input line starts) or a row with `column` columns taken,
/// directly above the input line.
struct FlowCursor {
    /// Columns taken on the flow's last row.
    private(set) var column = 0
    /// The flow's next character starts a row of its own, the one the input line is on.
    private(set) var atRowStart = true
    /// The screen is at the flow's end (true) or at the start of the input line below it.
    private(set) var atFlowEnd = true
    /// A line end is already on screen that the reply's own text has yet to write: its row
    /// was closed by something else (a line entered, a notice) or filled to the last column.
    /// The next line end of the reply's is dropped, so it leaves no empty row.
    private var lineEndOwed = false
    /// SGR sequences in effect at the flow's end, set again on the way back to it.
    private(set) var style = ""
    /// An escape sequence cut between two writes.
    private var escape: [Unicode.Scalar]?
    /// The unfinished row as written (style at its start, then every byte since the last line
    /// end, escapes and carriage returns included), to write it again below a notice; nil
    /// once it grew past `rowLimit`. Rows the terminal wrapped it onto: `rowWraps`.
    private var row: (style: String, bytes: String.UnicodeScalarView)? = ("", String.UnicodeScalarView())
    private var rowWraps = 0
    static let rowLimit = 8192
    /// `onward` closed a row the reply filled to its last column: a carriage return the reply
    /// writes next (the renderer taking a word back to the next row) belongs on that row.
    private var fullRowClosed = false

    /// From the start of the input line back to where the flow ends.
    mutating func back() -> String {
        defer { atFlowEnd = true }
        guard !atFlowEnd && !atRowStart else { return "" }
        // The input line's styles are still on: the reply's own start from none.
        return "\u{1B}[A\u{1B}[\(column + 1)G" + ANSI.reset + style
    }

    /// From the flow's end on to a fresh row for the input line (its style ended).
    mutating func onward(columns: Int) -> String {
        defer { atFlowEnd = false }
        guard atFlowEnd && !atRowStart else { return "" }
        let reset = style.isEmpty ? "" : ANSI.reset
        if column >= columns {
            // At the last column the terminal has not moved on yet; it would for the next
            // character, to the row the input line now takes, and a line end would not add one.
            closeRow()
            fullRowClosed = true
        }
        return reset + "\r\n"
    }

    /// From the start of the input line back onto the full row `onward` closed, for reply
    /// text that starts with a carriage return; nil when the flow did not close such a row.
    mutating func backToFullRow(columns: Int) -> String? {
        guard fullRowClosed, !atFlowEnd else { return nil }
        fullRowClosed = false
        atRowStart = false
        lineEndOwed = false
        column = columns
        atFlowEnd = true
        return "\u{1B}[A\u{1B}[\(columns)G" + ANSI.reset + style
    }

    /// The row the flow ends on is closed by something other than the reply's text: that
    /// text goes on at the start of a row of its own.
    mutating func closeRow() {
        fullRowClosed = false
        if !atRowStart { lineEndOwed = true }
        atRowStart = true
        column = 0
        startRow()
    }

    private mutating func startRow() {
        row = (style, String.UnicodeScalarView())
        rowWraps = 0
    }

    /// The unfinished row, to write again from its start (`up` rows above the flow's end): nil
    /// when the flow is at a row start or the row is too long to keep.
    func unfinishedRow() -> (up: Int, text: String)? {
        guard !atRowStart, let row else { return nil }
        return (rowWraps, row.style + String(row.bytes))
    }

    /// The screen was moved to the flow's end by hand (the unfinished row written again).
    mutating func atTheFlowsEnd() {
        atFlowEnd = true
    }

    /// The input line was entered: it stays on screen, and the screen is on the row below it.
    mutating func lineEntered() {
        closeRow()
        atFlowEnd = true
    }

    /// The screen was cleared, or is in a state hark did not write (after `fg`): the flow
    /// goes on at the start of the row the screen is on.
    mutating func reset() {
        self = FlowCursor()
    }

    /// Tracks `text` written at the flow's end; returns what to write (a line end already on
    /// screen is left out).
    mutating func advance(_ text: String, columns: Int) -> String {
        if !text.isEmpty { fullRowClosed = false }
        var written = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if var sequence = escape {
                sequence.append(scalar)
                written.append(scalar)
                row?.bytes.append(scalar)
                if Self.ends(sequence) {
                    escape = nil
                    noteEscape(sequence)
                } else {
                    escape = sequence
                }
                continue
            }
            if lineEndOwed {
                if scalar == "\n" {
                    lineEndOwed = false
                    continue
                }
                if scalar != "\r" && scalar != "\u{1B}" { lineEndOwed = false }
            }
            written.append(scalar)
            advance(over: scalar, columns: max(columns, 1))
            if scalar == "\n" {
                startRow()
            } else if row != nil {
                row!.bytes.append(scalar)
                if row!.bytes.count > Self.rowLimit { row = nil }
            }
        }
        return String(written)
    }

    private mutating func advance(over scalar: Unicode.Scalar, columns: Int) {
        switch scalar {
        case "\u{1B}": escape = [scalar]
        case "\n":
            column = 0
            atRowStart = true
        case "\r": column = 0
        case "\t":
            column = min(columns, (column / 8 + 1) * 8)
            atRowStart = false
        case "\u{8}": column = max(0, column - 1)
        default:
            let width = TextWidth.of(scalar)
            guard width > 0 else { return }
            // The terminal moves to a new row first when the character does not fit.
            if column + width > columns && column > 0 {
                column = 0
                rowWraps += 1
            }
            column += width
            atRowStart = false
        }
    }

    /// Whether an escape sequence is complete: CSI ends with a final byte, OSC with BEL or
    /// ESC \, any other with the character after ESC.
    static func ends(_ sequence: [Unicode.Scalar]) -> Bool {
        guard sequence.count >= 2 else { return false }
        switch sequence[1] {
        case "[": return sequence.count > 2 && (0x40...0x7E).contains(sequence.last!.value)
        case "]": return sequence.last == "\u{7}" || (sequence.count > 3 && sequence.suffix(2).elementsEqual(["\u{1B}", "\\"]))
        default: return true
        }
    }

    private mutating func noteEscape(_ sequence: [Unicode.Scalar]) {
        guard sequence.count > 2, sequence[1] == "[" else { return }
        let parameters = String(String.UnicodeScalarView(sequence.dropFirst(2).dropLast()))
        // The renderer takes a word back to the next row with CR, the cursor forward and an
        // erase: where the cursor then stands is where the reply goes on.
        switch sequence.last {
        case "C":
            column += max(Int(parameters) ?? 1, 1)
            atRowStart = false
            return
        case "D":
            column = max(0, column - max(Int(parameters) ?? 1, 1))
            return
        case "G":
            column = max(0, (Int(parameters) ?? 1) - 1)
            return
        case "m": break
        default: return
        }
        if parameters.isEmpty || parameters == "0" {
            style = ""
        } else {
            style += String(String.UnicodeScalarView(sequence))
        }
    }
}
