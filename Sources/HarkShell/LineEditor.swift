import CEditLine
import FoundationEssentials
import Glibc
import HarkCore

/// The real terminal's line input, libedit wrapped: a prompt, per-session history, Tab
/// completion, bracketed paste, and keys read through the shell's event loop, so the read
/// also wakes for signals and background events. `~/.editrc` is read after
/// hark's own bindings, so users can change them (`bind ^I ed-complete`, `bind -v`).
final class LineEditor: LineInput {
    private let editLine: OpaquePointer
    private let history: OpaquePointer
    private var historyEvent = HistEvent()
    private var promptBuffer: UnsafeMutablePointer<CChar>?
    private var pendingInput: [wchar_t] = []
    private let terminal: Terminal
    private let loop: EventLoop
    private var requestedAction: (name: String, line: String)?
    private var interrupted = false

    var hooks = LineHooks()

    /// A key sequence no keyboard sends, bound to `hark-listen` so /listen can start
    /// dictation by pushing it, whatever keys the user bound.
    static let listenSequence = "\u{1B}[7469~"

    init(terminal: Terminal, loop: EventLoop, program: String = "hark") throws {
        self.terminal = terminal
        self.loop = loop
        if let problem = hark_editline_load() {
            throw HarkError.unavailable(String(cString: problem), hint: "the interactive shell needs it; messages in pipes do not")
        }
        LineEditor.configureLocale()
        editLine = hark_el_init(program, fdopen(STDIN_FILENO, "r"), fdopen(STDOUT_FILENO, "w"), fdopen(STDERR_FILENO, "w"))
        history = hark_history_init()
        hark_history_setsize(history, &historyEvent, 2000)
        hark_history_setunique(history, &historyEvent, 1)
        hark_el_set_clientdata(editLine, Unmanaged.passUnretained(self).toOpaque())
        hark_el_set_editor(editLine, "emacs")
        // hark handles signals itself (Signals.swift); libedit's own handlers re-raise them
        // to the whole process group.
        hark_el_set_signal(editLine, 0)
        hark_el_set_history(editLine, history)
        hark_el_set_prompt(editLine) { editLine in
            guard let editor = LineEditor.from(editLine) else { return nil }
            free(editor.promptBuffer)
            editor.promptBuffer = strdup(editor.hooks.prompt())
            return editor.promptBuffer
        }
        hark_el_set_getc(editLine) { editLine, character in
            guard let editor = LineEditor.from(editLine), let character else { return -1 }
            return editor.readCharacter(into: character)
        }
        hark_el_add_function(editLine, "hark-complete", "complete hark commands, sessions, files") { editLine, _ in
            LineEditor.from(editLine)?.completeWord() ?? UInt8(CC_ERROR)
        }
        hark_el_add_function(editLine, "hark-paste", "read a bracketed paste") { editLine, _ in
            LineEditor.from(editLine)?.readPaste() ?? UInt8(CC_ERROR)
        }
        hark_el_add_function(editLine, "hark-edit", "edit the message in $EDITOR") { editLine, _ in
            LineEditor.from(editLine)?.request("edit") ?? UInt8(CC_ERROR)
        }
        hark_el_add_function(editLine, "hark-listen", "dictate into the line") { editLine, _ in
            guard let editor = LineEditor.from(editLine) else { return UInt8(CC_ERROR) }
            return editor.hooks.listen(editor) == .send ? UInt8(CC_NEWLINE) : UInt8(CC_REFRESH)
        }
        hark_el_bind(editLine, "^I", "hark-complete")
        hark_el_bind(editLine, "\\e[200~", "hark-paste")
        hark_el_bind(editLine, "^X^E", "hark-edit")
        hark_el_bind(editLine, "^G", "hark-listen")
        hark_el_bind(editLine, "\\e[15~", "hark-listen")  // F5
        hark_el_bind(editLine, "^R", "em-inc-search-prev")
        // The user's ~/.editrc (or $EDITRC) comes last so it can override all of the above.
        hark_el_source(editLine, nil)
        // Bound again after it, in whatever mode (emacs or vi) it chose.
        hark_el_bind(editLine, "\\e[7469~", "hark-listen")
    }

    deinit {
        hark_el_end(editLine)
        hark_history_end(history)
        free(promptBuffer)
    }

    static func from(_ editLine: OpaquePointer?) -> LineEditor? {
        guard let editLine, let data = hark_el_get_clientdata(editLine) else { return nil }
        return Unmanaged<LineEditor>.fromOpaque(data).takeUnretainedValue()
    }

    /// libedit needs a UTF-8 locale to edit non-ASCII text.
    static func configureLocale() {
        setlocale(LC_CTYPE, "")
        if let codeset = nl_langinfo(nl_item(CODESET)), String(cString: codeset) != "UTF-8" {
            setlocale(LC_CTYPE, "C.UTF-8")
        }
    }

    // MARK: Reading

    func readLine() -> LineRead {
        requestedAction = nil
        interrupted = false
        terminal.write("\u{1B}[?2004h")  // bracketed paste on
        defer { terminal.write("\u{1B}[?2004l") }
        var count: Int32 = 0
        let result = hark_el_gets(editLine, &count)
        if interrupted { return .interrupted }
        guard let result, count > 0 else { return .endOfFile }
        // `count` bytes, not up to a NUL: a bound function that shortened the line and ends it
        // (dictation's send word) leaves old characters after the end, unterminated.
        var line = String(decoding: UnsafeRawBufferPointer(start: result, count: Int(count)), as: UTF8.self)
        if line.hasSuffix("\n") { line.removeLast() }
        if let action = requestedAction { return .action(action.name, line: action.line) }
        return .line(line)
    }

