import Foundation
import HarkCore

/// A program on a pseudo-terminal this process holds the other side of, for what tmux cannot
/// do: close the terminal without a signal, give stdin a terminal and stdout a pipe, and
/// measure the CPU time the program spends after an event (wait4's rusage, the program being
/// this process's child). What the program writes, to the terminal and to its stdout pipe, is
/// kept as it arrives, so a test waits for text instead of sleeping.
public final class PseudoTerminalProcess: @unchecked Sendable {
    public let pid: pid_t
    private let lock = NSLock()
    private var output: [UInt8] = []
    private var waiters: [(text: String, resume: (Bool) -> Void)] = []
    private var closeRequested = false
    /// Waited for: its PID may be another process's now.
    private var reaped = false
    private let wake: (read: Int32, write: Int32)

    public enum Failure: Error, CustomStringConvertible {
        case spawn(String)
        case timeout(String, output: String)
        public var description: String {
            switch self {
            case .spawn(let why): return "cannot start: \(why)"
            case .timeout(let what, let output): return "timed out waiting for \(what); output:\n\(output)"
            }
        }
    }

    /// How the program's terminal is set up.
    public struct Setup: Sendable {
        /// Its stdout (and stderr) is a pipe this process reads, as in `hark 2>&1 | tee log`.
        public var stdoutIsPipe = false
        /// The terminal is the program's controlling terminal (it gets SIGHUP when the
        /// terminal closes); false: closing it only ends its input.
        public var controlling = true
        public var columns: UInt16 = 100
        public var rows: UInt16 = 30

        public init(stdoutIsPipe: Bool = false, controlling: Bool = true) {
            self.stdoutIsPipe = stdoutIsPipe
            self.controlling = controlling
        }
    }

    /// TIOCSPTLCK, TIOCGPTN (asm-generic/ioctls.h) and glibc's POSIX_SPAWN_SETSID (spawn.h),
    /// which Swift's Glibc module leaves out.
    static let unlockRequest: UInt = 0x4004_5431
    static let numberRequest: UInt = 0x8004_5430
    static let newSession: Int32 = 0x80

    public init(_ arguments: [String], environment: [String: String], setup: Setup) throws {
        // posix_openpt, unlockpt and ptsname are not in Swift's Glibc module: the same by hand
        // (Linux's devpts needs no grantpt).
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        var unlocked: Int32 = 0
        var number: UInt32 = 0
        guard master >= 0, ioctl(master, Self.unlockRequest, &unlocked) == 0, ioctl(master, Self.numberRequest, &number) == 0 else {
            throw Failure.spawn("no pseudo-terminal: \(String(cString: strerror(errno)))")
        }
        let slave = "/dev/pts/\(number)"
        var size = winsize(ws_row: setup.rows, ws_col: setup.columns, ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master, UInt(TIOCSWINSZ), &size)
        var outPipe: [Int32] = [-1, -1]
        var wakePipe: [Int32] = [-1, -1]
        guard pipe(&wakePipe) == 0, !setup.stdoutIsPipe || pipe(&outPipe) == 0 else { throw Failure.spawn("no pipe") }
        for fd in outPipe + wakePipe where fd >= 0 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        wake = (wakePipe[0], wakePipe[1])

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // Opened in the child after setsid: without O_NOCTTY it becomes the session's terminal.
        posix_spawn_file_actions_addopen(&actions, 0, slave, O_RDWR | (setup.controlling ? 0 : O_NOCTTY), 0)
        if setup.stdoutIsPipe {
            posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        } else {
            posix_spawn_file_actions_adddup2(&actions, 0, 1)
        }
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var attributes = posix_spawnattr_t()
        ChildProcess.startAsAShellDoes(&attributes, flags: Self.newSession)
        defer { posix_spawnattr_destroy(&attributes) }
        var pid: pid_t = 0
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        let code = posix_spawn(&pid, arguments[0], &actions, &attributes, argv, envp)
        if setup.stdoutIsPipe { close(outPipe[1]) }
        guard code == 0 else {
            close(master)
            throw Failure.spawn("\(arguments[0]): \(String(cString: strerror(code)))")
        }
        self.pid = pid
        let outRead = setup.stdoutIsPipe ? outPipe[0] : -1
        let reader = Thread { [self] in pump(master: master, pipe: outRead) }
        reader.start()
    }

    deinit { close(wake.write) }

