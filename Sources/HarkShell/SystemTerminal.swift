import FoundationEssentials
import Glibc
import HarkCore

/// The real terminal: keys from stdin, text to stdout, errors to stderr, signals through the
/// self-pipe of `Signals`, libedit for lines, $EDITOR and $PAGER attached to the tty. The only
/// place hark writes to the screen.
public final class SystemTerminal: Terminal, @unchecked Sendable {
    public let capabilities: TerminalCapabilities
    public let errorCapabilities: TerminalCapabilities
    public let hasKeyboard: Bool
    private let modes = TerminalModes()
    private let focusReporting = FocusReporting()

    /// `sanitizing`: `--sanitize`, for a script that prints what hark writes to a terminal of
    /// its own: control sequences are shown inert in a pipe too.
    public init(sanitizing: Bool = false) {
        capabilities = .detect(sanitizing: sanitizing)
        errorCapabilities = .detect(fd: STDERR_FILENO, sanitizing: sanitizing)
        hasKeyboard = isatty(STDIN_FILENO) == 1
    }

    public var size: TerminalSize {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0 else { return TerminalSize(columns: 80, rows: 24) }
        return TerminalSize(columns: size.ws_col > 0 ? Int(size.ws_col) : 80, rows: size.ws_row > 0 ? Int(size.ws_row) : 24)
    }

    // MARK: In

    public var inputDescriptor: Int32 { STDIN_FILENO }

    public func readInput(limit: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: limit)
        while true {
            let count = read(STDIN_FILENO, &bytes, limit)
            if count > 0 {
                bytes.removeSubrange(count...)
                return bytes
            }
            if count == 0 {
                // A terminal reads nothing when hung up, and in its canonical mode (a question
                // asked in the user's mode) also for a Ctrl-D: a key, the terminal still there.
                // Outside that mode a Ctrl-D arrives as a byte, so nothing read is the end.
                var settings = termios()
                let canonical = tcgetattr(STDIN_FILENO, &settings) == 0 && settings.c_lflag & tcflag_t(ICANON) != 0
                return hasKeyboard && canonical && !Self.isHungUp(STDIN_FILENO) ? [0x04] : []
            }
            if errno == EINTR { continue }
            guard errno == EAGAIN else { return [] }  // EIO: the terminal is gone
            // Someone made the descriptor non-blocking: wait for input rather than spin.
            var entry = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
            _ = poll(&entry, 1, -1)
        }
    }

    /// Whether a terminal's other side has closed (POLLHUP), without waiting.
    static func isHungUp(_ fd: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) > 0 && entry.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0
    }

    public var signalDescriptor: Int32 { Signals.readFD }
    public func catchSignals(_ signals: [Int32]) { Signals.install(signals) }
    public func takeSignals() -> [Int32] { Signals.drain() }
    public func hangUp() { Signals.hangUp() }

    public func suspend() { kill(0, SIGTSTP) }

    public func resumed() {
        guard hasKeyboard else { return }
        modes.reapply()
    }

    // MARK: Out

    public func write(_ text: String) { RawOutput.write(text, to: STDOUT_FILENO) }
    public func writeError(_ text: String) { RawOutput.write(text, to: STDERR_FILENO) }
    public func clearScreen() { write("\u{1B}[H\u{1B}[2J") }

    public func setKeyMode(_ mode: KeyMode) {
        guard hasKeyboard else { return }
        modes.set(mode)
        if capabilities.isTTY { focusReporting.keyMode(mode, write: write) }
    }

    public func reportFocus(_ on: Bool) {
        guard hasKeyboard, capabilities.isTTY else { return }
        focusReporting.want(on, keys: on, write: write)
    }

    // MARK: What only a terminal does

    public func lineInput(loop: EventLoop) throws -> LineInput {
        try LineEditor(terminal: self, loop: loop)
    }

    public func editFile(_ path: String) throws {
        setKeyMode(.user)
        try ExternalEditor.open(path: path)
    }

    public func edit(_ text: String) throws -> String {
        setKeyMode(.user)
        return try ExternalEditor.edit(text)
    }

    /// `--no-pager`: long text is printed, never paged.
    public var pagingOff = false
    /// The config's `pager` (nil when it sets none), read only when long text is to be paged.
    public var configuredPager: () -> String? = { nil }

    public func page(_ text: String) {
        let command = pagingOff ? nil : Pager.command(configured: configuredPager(), environment: ProcessInfo.processInfo.environment)
        Pager.show(text, on: self, command: command)
    }

    public var hasEditor: Bool { ExternalEditor.isConfigured() }

    public func copy(_ text: String, what: String) throws -> String? {
        try Clipboard.copy(text, what: what, terminal: capabilities.isTTY ? { self.write($0) } : nil)
    }
}

/// The terminal's modes, from the user's settings captured the first time they change.
private final class TerminalModes {
    private var original: termios?
    private var captured = false
    private var current: KeyMode?

    /// Sets the last mode again (the shell that stopped hark set its own meanwhile).
    func reapply() {
        if let current { set(current) }
    }

    func set(_ mode: KeyMode) {
        current = mode
        if !captured {
            captured = true
            var settings = termios()
            if tcgetattr(STDIN_FILENO, &settings) == 0 { original = settings }
        }
        guard var settings = original else { return }
        switch mode {
        case .user:
            break
        case .hidden:
            settings.c_lflag &= ~tcflag_t(ECHO)
        case .keys:
            settings.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG | IEXTEN)
            withUnsafeMutableBytes(of: &settings.c_cc) { cc in
                cc[Int(VMIN)] = 1
                cc[Int(VTIME)] = 0
            }
        }
        tcsetattr(STDIN_FILENO, TCSANOW, &settings)
    }
}

/// Writes to a file descriptor without Foundation's buffering surprises; EINTR and short
/// writes are retried, EPIPE (the reader went away) is reported.
private enum RawOutput {
    @discardableResult
    static func write(_ text: String, to fd: Int32) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR || errno == EAGAIN { continue }
                    return false
                }
                offset += written
            }
            return true
        }
    }
}