    /// One character for libedit, waiting for keys and acting on what else wakes the wait.
    private func readCharacter(into character: UnsafeMutablePointer<wchar_t>) -> Int32 {
        if !pendingInput.isEmpty {
            character.pointee = pendingInput.removeFirst()
            return 1
        }
        while !loop.hasKeys && !loop.inputEnded {
            let wake = loop.wait(.prompt)
            if wake.hasNews && hooks.wake(wake) {
                interrupted = true
                errno = EINTR
                return -1
            }
        }
        guard let scalar = readScalar() else { return 0 }
        character.pointee = wchar_t(bitPattern: scalar.value)
        return 1
    }

    /// Reads one UTF-8 encoded character of input; nil at end of input. A malformed sequence
    /// becomes U+FFFD, and the byte that broke it is read again as the start of the next
    /// character (so `0xC3` then a space is "\u{FFFD} ", not one character eating the space).
    private func readScalar() -> Unicode.Scalar? {
        guard let first = loop.nextKey() else { return nil }
        if first < 0x80 { return Unicode.Scalar(first) }
        let length = first < 0x80 ? 1 : first >> 5 == 0b110 ? 2 : first >> 4 == 0b1110 ? 3 : first >> 3 == 0b11110 ? 4 : 1
        var bytes = [first]
        while bytes.count < length, let next = loop.nextKey() {
            guard next & 0xC0 == 0x80 else {
                loop.unread([next])
                break
            }
            bytes.append(next)
        }
        return String(decoding: bytes, as: UTF8.self).unicodeScalars.first
    }

    /// Reads raw characters until the end of a bracketed paste.
    private func readPaste() -> UInt8 {
        var text: [Unicode.Scalar] = []
        let terminator: [Unicode.Scalar] = ["\u{1B}", "[", "2", "0", "1", "~"]
        while let scalar = readScalar() {
            text.append(scalar)
            if scalar == "~" && text.count >= terminator.count && text[(text.count - terminator.count)...].elementsEqual(terminator) {
                text.removeLast(terminator.count)
                break
            }
        }
        var pasted = String(String.UnicodeScalarView(text))
        pasted = pasted.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        // Control characters other than newline and tab would garble the line.
        pasted = String(pasted.unicodeScalars.filter { $0.value >= 0x20 || $0 == "\n" || $0 == "\t" }.map(Character.init))
        guard pasted.contains("\n") else {
            insert(pasted)
            return UInt8(CC_REFRESH)
        }
        let (before, after) = lineAroundCursor()
        var lines = (before + pasted).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let last = lines.removeLast()
        clearLine()
        hooks.multilinePaste(lines)
        insert(last)
        if !after.isEmpty {
            insert(after)
            moveCursorBack(after.count)
        }
        return UInt8(CC_REDISPLAY)
    }

    /// Ends the read with `action`. The line is taken here: unlike libedit's own newline, a
    /// bound function's CC_NEWLINE leaves no terminator, so the buffer el_gets returns still
    /// holds the tail of a longer earlier line.
    private func request(_ action: String) -> UInt8 {
        let (before, after) = lineAroundCursor()
        requestedAction = (action, before + after)
        return UInt8(CC_NEWLINE)
    }

    // MARK: The line buffer

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

    func clearLine() {
        let (before, after) = lineAroundCursor()
        hark_el_cursor(editLine, Int32(after.unicodeScalars.count))
        hark_el_deletestr(editLine, Int32(before.unicodeScalars.count + after.unicodeScalars.count))
    }

    private func moveCursorBack(_ count: Int) {
        hark_el_cursor(editLine, -Int32(count))
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

    /// Changes the line (or the prompt) from within a bound function and repaints both in
    /// place: back to where the prompt starts (`promptWidth` is the prompt on screen now),
    /// clear, draw anew. `above` is printed on a line of its own first.
    func update(promptWidth: Int, above: String? = nil, _ change: () -> Void = {}) {
        let (before, _) = lineAroundCursor()
        let columns = max(terminal.size.columns, 1)
        let row = (promptWidth + TextWidth.of(before)) / columns
        change()
        terminal.write("\r" + (row > 0 ? "\u{1B}[\(row)A" : "") + "\u{1B}[J" + (above.map { $0 + "\n" } ?? ""))
        hark_el_refresh(editLine)
    }

    /// Ends the line as Enter would, before a bound function returns CC_NEWLINE: the cursor
    /// to the end of the text, then a new line below it.
    func endLine(promptWidth: Int) {
        let (_, after) = lineAroundCursor()
        if !after.isEmpty { update(promptWidth: promptWidth) { hark_el_cursor(editLine, Int32(after.unicodeScalars.count)) } }
        terminal.write("\r\n")
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

    // MARK: Completion

    private func completeWord() -> UInt8 {
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
        // Ambiguous: list the candidates under the line, then redraw it.
        terminal.write("\n" + Self.columns(result.candidates, width: terminal.size.columns) + "\n")
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