    /// Kills the program if it still runs and reaps it: a test calls this when it ends,
    /// however it ends (the reader thread holds this object until the program is gone).
    public func end() {
        guard !lock.withLock({ reaped }) else { return }
        kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }

    /// Everything the program wrote so far, terminal and pipe together, as text.
    public var text: String { lock.withLock { String(decoding: output, as: UTF8.self) } }

    public var isRunning: Bool { ProcessExit.isRunning(pid) }

    /// Types keys at the terminal (no Enter unless the text holds "\r").
    public func type(_ text: String) {
        lock.withLock {
            guard !closeRequested else { return }
            _ = text.utf8CString.withUnsafeBufferPointer { write(masterFD, $0.baseAddress, $0.count - 1) }
        }
    }

    /// Waits until the program has written `text`.
    public func waitFor(_ text: String, seconds: Double = 90) async throws {
        let met: Bool = await withCheckedContinuation { continuation in
            let once = Once(continuation)
            lock.lock()
            let already = String(decoding: output, as: UTF8.self).contains(text)
            if !already { waiters.append((text, { once.resume($0) })) }
            lock.unlock()
            if already { once.resume(true) } else {
                DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { once.resume(false) }
            }
        }
        if !met { throw Failure.timeout("\"\(text)\"", output: self.text) }
    }

    /// The terminal goes away: its other side is closed, as when a terminal window is closed.
    public func closeTerminal() {
        lock.withLock { closeRequested = true }
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
    }

    /// CPU seconds the program has used so far (user and system), from /proc.
    public func cpuSeconds() -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the name: state is field 3, utime 14 and stime 15 (1-based, name counted).
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Waits up to `seconds` for the program to end, then reaps it: its exit status (128 + the
    /// signal's number when a signal ended it) and the CPU seconds it used in all. Nil when it
    /// still runs after `seconds`: the bound is the failure, not a measure.
    public func exit(within seconds: Double) async -> (status: Int32, cpuSeconds: Double)? {
        let pid = self.pid
        guard (try? await offThePool({ ProcessExit.wait(for: pid, seconds: seconds) })) == true else { return nil }
        var raw: Int32 = 0
        var usage = rusage()
        while wait4(pid, &raw, 0, &usage) < 0 && errno == EINTR {}
        lock.withLock { reaped = true }
        let status = (raw & 0x7F) == 0 ? (raw >> 8) & 0xFF : 128 + (raw & 0x7F)
        func inSeconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return (status, inSeconds(usage.ru_utime) + inSeconds(usage.ru_stime))
    }

    private var masterFD: Int32 = -1

    /// Reads the terminal and the pipe as they fill; closes the terminal when asked.
    private func pump(master: Int32, pipe: Int32) {
        lock.withLock { masterFD = master }
        var open = [master] + (pipe >= 0 ? [pipe] : [])
        var buffer = [UInt8](repeating: 0, count: 65536)
        while !open.isEmpty {
            var fds = ([wake.read] + open).map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            if poll(&fds, nfds_t(fds.count), -1) < 0 { if errno == EINTR { continue } else { break } }
            if fds[0].revents != 0 {
                var drained = [UInt8](repeating: 0, count: 16)
                _ = read(wake.read, &drained, drained.count)
                lock.withLock {
                    if masterFD >= 0 { close(masterFD) }
                    masterFD = -1
                }
                open.removeAll { $0 == master }
                continue
            }
            for entry in fds.dropFirst() where entry.revents != 0 {
                let count = read(entry.fd, &buffer, buffer.count)
                if count > 0 {
                    lock.withLock { output += buffer[0..<count] }
                    notify()
                } else if count == 0 || errno != EINTR {
                    // The program's side closed (EIO on a terminal): nothing more comes from it.
                    if entry.fd == master {
                        lock.withLock { if masterFD >= 0 { close(masterFD) }; masterFD = -1 }
                    } else {
                        close(entry.fd)
                    }
                    open.removeAll { $0 == entry.fd }
                }
            }
        }
        close(wake.read)
    }

    private func notify() {
        lock.lock()
        let now = String(decoding: output, as: UTF8.self)
        var ready: [(Bool) -> Void] = []
        waiters.removeAll { waiter in
            guard now.contains(waiter.text) else { return false }
            ready.append(waiter.resume)
            return true
        }
        lock.unlock()
        for resume in ready { resume(true) }
    }
}
