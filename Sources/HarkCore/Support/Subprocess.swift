import FoundationEssentials
import Glibc

/// Runs a program with posix_spawn and waits for it with waitpid. Foundation's Process was
/// seen to miss a child's exit on Linux (a zombie left, the caller stuck in sigsuspend), and a
/// shell must not hang on `!ls`; this has no such machinery to go wrong.
public enum Subprocess {
    public struct Result: Sendable {
        public var status: Int32
        public var stdout: Data
        public var stderr: Data
    }

    /// A captured run that did not end within its timeout; the child was killed.
    public struct TimedOut: Error, Sendable {}

    /// A captured run that printed more than its output limit; the child was killed.
    public struct TooMuchOutput: Error, Sendable {}

    /// A descriptor that becomes readable when hark is told to terminate (SIGTERM, SIGQUIT,
    /// SIGHUP): a captured run watches it and, when it fires, kills its child by PID and
    /// throws `HarkError.interrupted` instead of waiting for the child to end. It is never read,
    /// so it stays readable and every later run ends at once too. Set by the shell's signal
    /// handling; -1 when nothing installed one.
    nonisolated(unsafe) public static var terminationDescriptor: Int32 = -1

    public enum Streams: Sendable {
        /// Feed `input` (or nothing) on stdin, capture stdout and stderr.
        case captured(input: Data?)
        /// Inherit the terminal (an editor).
        case inherited
        /// Everything to /dev/null.
        case discarded
    }

    /// `timeout` (seconds) applies to captured runs: past it the child is killed and
    /// `TimedOut` thrown. `outputLimit` too: past that many bytes on stdout the child is killed
    /// and `TooMuchOutput` thrown (stderr past it is read and dropped), so that memory stays
    /// bounded whatever the child prints.
    public static func run(_ arguments: [String], environment: [String: String]? = nil,
                           streams: Streams = .captured(input: nil), timeout: Double? = nil,
                           outputLimit: Int? = nil) throws -> Result {
        precondition(!arguments.isEmpty)
        BrokenPipes.ignore()
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var inPipe: [Int32] = [-1, -1], outPipe: [Int32] = [-1, -1], errPipe: [Int32] = [-1, -1]
        var feed: Data?
        switch streams {
        case .captured(let input):
            guard makePipe(&outPipe), makePipe(&errPipe) else {
                throw HarkError.io("cannot create a pipe: \(String(cString: strerror(errno)))")
            }
            if let input {
                guard makePipe(&inPipe) else { throw HarkError.io("cannot create a pipe") }
                posix_spawn_file_actions_adddup2(&actions, inPipe[0], 0)
                feed = input
            } else {
                posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            }
            posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
            posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        case .inherited:
            break
        case .discarded:
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        // Nothing but stdin, stdout and stderr reaches the child: a socket of a reply streaming
        // in the background must not stay open in an editor or a `!command`.
        closeFrom(3, actions: &actions)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        setDefaultSignals(&attributes)

        let environmentList = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        var pid: pid_t = 0
        let code = withCStrings(arguments) { argv in
            withCStrings(environmentList) { envp in
                posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, envp)
            }
        }
        for fd in [inPipe[0], outPipe[1], errPipe[1]] where fd >= 0 { close(fd) }
        guard code == 0 else {
            for fd in [inPipe[1], outPipe[0], errPipe[0]] where fd >= 0 { close(fd) }
            throw HarkError.io("cannot run \(arguments[0]): \(String(cString: strerror(code)))")
        }
        var stdout = Data()
        var stderr = Data()
        var ending = PumpEnd.drained
        if case .captured = streams {
            let deadline = timeout.map { Self.monotonicSeconds() + $0 }
            ending = pump(input: feed, to: inPipe[1], stdout: outPipe[0], stderr: errPipe[0], into: &stdout, &stderr,
                          deadline: deadline, limit: outputLimit ?? Int.max)
        }
        if case .inherited = streams, !waitUnlessTerminating(pid) { ending = .terminating }
        if ending != .drained { killTree(pid) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { throw HarkError.io("lost track of \(arguments[0]): \(String(cString: strerror(errno)))") }
        }
        switch ending {
        case .timedOut: throw TimedOut()
        case .overflowed: throw TooMuchOutput()
        case .terminating: throw HarkError.interrupted
        case .drained: break
        }
        let exitStatus = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return Result(status: exitStatus, stdout: stdout, stderr: stderr)
    }

