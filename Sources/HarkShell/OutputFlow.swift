import HarkCore

/// What the shell writes while a reply streams and the user types below it, as reedline's
/// external printer and prompt_toolkit's patch_stdout do: the reply (token by token, partial
/// lines included) and the shell's own lines go above the line being edited, which is drawn
/// again below them. The reply's last row stays where it is and the input line sits on the
/// row under it; each write goes back up to the column where the reply stopped.
public final class OutputFlow {
    let terminal: Terminal
    private(set) var cursor = FlowCursor()
    /// The input line is on screen below the flow (the screen is on it).
    private(set) var lineShown = false
    /// How the line input draws its line and finds the screen on it: set by the line input.
    public var line = LineDrawing()

    public struct LineDrawing {
        /// Takes the line off the screen, leaving the screen at the start of its first row.
        var erase: () -> Void
        /// Draws the prompt and the line from the start of the row the screen is on.
        var draw: () -> Void
        /// Rows between the line's first row and the one the screen is on.
        var cursorRow: () -> Int

        public init(erase: @escaping () -> Void = {}, draw: @escaping () -> Void = {}, cursorRow: @escaping () -> Int = { 0 }) {
            self.erase = erase
            self.draw = draw
            self.cursorRow = cursorRow
        }
    }

    init(terminal: Terminal) {
        self.terminal = terminal
    }

    private var columns: Int { max(terminal.size.columns, 1) }

    /// The reply's own text, where the reply left off.
    public func reply(_ text: String) {
        guard !text.isEmpty else { return }
        guard lineShown else {
            terminal.write(cursor.advance(text, columns: columns))
            return
        }
        if let quick = sameRow(text) {
            terminal.write(quick)
            return
        }
        line.erase()
        var out = (Self.startsWithCarriageReturn(text) ? cursor.backToFullRow(columns: columns) : nil) ?? cursor.back()
        out += cursor.advance(text, columns: columns)
        out += cursor.onward(columns: columns)
        terminal.write(out)
        line.draw()
    }

    /// Whether `text` goes back to its row's start before it writes anything (SGR sequences
    /// before the carriage return aside).
    static func startsWithCarriageReturn(_ text: String) -> Bool {
        var inEscape = false
        for scalar in text.unicodeScalars {
            if inEscape {
                if (0x40...0x7E).contains(scalar.value) && scalar != "[" { inEscape = false }
                continue
            }
            if scalar == "\u{1B}" { inEscape = true; continue }
            return scalar == "\r"
        }
        return false
    }

    /// Text that stays on the reply's row, written there and back without touching the line.
    private func sameRow(_ text: String) -> String? {
        guard !cursor.atRowStart, !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0 == "\u{7F}" }),
              cursor.column + TextWidth.of(text) < columns else { return nil }
        var copy = cursor
        _ = copy.back()
        let written = copy.advance(text, columns: columns)
        _ = copy.onward(columns: columns)
        guard copy.style == cursor.style else { return nil }
        let up = line.cursorRow() + 1
        // DECSC saved the input line's styles with the cursor: the reply's start from none.
        let start = "\u{1B}7\u{1B}[\(up)A\u{1B}[\(cursor.column + 1)G" + ANSI.reset + cursor.style
        cursor = copy
        return start + written + "\u{1B}8"
    }

    /// Lines of the shell's own (a notice, a queued message, a command's note): on rows of
    /// their own below what the reply finished, above its unfinished row, which is written
    /// again below them, so the reply's line stays whole (a spinner goes on below too).
    /// `change` changes the line while it is off the screen.
    public func lines(_ text: String, change: () -> Void = {}) {
        guard !text.isEmpty else { return change() }
        let ended = text.hasSuffix("\n") ? text : text + "\n"
        if let row = cursor.unfinishedRow() {
            if lineShown { line.erase() }
            let up = row.up + (cursor.atFlowEnd ? 0 : 1)
            var out = (up > 0 ? "\u{1B}[\(up)A" : "") + "\r\u{1B}[J" + (cursor.style.isEmpty ? "" : ANSI.reset) + ended + row.text
            cursor.atTheFlowsEnd()
            if lineShown { out += cursor.onward(columns: columns) }
            terminal.write(out)
            change()
            if lineShown { line.draw() }
            return
        }
        if lineShown {
            line.erase()
            cursor.closeRow()
            terminal.write(ended)
            change()
            line.draw()
            return
        }
        change()
        var out = ""
        if !cursor.atRowStart {
            if !cursor.style.isEmpty { out += ANSI.reset }
            out += "\n"
        }
        cursor.closeRow()
        terminal.write(out + ended)
    }

    /// The input line is about to be drawn: the screen moves on to a fresh row below the flow.
    public func showLine() {
        guard !lineShown else { return }
        terminal.write(cursor.onward(columns: columns))
        lineShown = true
    }

    /// The line was entered: it stays on screen, and the reply goes on below it.
    public func lineEntered() {
        let rowEnded = !cursor.atRowStart
        cursor.lineEntered()
        lineShown = false
        if rowEnded { replyRowEnded() }
    }

    /// Told when the reply's unfinished row was ended by a line entered below it, so the
    /// renderer goes on from a row start (the line end it writes for that is dropped).
    public var replyRowEnded: () -> Void = {}

    /// The line is taken off the screen; the screen goes back to the flow's end.
    public func hideLine() {
        guard lineShown else { return }
        line.erase()
        terminal.write(cursor.back())
        lineShown = false
    }

    /// The screen was cleared or changed behind hark's back (after `fg`): the flow goes on
    /// from the row the screen is on.
    public func reset() {
        cursor.reset()
    }
}
