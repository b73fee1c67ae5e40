import Foundation
import HarkCore
import HarkShell

/// A terminal for driving the shipped shell in-process: keys are typed into a pipe (so the
/// shell's event loop polls them as it polls a tty), and what the shell writes, on either
/// stream, is kept as the text a person would read (carriage returns and erased lines
/// applied; a TTY without colours, so replies render as on a terminal with NO_COLOR). Its line
/// input stands in for libedit: a typed line shows as "> line", a prefilled input line as
/// "[input line: …]". The real terminal, libedit included, is covered end to end by the tmux
/// tests (TerminalDriver).
public final class FakeTerminal: Terminal, @unchecked Sendable {
    public let capabilities: TerminalCapabilities
    public var errorCapabilities: TerminalCapabilities { capabilities }
    public let size: TerminalSize
    public let hasKeyboard = true

    /// How far the shell has come, for a test waiting on it.
    public struct Progress: Sendable {
        /// Lines the shell has asked for (it is at the prompt after each).
        public var prompts = 0
        /// Times the shell took keys as they are pressed (it does when it watches a reply).
        public var keyModes = 0
        /// No-op keys (`sync()`) the line input has passed.
        public var syncs = 0
        /// Lines read below a streaming reply (the live line), which are not prompts.
        public var liveReads = 0
        /// Times the shell drew the line again (Ctrl-L, SIGCONT).
        public var redraws = 0
        /// Times the shell stopped itself as a job (Ctrl-Z at the prompt).
        public var suspensions = 0
        /// The terminal went away (its input ended) and the shell was told so.
        public var hungUp = false
        /// The shell's run ended.
        public var ended = false
    }

