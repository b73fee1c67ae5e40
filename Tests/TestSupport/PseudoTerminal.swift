import Foundation

/// A program on a pseudo-terminal of its own, read byte for byte: what it writes to the
/// terminal (escape sequences and all, as a terminal emulator would receive them) and what
/// a terminal would send it (keys, focus reports). For what tmux would hide or translate.
public final class PseudoTerminal: @unchecked Sendable {
    public let pid: pid_t
    private let master: Int32
    private let lock = NSLock()
    private var received: [UInt8] = []
    private var status: Int32?
    private var waiters: [(condition: ([UInt8], Int32?) -> Bool, resume: (Bool) -> Void)] = []

    public enum Failure: Error, CustomStringConvertible {
        case open(String)
        case timeout(String, output: String)
        public var description: String {
            switch self {
            case .open(let why): return "cannot start on a pseudo-terminal: \(why)"
            case .timeout(let what, let output): return "timed out waiting for \(what); output: \(output.debugDescription)"
            }
        }
    }

    /// Starts `arguments` as the leader of a new session whose controlling terminal is the
    /// pty's slave side (stdin, stdout and stderr), `columns` wide.
    public init(_ arguments: [String], environment: [String: String], columns: Int = 100, rows: Int = 30) throws {
        // posix_openpt, unlockpt and ptsname as Linux does them (Swift's Glibc module leaves
        // them out): /dev/ptmx, TIOCSPTLCK to unlock, TIOCGPTN for the slave's number.
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard master >= 0, ioctl(master, 0x4004_5431, &unlock) == 0, ioctl(master, 0x8004_5430, &number) == 0 else {
            throw Failure.open(String(cString: strerror(errno)))
        }
        let slavePath = "/dev/pts/\(number)"
        var size = winsize(ws_row: UInt16(rows), ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master, UInt(TIOCSWINSZ), &size)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // Opened after setsid (POSIX_SPAWN_SETSID comes first in glibc's child), so the slave
        // becomes the new session's controlling terminal.
        posix_spawn_file_actions_addopen(&actions, 0, slavePath, O_RDWR, 0)
        posix_spawn_file_actions_adddup2(&actions, 0, 1)
        posix_spawn_file_actions_adddup2(&actions, 0, 2)
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") {
            typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
            _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        var all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | 0x80 /* POSIX_SPAWN_SETSID */))
        var pid: pid_t = 0
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        let code = posix_spawn(&pid, arguments[0], &actions, &attributes, argv, envp)
        guard code == 0 else {
            close(master)
            throw Failure.open("\(arguments[0]): \(String(cString: strerror(code)))")
        }
        self.pid = pid
        self.master = master
        let reader = Thread { [self] in pump() }
        reader.start()
    }

    deinit {
        if lock.withLock({ status }) == nil { kill(pid, SIGKILL) }
    }

    /// Everything the program wrote so far.
    public var output: [UInt8] { lock.withLock { received } }
    public var text: String { String(decoding: output, as: UTF8.self) }

    /// What a terminal sends: keys, or a focus report (`"\u{1B}[O"`).
    public func send(_ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
            if written <= 0 { return }
            offset += written
        }
    }

    /// Waits until the output holds `needle`; returns the output's length before it, so a
    /// later wait can look only at what came after.
    @discardableResult
    public func waitFor(_ needle: String, after start: Int = 0, seconds: Double = 90) async throws -> Int {
        let pattern = Array(needle.utf8)
        try await wait("\(needle.debugDescription)", seconds: seconds) { bytes, _ in Self.find(pattern, in: bytes, from: start) != nil }
        return Self.find(pattern, in: output, from: start) ?? 0
    }

    public func waitForExit(seconds: Double = 90) async throws -> Int32 {
        try await wait("the exit", seconds: seconds) { $1 != nil }
        return lock.withLock { status } ?? -1
    }

    public static func find(_ pattern: [UInt8], in bytes: [UInt8], from start: Int = 0) -> Int? {
        guard !pattern.isEmpty, bytes.count >= pattern.count, start <= bytes.count - pattern.count else { return nil }
        for index in start...(bytes.count - pattern.count) where bytes[index] == pattern[0] {
            if bytes[index..<(index + pattern.count)].elementsEqual(pattern) { return index }
        }
        return nil
    }

    private func wait(_ what: String, seconds: Double, until condition: @escaping ([UInt8], Int32?) -> Bool) async throws {
        let met: Bool = await withCheckedContinuation { continuation in
            let once = Once(continuation)
            lock.lock()
            let already = condition(received, status)
            if !already { waiters.append((condition, { once.resume($0) })) }
            lock.unlock()
            if already { once.resume(true) } else {
                DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { once.resume(false) }
            }
        }
        if !met { throw Failure.timeout(what, output: text) }
    }

    private func pump() {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(master, &buffer, buffer.count)
            if count > 0 {
                lock.withLock { received += buffer[0..<count] }
                notify()
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                break  // EIO once the program and its children closed the slave
            }
        }
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
        lock.withLock { status = (raw & 0x7F) == 0 ? (raw >> 8) & 0xFF : 128 + (raw & 0x7F) }
        close(master)
        notify()
    }

    private func notify() {
        lock.lock()
        var ready: [(Bool) -> Void] = []
        let now = received, ended = status
        waiters.removeAll { waiter in
            guard waiter.condition(now, ended) else { return false }
            ready.append(waiter.resume)
            return true
        }
        lock.unlock()
        for resume in ready { resume(true) }
    }
}
