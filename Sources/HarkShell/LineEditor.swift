import CEditLine
import FoundationEssentials
import Glibc
import HarkCore

/// The real terminal's line input, libedit wrapped: a prompt, per-session history, Tab
/// completion, bracketed paste, and keys read through the shell's event loop, so the read
/// also wakes for signals and background events. `~/.editrc` is read after
/// hark's own bindings, so users can change them (`bind ^I ed-complete`, `bind -v`).
final class LineEditor: LineInput {
    let editLine: OpaquePointer
    let history: OpaquePointer
    var historyEvent = HistEvent()
    private var promptBuffer: UnsafeMutablePointer<CChar>?
    var pendingInput: [wchar_t] = []
    let terminal: Terminal
    private let loop: EventLoop
    private var requestedAction: (name: String, line: String)?
    /// Why the read is ending early, when it is.
    private var decision: ReadDecision?
    private var setAsideLine: String?
    /// The terminal libedit draws on: stdout, or the terminal of stdin when stdout is a pipe
    /// (`hark | tee log`), so the line is still edited as on a terminal, and Ctrl-D quits.
    private let screenFD: Int32
    /// Columns the prompt on screen takes.
    private(set) var promptWidth = 0

    var hooks = LineHooks()
    var flow: OutputFlow?

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
        screenFD = Self.screenDescriptor()
        editLine = hark_el_init(program, fdopen(STDIN_FILENO, "r"), fdopen(screenFD, "w"), fdopen(STDERR_FILENO, "w"))
        history = hark_history_init()
        hark_history_setsize(history, &historyEvent, 2000)
        hark_history_setunique(history, &historyEvent, 1)
        hark_el_set_clientdata(editLine, Unmanaged.passUnretained(self).toOpaque())
        hark_el_set_editor(editLine, "emacs")
        // hark handles signals itself (Signals.swift); libedit's own handlers re-raise them
        // to the whole process group. Ctrl-C, Ctrl-Z and Ctrl-\ come as keys (hooks.key), so
        // they mean the same while a reply streams above the line as at the prompt.
        hark_el_set_signal(editLine, 0)
        hark_el_setty_edit_off(editLine, "isig")
        hark_el_set_history(editLine, history)
        hark_el_set_prompt(editLine) { editLine in
            guard let editor = LineEditor.from(editLine) else { return nil }
            free(editor.promptBuffer)
            let prompt = editor.hooks.prompt()
            editor.promptWidth = TextWidth.of(Shell.visibleText(prompt))
            editor.promptBuffer = strdup(prompt)
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
        if screenFD != STDOUT_FILENO { close(screenFD) }
    }

    /// stdout when it is a terminal, else stdin's terminal opened for writing (stdout itself
    /// when that cannot be opened: libedit then reads lines without editing them).
    private static func screenDescriptor() -> Int32 {
        guard isatty(STDOUT_FILENO) != 1, let name = ttyname(STDIN_FILENO) else { return STDOUT_FILENO }
        let fd = open(name, O_WRONLY | O_NOCTTY | O_CLOEXEC)
        return fd >= 0 ? fd : STDOUT_FILENO
    }