    private let lock = NSLock()
    private var screen = ScreenText()
    private var progress = Progress()
    private var waiters: [(condition: (Progress) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []
    private var promptShown = ""
    private var answers: [String] = []
    private var mode = KeyMode.user
    private let keys = FakeTerminal.pipe()
    private var keyboard: Int32
    private let signals = FakeTerminal.pipe()
    /// What the user's editor does with a draft: by default saves it unchanged.
    public var editor: @Sendable (String) throws -> String = { $0 }

    /// A window wide enough that no line is cut: a transcript reads what hark says; where it
    /// cuts its lines is checked by the wrapping tests and in tmux.
    public static let wide = TerminalSize(columns: 1_000, rows: 30)

    /// `wraps`: rows wider than `size.columns` go on at the next row, as on a terminal.
    public init(size: TerminalSize = FakeTerminal.wide, wraps: Bool = false) {
        capabilities = TerminalCapabilities(isTTY: true, colors: false)
        self.size = size
        keyboard = keys.write
        if wraps { screen.wrapAt = size.columns }
    }

    deinit {
        for fd in [keys.read, keyboard, signals.read, signals.write] where fd >= 0 { close(fd) }
    }

    private static func pipe() -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        precondition(Glibc.pipe(&fds) == 0)
        _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
        return (fds[0], fds[1])
    }

    // MARK: The test's side

    /// Everything on the screen so far.
    public var text: String { lock.withLock { screen.text } }
    /// The prompt the shell showed last, without colours.
    public var prompt: String { lock.withLock { promptShown } }
    public var current: Progress { lock.withLock { progress } }
    /// Bells rung (a reply that ended in the background).
    public var bells: Int { lock.withLock { screen.bells } }

    /// Types keys (no Enter unless the text has one).
    public func type(_ text: String) {
        let bytes = Array(text.utf8)
        let keyboard = lock.withLock { self.keyboard }
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(keyboard, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            precondition(written > 0, "the fake keyboard's pipe is closed")
            offset += written
        }
    }

    /// The keyboard goes away: the shell reads the end of input.
    public func closeKeyboard() {
        lock.withLock {
            guard keyboard >= 0 else { return }
            close(keyboard)
            keyboard = -1
        }
    }

    public func raise(_ signal: Int32) {
        var byte = UInt8(signal)
        _ = Glibc.write(signals.write, &byte, 1)
    }

    /// Answers for the questions the shell asks at this terminal, typed one by one as each is
    /// asked (a question turns the keys back to the user's mode), as a person would.
    public func answer(_ lines: [String]) {
        lock.withLock { answers += lines }
    }

    /// Waits until the shell's progress satisfies `condition`.
    public func until(_ condition: @escaping @Sendable (Progress) -> Bool) async {
        await withCheckedContinuation { continuation in
            lock.lock()
            if condition(progress) {
                lock.unlock()
                continuation.resume()
            } else {
                waiters.append((condition, continuation))
                lock.unlock()
            }
        }
    }

    private func update(_ change: (inout Progress) -> Void) {
        let ready: [CheckedContinuation<Void, Never>] = lock.withLock {
            change(&progress)
            let ready = waiters.filter { $0.condition(progress) }.map(\.continuation)
            waiters.removeAll { $0.condition(progress) }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    /// The shell's run returned.
    public func shellEnded() { update { $0.ended = true } }

    // MARK: For the line input

    func readingLine(prompt: String) {
        lock.withLock { promptShown = Shell.visibleText(prompt) }
        update { $0.prompts += 1 }
    }

    func synced() { update { $0.syncs += 1 } }
    func readingLiveLine() { update { $0.liveReads += 1 } }
    func redrew() { update { $0.redraws += 1 } }

    // MARK: Terminal

    public var inputDescriptor: Int32 { keys.read }

    public func readInput(limit: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: limit)
        let count = read(keys.read, &bytes, limit)
        guard count > 0 else { return [] }
        bytes.removeSubrange(count...)
        // The user's mode echoes what is typed, as the kernel's line editing does.
        if lock.withLock({ mode }) == .user { write(String(decoding: bytes, as: UTF8.self)) }
        return bytes
    }

    public var signalDescriptor: Int32 { signals.read }
    public func catchSignals(_ signals: [Int32]) {}
    public func hangUp() { update { $0.hungUp = true } }
    public func resumed() {}
    public func suspend() { update { $0.suspensions += 1 } }

    public func takeSignals() -> [Int32] {
        var bytes = [UInt8](repeating: 0, count: 64)
        let count = read(signals.read, &bytes, bytes.count)
        return count > 0 ? bytes[0..<count].map { Int32($0) } : []
    }

    public func write(_ text: String) { lock.withLock { screen.apply(text) } }
    public func writeError(_ text: String) { write(text) }
    public func clearScreen() { write("[screen cleared]\n") }

    public func setKeyMode(_ mode: KeyMode) {
        let answer: String? = lock.withLock {
            self.mode = mode
            return mode != .keys && !answers.isEmpty ? answers.removeFirst() : nil
        }
        if mode == .keys { update { $0.keyModes += 1 } }
        if let answer { type(answer + "\n") }
    }

    public func lineInput(loop: EventLoop) throws -> LineInput { FakeLineInput(terminal: self, loop: loop) }

    public func editFile(_ path: String) throws {
        write("[editor opens on \((path as NSString).lastPathComponent)]\n")
    }

    public func edit(_ text: String) throws -> String {
        write("[editor opens on: \(text)]\n")
        let edited = try editor(text)
        write("[editor closes with: \(edited)]\n")
        return edited
    }

    /// Whether the user has an editor set; without one, `/edit last` edits in the input line.
    public var editorConfigured = true
    public var hasEditor: Bool { editorConfigured }

    public func copy(_ text: String, what: String) throws -> String? {
        write("[clipboard ← \(what)]\n\(text)\n[end of clipboard]\n")
        return nil
    }

    public func page(_ text: String) { write(text) }
}

/// The fake terminal's stand-in for libedit: reads keys through the shell's event loop up to
/// Enter (Ctrl-D on an empty line ends input, Ctrl-U clears the line, NUL passes as a no-op
/// the test can wait for), hands control keys to the shell first (Ctrl-C, Ctrl-Z, Ctrl-L, Tab)
/// and lets it act between keys, as libedit does. The line being typed is not drawn: a line
/// entered shows as "> line".
final class FakeLineInput: LineInput {
    var hooks = LineHooks()
    var flow: OutputFlow?
    private let terminal: FakeTerminal
    private let loop: EventLoop
    private var prefilled = ""
    private var line: [UInt8] = []

    init(terminal: FakeTerminal, loop: EventLoop) {
        self.terminal = terminal
        self.loop = loop
    }

    func readLine() -> LineRead {
        if let flow {
            // The line is not drawn; its row, below the reply, is cleared as libedit's would be.
            let terminal = self.terminal
            flow.line = OutputFlow.LineDrawing(erase: { terminal.write("\r\u{1B}[J") })
            flow.showLine()
            terminal.readingLiveLine()
        } else {
            terminal.readingLine(prompt: hooks.prompt())
        }
        line = Array(prefilled.utf8)
        prefilled = ""
        while true {
            while let key = loop.takeKey() {
                if let decided = hooks.key(Unicode.Scalar(key)) {
                    if let ending = end(decided) { return ending }
                    continue
                }
                switch key {
                case 0x0A, 0x0D:
                    let text = currentLine
                    terminal.write("> \(text)\n")
                    flow?.lineEntered()
                    return .line(text)
                case 0x04 where line.isEmpty:
                    flow?.hideLine()
                    return .endOfFile
                case 0x15: line = []
                case 0x00: terminal.synced()
                case 0x1B:
                    let next = (1..<Self.pasteStart.count).compactMap { _ in loop.nextKey() }
                    if [0x1B] + next == Self.pasteStart { paste() } else { line += [0x1B] + next }
                default: line.append(key)
                }
            }
            var interest = EventLoop.Interest.prompt
            interest.keys = !loop.inputEnded
            interest.timeout = hooks.timeout()
            let wake = loop.wait(interest)
            if wake.hasNews || wake.timedOut, let ending = end(hooks.wake(wake)) { return ending }
        }
    }

    private func end(_ decided: ReadDecision) -> LineRead? {
        switch decided {
        case .keepReading: return nil
        case .interrupt:
            flow?.hideLine()
            return .interrupted
        case .setAside:
            flow?.hideLine()
            return .setAside(currentLine)
        }
    }

    static let pasteStart = Array("\u{1B}[200~".utf8)
    static let pasteEnd = Array("\u{1B}[201~".utf8)

    /// A bracketed paste, as libedit's `hark-paste` takes it: text with newlines goes into the
    /// line as the shell's summary of it.
    private func paste() {
        var pasted: [UInt8] = []
        while let key = loop.nextKey() {
            pasted.append(key)
            if pasted.count >= Self.pasteEnd.count && Array(pasted.suffix(Self.pasteEnd.count)) == Self.pasteEnd {
                pasted.removeLast(Self.pasteEnd.count)
                break
            }
        }
        let text = String(decoding: pasted, as: UTF8.self)
        line += Array((text.contains("\n") ? hooks.multilinePaste(text) : text).utf8)
    }

    var currentLine: String { String(decoding: line, as: UTF8.self) }
    func replaceLine(_ text: String) { line = Array(text.utf8) }

    func prefill(_ text: String) {
        prefilled += text
        terminal.write("[input line: \(text)]\n")
    }

    func setHistory(_ lines: [String]) {}
    func addHistory(_ line: String) {}
    func refresh() {}
    func eraseLine() {}
    func requestListening() { terminal.write("[listening]\n") }

    func redraw(clear: Bool, above: String) {
        if clear { terminal.clearScreen() }
        terminal.write(above)
        flow?.reset()
        terminal.redrew()
    }

    func stopForJobControl() { terminal.suspend() }
}
