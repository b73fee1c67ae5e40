import Foundation

/// A program running beside the test, whose output can be waited on as it appears: a reader
/// thread collects stdout and stderr and wakes whoever waits for a text or for the exit.
public final class ChildProcess: @unchecked Sendable {
    public let pid: pid_t
    private let lock = NSLock()
    private var out: [UInt8] = []
    private var err: [UInt8] = []
    private var status: Int32?
    private var waiters: [(condition: (Snapshot) -> Bool, resume: (Bool) -> Void)] = []

    /// What the program has done so far, as conditions see it.
    struct Snapshot {
        var stdout: String
        var stderr: String
        var status: Int32?
    }

    /// Call with the lock held.
    private var snapshot: Snapshot {
        Snapshot(stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self), status: status)
    }

    public enum Failure: Error, CustomStringConvertible {
        case spawn(String)
        case timeout(String, stdout: String, stderr: String)
        public var description: String {
            switch self {
            case .spawn(let reason): return "cannot start: \(reason)"
            case .timeout(let what, let stdout, let stderr): return "timed out waiting for \(what); stdout: \(stdout)\nstderr: \(stderr)"
            }
        }
    }

    /// With `lifeline`, the program's stdin is a pipe this process holds open until it ends:
    /// a program that stops when its stdin ends goes with the tests however they end.
    public init(_ arguments: [String], environment: [String: String], lifeline: Bool = false) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var outPipe: [Int32] = [-1, -1], errPipe: [Int32] = [-1, -1], inPipe: [Int32] = [-1, -1]
        guard pipe(&outPipe) == 0, pipe(&errPipe) == 0, !lifeline || pipe(&inPipe) == 0 else { throw Failure.spawn("no pipe") }
        for fd in outPipe + errPipe + inPipe where fd >= 0 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        if lifeline {
            posix_spawn_file_actions_adddup2(&actions, inPipe[0], 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        // Nothing else of ours goes along: a socket another test has open (libcurl's are not
        // close-on-exec) would stay open as long as this program runs, and that test's server
        // would not see it close. glibc has the call since 2.34, not in Swift's Glibc module.
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") {
            typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
            _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
        }
        // As a shell starts a program: no signal blocked, none ignored. The test runner's thread
        // may block some (SIGINT among them), and a child inherits that mask.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        var all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        let code = posix_spawn(&pid, arguments[0], &actions, &attributes, argv, envp)
        close(outPipe[1])
        close(errPipe[1])
        if lifeline { close(inPipe[0]) }  // the write end stays open, unused, until this process ends
        guard code == 0 else {
            close(outPipe[0])
            close(errPipe[0])
            throw Failure.spawn("\(arguments[0]): \(String(cString: strerror(code)))")
        }
        self.pid = pid
        let (outRead, errRead) = (outPipe[0], errPipe[0])
        let reader = Thread { [self] in pump(outRead, errRead) }
        reader.start()
    }

    public var stdout: String { lock.withLock { String(decoding: out, as: UTF8.self) } }
    public var stderr: String { lock.withLock { String(decoding: err, as: UTF8.self) } }
    public var exitStatus: Int32? { lock.withLock { status } }

    public func signal(_ number: Int32) { kill(pid, number) }

    /// Waits until stderr holds `text`.
    public func waitFor(stderr text: String, seconds: Double = 120) async throws {
        try await wait("stderr \"\(text)\"", seconds: seconds) { $0.stderr.contains(text) || $0.status != nil }
        guard stderr.contains(text) else { throw Failure.timeout("stderr \"\(text)\" (it exited)", stdout: stdout, stderr: stderr) }
    }

    /// Waits until stdout holds `text`.
    public func waitFor(stdout text: String, seconds: Double = 120) async throws {
        try await wait("stdout \"\(text)\"", seconds: seconds) { $0.stdout.contains(text) || $0.status != nil }
        guard stdout.contains(text) else { throw Failure.timeout("stdout \"\(text)\" (it exited)", stdout: stdout, stderr: stderr) }
    }

    /// Waits until stdout meets `condition` (a record the program keeps as it goes).
    public func waitFor(_ what: String, seconds: Double = 120, stdout condition: @escaping @Sendable (String) -> Bool) async throws {
        try await wait(what, seconds: seconds) { condition($0.stdout) || $0.status != nil }
        guard condition(stdout) else { throw Failure.timeout("\(what) (it exited)", stdout: stdout, stderr: stderr) }
    }

    /// Waits until stderr holds `text` at least `count` times (a log line that recurs).
    public func waitFor(stderr text: String, count: Int, seconds: Double = 120) async throws {
        func occurrences(_ log: String) -> Int { log.components(separatedBy: text).count - 1 }
        try await wait("\(count) × stderr \"\(text)\"", seconds: seconds) { occurrences($0.stderr) >= count || $0.status != nil }
        guard occurrences(stderr) >= count else {
            throw Failure.timeout("\(count) × stderr \"\(text)\" (it exited)", stdout: stdout, stderr: stderr)
        }
    }

    /// Waits for the program to end; its exit status.
    public func waitForExit(seconds: Double = 120) async throws -> Int32 {
        try await wait("the exit", seconds: seconds) { $0.status != nil }
        return exitStatus ?? -1
    }

    private func wait(_ what: String, seconds: Double, until condition: @escaping (Snapshot) -> Bool) async throws {
        let met: Bool = await withCheckedContinuation { continuation in
            let once = Once(continuation)
            lock.lock()
            let already = condition(snapshot)
            if !already { waiters.append((condition, { once.resume($0) })) }
            lock.unlock()
            if already { once.resume(true) } else {
                DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { once.resume(false) }
            }
        }
        if !met { throw Failure.timeout(what, stdout: stdout, stderr: stderr) }
    }

    private func pump(_ outFD: Int32, _ errFD: Int32) {
        var open = [outFD, errFD]
        var buffer = [UInt8](repeating: 0, count: 65536)
        while !open.isEmpty {
            var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            if poll(&fds, nfds_t(fds.count), -1) < 0 { if errno == EINTR { continue } else { break } }
            for entry in fds where entry.revents != 0 {
                let count = read(entry.fd, &buffer, buffer.count)
                if count > 0 {
                    lock.withLock { if entry.fd == outFD { out += buffer[0..<count] } else { err += buffer[0..<count] } }
                    notify()
                } else if count == 0 || errno != EINTR {
                    close(entry.fd)
                    open.removeAll { $0 == entry.fd }
                }
            }
        }
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
        lock.withLock { status = (raw & 0x7F) == 0 ? (raw >> 8) & 0xFF : 128 + (raw & 0x7F) }
        notify()
    }

    private func notify() {
        lock.lock()
        var ready: [(Bool) -> Void] = []
        let now = snapshot
        waiters.removeAll { waiter in
            guard waiter.condition(now) else { return false }
            ready.append(waiter.resume)
            return true
        }
        lock.unlock()
        for resume in ready { resume(true) }
    }
}

/// Resumes a continuation once, whichever of its callers comes first.
final class Once<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, Never>?

    init(_ continuation: CheckedContinuation<T, Never>) {
        self.continuation = continuation
    }

    func resume(_ value: T) {
        let pending: CheckedContinuation<T, Never>? = lock.withLock {
            defer { continuation = nil }
            return continuation
        }
        pending?.resume(returning: value)
    }
}
