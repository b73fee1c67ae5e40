import FoundationEssentials
import Glibc
import HarkCore

/// Signals become bytes on a pipe (the self-pipe trick), so the shell's poll loop handles
/// them in order with keystrokes and reply events, outside any signal handler.
public enum Signals {
    nonisolated(unsafe) static var writeFD: Int32 = -1
    nonisolated(unsafe) public private(set) static var readFD: Int32 = -1
    /// Written once a signal that ends hark arrives (never read: it stays readable), so that a
    /// `cmd:` secret being waited on stops at once (see Subprocess.terminationDescriptor).
    nonisolated(unsafe) static var terminationWriteFD: Int32 = -1
    /// The signal that is ending hark (SIGTERM, SIGQUIT, SIGHUP), 0 while none has come.
    nonisolated(unsafe) public private(set) static var terminating: Int32 = 0

    /// SIGQUIT is always handled as SIGTERM is: by default it dumps core and the Swift runtime
    /// prints a crash report with registers and memory, which can hold secret bytes. It
    /// reaches the loops as SIGTERM, so they stop the reply and quit the same way.
    public static func install(_ signals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGWINCH]) {
        if readFD < 0 {
            var fds: [Int32] = [0, 0]
            var ending: [Int32] = [0, 0]
            guard pipe(&fds) == 0, pipe(&ending) == 0 else { return }
            for fd in fds + ending {
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            }
            readFD = fds[0]
            writeFD = fds[1]
            terminationWriteFD = ending[1]
            Subprocess.terminationDescriptor = ending[0]
            startWatchdog(trigger: ending[0])
        }
        let handled = Set(signals + (signals.contains(SIGTERM) ? [SIGQUIT] : []))
        // A parent may have started hark with these blocked (a supervisor, a test runner's
        // worker thread): they would wait, pending, until hark ended by itself.
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        for signal in handled { sigaddset(&unblocked, signal) }
        sigprocmask(SIG_UNBLOCK, &unblocked, nil)
        for signal in handled {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                let saved = errno
                if number == SIGTERM || number == SIGQUIT || number == SIGHUP {
                    if Signals.terminating == 0 { Signals.terminating = number }
                    var one: UInt8 = 1
                    _ = Glibc.write(Signals.terminationWriteFD, &one, 1)
                }
                var byte = UInt8(truncatingIfNeeded: number == SIGQUIT ? SIGTERM : number)
                _ = Glibc.write(Signals.writeFD, &byte, 1)
                errno = saved
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = 0  // no SA_RESTART: a blocking read returns EINTR
            sigaction(signal, &action, nil)
        }
        // A reader that goes away (hark | head) must not kill us mid-write.
        Glibc.signal(SIGPIPE, SIG_IGN)
    }

    /// Ends hark if it is still running `EndingWatchdog.grace` seconds after it was told to end:
    /// the terminal back in the mode hark found it in, the modes the shell turns on turned
    /// off, one line, and the status the signal gives. An unfinished reply keeps what was
    /// committed, and the next start recovers it.
    private static func startWatchdog(trigger: Int32) {
        var found = termios()
        let terminal = isatty(STDIN_FILENO) == 1 && tcgetattr(STDIN_FILENO, &found) == 0 ? found : nil
        EndingWatchdog.start(trigger: trigger) {
            if var settings = terminal { tcsetattr(STDIN_FILENO, TCSANOW, &settings) }
            if isatty(STDOUT_FILENO) == 1 { say("\u{1B}[0m\u{1B}[?2004l\u{1B}[?1004l\u{1B}[?25h\r\n", to: STDOUT_FILENO) }
            say("hark: still not ended \(Int(EndingWatchdog.grace)) s after being told to; "
                + "something was stuck, so hark ended without waiting for it\n", to: STDERR_FILENO)
            _exit(exitStatus(143))
        }
    }

    private static func say(_ text: String, to fd: Int32) {
        var text = text
        text.withUTF8 { bytes in _ = Glibc.write(fd, bytes.baseAddress, bytes.count) }
    }

    /// Until `install` takes over (and in subcommands, which never install): SIGQUIT ends hark
    /// as SIGTERM does, without a core dump or the Swift runtime's crash report.
    public static func quitEndsLikeTerm() {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in
            Glibc.signal(SIGTERM, SIG_DFL)
            Glibc.raise(SIGTERM)
        }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        sigaction(SIGQUIT, &action, nil)
    }

    /// The terminal went away without a signal (its input ended or failed): hark ends as a
    /// SIGHUP ends it, with the same status, and a `cmd:` secret being waited on stops.
    public static func hangUp() {
        guard terminationWriteFD >= 0 else { return }
        if terminating == 0 { terminating = SIGHUP }
        var one: UInt8 = 1
        _ = Glibc.write(terminationWriteFD, &one, 1)
    }

    /// The exit status for a run that a signal ended: 128 + its number (SIGTERM 143, SIGHUP
    /// 129, SIGQUIT 131), as shells report; `status` otherwise.
    public static func exitStatus(_ status: Int32) -> Int32 {
        terminating != 0 ? 128 + terminating : status
    }

    /// Signals received since the last call, in order.
    public static func drain() -> [Int32] {
        guard readFD >= 0 else { return [] }
        var received: [Int32] = []
        var buffer = [UInt8](repeating: 0, count: 64)
        while true {
            let count = read(readFD, &buffer, buffer.count)
            if count <= 0 { break }
            received += buffer[0..<count].map { Int32($0) }
        }
        return received
    }
}

/// Events for the shell thread from other threads (reply events, background replies ending),
/// with a pipe to wake its poll.
public final class Inbox<Item: Sendable>: @unchecked Sendable {
    private let lock = Lock()
    private var items: [Item] = []
    public let readFD: Int32
    private let writeFD: Int32

    public init() {
        var fds: [Int32] = [0, 0]
        _ = pipe(&fds)
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        readFD = fds[0]
        writeFD = fds[1]
    }

    deinit {
        close(readFD)
        close(writeFD)
    }

    public func post(_ item: Item) {
        lock.withLock { items.append(item) }
        var byte: UInt8 = 1
        _ = write(writeFD, &byte, 1)
    }

    public func take() -> [Item] {
        var buffer = [UInt8](repeating: 0, count: 256)
        while read(readFD, &buffer, buffer.count) > 0 {}
        return lock.withLock {
            defer { items.removeAll() }
            return items
        }
    }

    public var isEmpty: Bool { lock.withLock { items.isEmpty } }
}