    /// Writes to the terminal libedit draws on.
    func screen(_ text: String) {
        guard screenFD != STDOUT_FILENO else { return terminal.write(text) }
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(screenFD, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 && (errno == EINTR || errno == EAGAIN) { continue }
                guard written > 0 else { return }
                offset += written
            }
        }
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
        decision = nil
        setAsideLine = nil
        flow?.line = OutputFlow.LineDrawing(erase: { [unowned self] in eraseLine() }, draw: { [unowned self] in refresh() },
                                            cursorRow: { [unowned self] in cursorRow() })
        flow?.showLine()
        screen("\u{1B}[?2004h")  // bracketed paste on
        defer { screen("\u{1B}[?2004l") }
        var count: Int32 = 0
        let result = hark_el_gets(editLine, &count)
        // libedit leaves its read in its "execute" mode, the kernel's line editing with echo:
        // a key typed before the next read would be echoed by the kernel, and a Ctrl-D turned
        // into an end-of-line mark that reads as NUL (lost). Keys go on being hark's at once.
        terminal.setKeyMode(.keys)
        switch decision {
        case .interrupt:
            flow?.hideLine()
            return .interrupted
        case .setAside:
            flow?.hideLine()
            return .setAside(setAsideLine ?? "")
        case .keepReading, nil:
            break
        }
        guard let result, count > 0 else {
            // libedit sets its mode before the first key and gives up when the terminal has
            // gone meanwhile: that end of input is the event loop's to act on (a hangup).
            var settings = termios()
            if tcgetattr(STDIN_FILENO, &settings) != 0 { loop.terminalGone() }
            flow?.hideLine()
            return .endOfFile
        }
        // `count` bytes, not up to a NUL: a bound function that shortened the line and ends it
        // (dictation's send word) leaves old characters after the end, unterminated.
        var line = String(decoding: UnsafeRawBufferPointer(start: result, count: Int(count)), as: UTF8.self)
        if let action = requestedAction {
            // A bound function's newline leaves the screen on the line: on to the next row,
            // as Enter does, before the editor opens.
            screen("\r\n")
            flow?.lineEntered()
            return .action(action.name, line: action.line)
        }
        flow?.lineEntered()
        // A line the end of input cut short was never entered: it is not sent.
        guard line.hasSuffix("\n") || !loop.inputEnded else { return .endOfFile }
        if line.hasSuffix("\n") { line.removeLast() }
        return .line(line)
    }

    /// One character for libedit, waiting for keys and acting on what else wakes the wait
    /// and on the control keys the shell takes.
    private func readCharacter(into character: UnsafeMutablePointer<wchar_t>) -> Int32 {
        if !pendingInput.isEmpty {
            character.pointee = pendingInput.removeFirst()
            return 1
        }
        while true {
            // Once input has ended no key comes, but the shell still decides (a hangup ends
            // the read; below a reply, its end is waited for): the wait then takes no keys.
            while !loop.hasKeys {
                var interest = EventLoop.Interest.prompt
                interest.keys = !loop.inputEnded
                interest.timeout = hooks.timeout()
                let wake = loop.wait(interest)
                if wake.signals.contains(SIGCONT) { prepareTerminal() }
                guard wake.hasNews || wake.timedOut else { continue }
                if let ending = end(hooks.wake(wake)) { return ending }
            }
            guard let scalar = readScalar() else { return 0 }
            if let decided = hooks.key(scalar) {
                if let ending = end(decided) { return ending }
                continue
            }
            character.pointee = wchar_t(bitPattern: scalar.value)
            return 1
        }
    }

    /// Ends the read for `decision` (nil to go on): -1 with EINTR makes el_gets return.
    private func end(_ decided: ReadDecision) -> Int32? {
        guard decided != .keepReading else { return nil }
        if decided == .setAside {
            let (before, after) = lineAroundCursor()
            setAsideLine = before + after
        }
        decision = decided
        errno = EINTR
        return -1
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

    /// Reads raw characters until the end of a bracketed paste. Text with line ends goes
    /// to the shell, which puts a summary of it into the line.
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
        insert(pasted.contains("\n") ? hooks.multilinePaste(pasted) : pasted)
        return UInt8(CC_REFRESH)
    }

    /// Ends the read with `action`. The line is taken here: unlike libedit's own newline, a
    /// bound function's CC_NEWLINE leaves no terminator, so the buffer el_gets returns still
    /// holds the tail of a longer earlier line.
    private func request(_ action: String) -> UInt8 {
        let (before, after) = lineAroundCursor()
        requestedAction = (action, before + after)
        return UInt8(CC_NEWLINE)
    }
}