    /// Waits for a child that has the terminal (an editor, a pager) to end, or for hark to be
    /// told to terminate (false then). Where the kernel lacks pidfds, waits for the child alone.
    private static func waitUnlessTerminating(_ pid: pid_t) -> Bool {
        guard terminationDescriptor >= 0, let pidfdOpen else { return true }
        let pidfd = pidfdOpen(pid, 0)
        guard pidfd >= 0 else { return true }
        defer { close(pidfd) }
        var fds = [pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: terminationDescriptor, events: Int16(POLLIN), revents: 0)]
        while poll(&fds, 2, -1) < 0 && errno == EINTR {}
        return fds[1].revents == 0
    }

    private typealias PidfdOpen = @convention(c) (pid_t, UInt32) -> Int32

    /// glibc's pidfd_open (2.36), found at run time: the Glibc module does not export it.
    private static let pidfdOpen: PidfdOpen? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pidfd_open") else { return nil }
        return unsafeBitCast(symbol, to: PidfdOpen.self)
    }()

    /// The child starts with default signal handling, whatever hark set for itself.
    private static func setDefaultSignals(_ attributes: inout posix_spawnattr_t, flags: Int32 = 0) {
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGWINCH, SIGCHLD] { sigaddset(&defaults, signal) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | flags))
    }

    /// Starts a program that runs beside hark (a model server) and returns its pid without
    /// waiting: stdin from `input`, stdout and stderr appended to `log`, in a process group of
    /// its own (so a signal to the group reaches what it starts) and without hark's Ctrl-C.
    public static func start(_ arguments: [String], input: Int32, log: String,
                             environment: [String: String]? = nil) throws -> pid_t {
        let output = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard output >= 0 else { throw HarkError.io("cannot write \(log): \(String(cString: strerror(errno)))") }
        defer { close(output) }
        return try spawn(arguments, environment: environment ?? ProcessInfo.processInfo.environment,
                         stdin: input, stdout: output, stderr: output)
    }

    /// Starts a program that runs beside hark (an MCP server) on the given descriptors and
    /// returns its pid without waiting. It gets a process group of its own, so the terminal's
    /// Ctrl-C (meant for hark's reply) does not reach it, and default signal handling.
    public static func spawn(_ arguments: [String], environment: [String: String], directory: String? = nil,
                             stdin: Int32, stdout: Int32, stderr: Int32) throws -> pid_t {
        precondition(!arguments.isEmpty)
        BrokenPipes.ignore()
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_adddup2(&actions, stderr, 2)
        if let directory {
            guard let addChdir else { throw HarkError.io("this system cannot start a program in another folder") }
            _ = directory.withCString { addChdir(&actions, $0) }
        }
        closeFrom(3, actions: &actions)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setpgroup(&attributes, 0)
        setDefaultSignals(&attributes, flags: POSIX_SPAWN_SETPGROUP)
        let environmentList = environment.map { "\($0.key)=\($0.value)" }
        var pid: pid_t = 0
        let code = withCStrings(arguments) { argv in
            withCStrings(environmentList) { envp in posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, envp) }
        }
        guard code == 0 else { throw HarkError.io("cannot run \(arguments[0]): \(String(cString: strerror(code)))") }
        return pid
    }

    /// Starts a program that outlives hark (`hark index` after a one-shot run) without waiting
    /// for it: stdin, stdout and stderr are /dev/null and nothing else is inherited, so no pipe
    /// a caller reads stays open (`$(hark …)` ends when hark does), and it has a process group
    /// of its own, so a Ctrl-C meant for whatever runs next does not reach it.
    @discardableResult
    public static func detach(_ arguments: [String], environment: [String: String]? = nil) throws -> pid_t {
        let null = open("/dev/null", O_RDWR | O_CLOEXEC)
        guard null >= 0 else { throw HarkError.io("cannot open /dev/null: \(String(cString: strerror(errno)))") }
        defer { close(null) }
        let pid = try spawn(arguments, environment: environment ?? ProcessInfo.processInfo.environment,
                            stdin: null, stdout: null, stderr: null)
        // Reaped when it ends, so a long shell that opened pages (`xdg-open`) keeps no zombies;
        // if hark exits first, init reaps it.
        Threads.start(name: "hark-reap") {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        }
        return pid
    }

    private typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

    /// glibc 2.29's posix_spawn_file_actions_addchdir_np, found at run time as addclosefrom is.
    private static let addChdir: AddChdir? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addchdir_np") else {
            return nil
        }
        return unsafeBitCast(symbol, to: AddChdir.self)
    }()

    /// A pipe whose ends are not inherited by other children (posix_spawn's dup2 clears the
    /// flag on the copy the child gets).
    public static func pipe() throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        guard makePipe(&fds) else { throw HarkError.io("cannot create a pipe: \(String(cString: strerror(errno)))") }
        return (fds[0], fds[1])
    }

    enum PumpEnd { case drained, timedOut, overflowed, terminating }

    /// Kills `pid` and every process below it, each by its PID: `sh -c` runs a command as its
    /// child, which would go on (a password manager waiting for a keyring) if only the shell
    /// were killed. Not a process group: the command stays in hark's, so the terminal's
    /// Ctrl-C reaches it and a prompt on the terminal is not stopped as a background job's.
    static func killTree(_ pid: pid_t) {
        var parents: [pid_t: [pid_t]] = [:]
        if let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") {
            for entry in entries {
                guard let child = pid_t(entry), let ppid = parentPID(of: child) else { continue }
                parents[ppid, default: []].append(child)
            }
        }
        var tree: [pid_t] = [pid]
        var index = 0
        while index < tree.count {
            tree += parents[tree[index]] ?? []
            index += 1
        }
        for member in tree { kill(member, SIGKILL) }
    }

    /// The fourth field of /proc/PID/stat, after the command name in parentheses (which may
    /// itself hold spaces and parentheses).
    private static func parentPID(of pid: pid_t) -> pid_t? {
        guard let file = PosixFile(readingAtPath: "/proc/\(pid)/stat") else { return nil }
        let text = String(decoding: file.read(count: 512), as: UTF8.self)
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        return fields.count > 1 ? pid_t(fields[1]) : nil
    }

    static func monotonicSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// Writes stdin and reads stdout and stderr together, so no pipe can fill and deadlock.
    /// Stops early (closing what is open) at the deadline or when hark is told to terminate.
    private static func pump(input: Data?, to inFD: Int32, stdout outFD: Int32, stderr errFD: Int32,
                             into stdout: inout Data, _ stderr: inout Data, deadline: Double?, limit: Int) -> PumpEnd {
        var pending = input.map { [UInt8]($0) } ?? []
        var written = 0
        var inputOpen = inFD >= 0
        if inputOpen {
            _ = fcntl(inFD, F_SETFL, fcntl(inFD, F_GETFL) | O_NONBLOCK)
            if pending.isEmpty {
                close(inFD)
                inputOpen = false
            }
        }
        var open = [outFD, errFD]
        var buffer = [UInt8](repeating: 0, count: 65536)
        let termination = terminationDescriptor
        func closeAll() {
            for fd in open { close(fd) }
            if inputOpen { close(inFD) }
        }
        while !open.isEmpty || inputOpen {
            var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            if inputOpen { fds.append(pollfd(fd: inFD, events: Int16(POLLOUT), revents: 0)) }
            if termination >= 0 { fds.append(pollfd(fd: termination, events: Int16(POLLIN), revents: 0)) }
            var wait: Int32 = -1
            if let deadline {
                let left = deadline - monotonicSeconds()
                if left <= 0 {
                    closeAll()
                    return .timedOut
                }
                wait = Int32(min(left * 1000, Double(Int32.max)).rounded(.up))
            }
            if poll(&fds, nfds_t(fds.count), wait) < 0 {
                if errno == EINTR { continue }
                break
            }
            if termination >= 0, fds.last?.revents ?? 0 != 0 {
                closeAll()
                return .terminating
            }
            for entry in fds where entry.revents != 0 {
                if entry.fd == inFD {
                    let count = pending[written...].withUnsafeBytes { write(inFD, $0.baseAddress, $0.count) }
                    if count > 0 { written += count }
                    if count < 0 && errno != EAGAIN && errno != EINTR || written >= pending.count {
                        close(inFD)
                        inputOpen = false
                        pending = []
                    }
                    continue
                }
                let count = read(entry.fd, &buffer, buffer.count)
                if count > 0 {
                    if entry.fd == outFD {
                        guard stdout.count + count <= limit else {
                            closeAll()
                            return .overflowed
                        }
                        stdout.append(contentsOf: buffer[0..<count])
                    } else if stderr.count < limit {
                        stderr.append(contentsOf: buffer[0..<min(count, limit - stderr.count)])
                    }
                } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                    close(entry.fd)
                    open.removeAll { $0 == entry.fd }
                }
            }
        }
        return .drained
    }

    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    /// glibc 2.34's posix_spawn_file_actions_addclosefrom_np, found at run time (the Glibc
    /// module does not export GNU extensions); older systems fall back to CLOEXEC alone.
    private static let addCloseFrom: CloseFrom? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else {
            return nil
        }
        return unsafeBitCast(symbol, to: CloseFrom.self)
    }()

    private static func closeFrom(_ fd: Int32, actions: inout posix_spawn_file_actions_t) {
        if let addCloseFrom { _ = addCloseFrom(&actions, fd) }
    }

    /// A pipe whose ends are not inherited by children other than the one they are meant for.
    private static func makePipe(_ fds: inout [Int32]) -> Bool {
        guard Glibc.pipe(&fds) == 0 else { return false }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return true
    }

    private static func withCStrings<T>(_ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> T) -> T {
        var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
        pointers.append(nil)
        defer { for pointer in pointers { free(pointer) } }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}

/// Writes to a socket or pipe whose reader has gone must fail with EPIPE, not kill the
/// process: hark runs with SIGPIPE ignored, and anything that writes (HTTP, subprocesses)
/// makes sure of it, also when hark's code runs inside another process (the tests).
public enum BrokenPipes {
    private static let ignored: Void = { signal(SIGPIPE, SIG_IGN) }()

    public static func ignore() { _ = ignored }
}
