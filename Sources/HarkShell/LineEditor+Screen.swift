import CEditLine
import Glibc
import HarkCore

/// What libedit's line looks like on screen, and the shell's ways of redrawing it: in place
/// (dictation), below text printed above it (a streaming reply), after `fg` or Ctrl-L.
extension LineEditor {
    /// Changes the line (or the prompt) from within a bound function and repaints both in
    /// place: back to where the prompt starts (`promptWidth` is the prompt on screen now),
    /// clear, draw anew. `above` is printed on a line of its own first.
    func update(promptWidth: Int, above: String? = nil, _ change: () -> Void = {}) {
        let (before, _) = lineAroundCursor()
        let columns = max(terminal.size.columns, 1)
        let row = (promptWidth + TextWidth.of(before)) / columns
        change()
        screen("\r" + (row > 0 ? "\u{1B}[\(row)A" : "") + "\u{1B}[J" + (above.map { $0 + "\n" } ?? ""))
        hark_el_refresh(editLine)
    }

    /// Ends the line as Enter would, before a bound function returns CC_NEWLINE: the cursor
    /// to the end of the text, then a new line below it.
    func endLine(promptWidth: Int) {
        let (_, after) = lineAroundCursor()
        if !after.isEmpty { update(promptWidth: promptWidth) { hark_el_cursor(editLine, Int32(after.unicodeScalars.count)) } }
        screen("\r\n")
    }

    /// Rows between the first row of the prompt and line on screen and the one the cursor is on.
    func cursorRow() -> Int {
        let (before, _) = lineAroundCursor()
        return (promptWidth + TextWidth.of(before)) / max(terminal.size.columns, 1)
    }

    /// Takes the prompt and the line off the screen; the screen is left where the prompt started.
    func eraseLine() {
        let row = cursorRow()
        screen("\r" + (row > 0 ? "\u{1B}[\(row)A" : "") + "\u{1B}[J")
    }

    /// The terminal's mode is set again (libedit's, for editing), then `above` and the prompt
    /// and the line are drawn anew on the row the screen is on, after clearing it all with `clear`.
    func redraw(clear: Bool, above: String) {
        prepareTerminal()
        if clear {
            screen("\u{1B}[H\u{1B}[2J")
            flow?.reset()
        } else {
            screen("\r\u{1B}[K")
        }
        screen(above)
        hark_el_refresh(editLine)
    }

    /// libedit's editing mode again, whatever changed the terminal meanwhile (the shell that
    /// stopped hark): the user's settings, then libedit's own taken from them.
    func prepareTerminal() {
        hark_el_prep_term(editLine, 0)
        hark_el_prep_term(editLine, 1)
    }

    /// Ctrl-Z at the prompt: hark stops as a job (the terminal back in the user's settings);
    /// after `fg`, SIGCONT redraws the line. The whole process group stops, as the kernel's
    /// Ctrl-Z would stop it (`hark | tee log`).
    func stopForJobControl() {
        hark_el_prep_term(editLine, 0)
        terminal.suspend()
        hark_el_prep_term(editLine, 1)
    }

    // MARK: Completion

    func completeWord() -> UInt8 {
        let (before, _) = lineAroundCursor()
        let result = hooks.complete(before)
        let word = String(Array(before)[min(result.start, before.count)...])
        guard !result.candidates.isEmpty else { return UInt8(CC_REFRESH_BEEP) }
        if result.candidates.count == 1, let only = result.candidates.first {
            replaceWord(word, with: only + (only.hasSuffix("/") ? "" : " "))
            return UInt8(CC_REFRESH)
        }
        let common = result.commonPrefix
        if common.count > word.count {
            replaceWord(word, with: common)
            return UInt8(CC_REFRESH)
        }
        // Ambiguous: list the candidates (above the line while a reply streams), then redraw it.
        if let flow {
            flow.lines(Self.columns(result.candidates, width: terminal.size.columns))
            return UInt8(CC_NORM)
        }
        screen("\n" + Self.columns(result.candidates, width: terminal.size.columns) + "\n")
        return UInt8(CC_REDISPLAY)
    }

    private func replaceWord(_ word: String, with replacement: String) {
        hark_el_deletestr(editLine, Int32(word.unicodeScalars.count))
        insert(replacement)
    }

    static func columns(_ items: [String], width: Int) -> String {
        let cell = (items.map { TextWidth.of($0) }.max() ?? 0) + 2
        let perLine = max(1, width / max(cell, 1))
        var lines: [String] = []
        var index = 0
        while index < items.count {
            let row = items[index..<min(index + perLine, items.count)]
            lines.append(row.map { $0 + String(repeating: " ", count: cell - TextWidth.of($0)) }.joined()
                .trimmingSpaces)
            index += perLine
        }
        return lines.joined(separator: "\n")
    }
}
