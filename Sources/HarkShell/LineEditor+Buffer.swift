import CEditLine
import FoundationEssentials
import Glibc
import HarkCore

/// libedit's line buffer as the shell reads and changes it, and the input history.
extension LineEditor {
    func lineAroundCursor() -> (before: String, after: String) {
        guard let info = hark_el_wline(editLine)?.pointee else { return ("", "") }
        func text(_ start: UnsafePointer<wchar_t>, _ end: UnsafePointer<wchar_t>) -> String {
            var scalars = String.UnicodeScalarView()
            var pointer = start
            while pointer < end {
                if let scalar = Unicode.Scalar(UInt32(bitPattern: pointer.pointee)) { scalars.append(scalar) }
                pointer += 1
            }
            return String(scalars)
        }
        return (text(info.buffer, info.cursor), text(info.cursor, info.lastchar))
    }

    func insert(_ text: String) {
        guard !text.isEmpty else { return }
        var wide = text.unicodeScalars.map { wchar_t(bitPattern: $0.value) }
        wide.append(0)
        hark_el_winsertstr(editLine, wide)
    }

    /// The whole line being typed.
    var currentLine: String {
        let (before, after) = lineAroundCursor()
        return before + after
    }

    /// Puts `text` in place of the line being typed, the cursor at its end (drawn by `refresh`).
    func replaceLine(_ text: String) {
        clearLine()
        insert(text)
    }

    func clearLine() {
        let (before, after) = lineAroundCursor()
        hark_el_cursor(editLine, Int32(after.unicodeScalars.count))
        hark_el_deletestr(editLine, Int32(before.unicodeScalars.count + after.unicodeScalars.count))
    }

    /// Puts text into the next line read (for /prompt NAME or a draft kept after an error).
    func prefill(_ text: String) {
        pendingInput += text.unicodeScalars.filter { $0 != "\n" }.map { wchar_t(bitPattern: $0.value) }
    }

    /// Repaints the prompt and line after something was printed above them.
    func refresh() {
        hark_el_refresh(editLine)
    }

    /// Starts dictation at the next read, as if its key were pressed.
    func requestListening() {
        pendingInput += Self.listenSequence.unicodeScalars.map { wchar_t(bitPattern: $0.value) }
    }

    /// Deletes `count` characters before the cursor.
    func deleteBeforeCursor(_ count: Int) {
        guard count > 0 else { return }
        hark_el_deletestr(editLine, Int32(count))
    }

    // MARK: History

    func setHistory(_ lines: [String]) {
        hark_history_clear(history, &historyEvent)
        for line in lines { hark_history_enter(history, &historyEvent, line) }
    }

    func addHistory(_ line: String) {
        hark_history_enter(history, &historyEvent, line)
    }
}
