import FoundationEssentials
import Glibc

/// Who is still writing a reply: the writer holds a lock on one byte of `history.db-writers`
/// (the byte at the message's id) for as long as the reply streams.
///
/// Why a lock and not a PID (with boot id and start time): a PID means nothing outside its
/// PID namespace. Two containers sharing the data folder each see their own PIDs (both harks
/// may well be PID 1), so a reply still streaming in one looked dead to the other and was
/// folded as `partial`. A file lock is the kernel's, seen the same from every namespace on the
/// machine, and it goes when its holder goes, `kill -9` included, so no PID can be reused
/// into a false "alive" either. Locks are open-file-description locks (F_OFD_SETLK): unlike
/// classic POSIX locks they are not dropped when any other descriptor of the file is closed,
/// and they conflict between two opens in one process, so a process sees its own replies as
/// alive too.
final class WriterLocks: @unchecked Sendable {
    /// Linux's values on every architecture (asm-generic/fcntl.h); the Glibc module does not
    /// export these GNU names.
    static let getLock: Int32 = 36
    static let setLock: Int32 = 37
    static let setLockWaiting: Int32 = 38

    let path: String
    private let lock = Lock()
    private var descriptor: Int32 = -1

    init(databasePath: String) {
        path = databasePath + "-writers"
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Takes the lock of `messageID`; false when the lock file cannot be opened or locked (the
    /// reply is then recorded with its PID alone, as before).
    func hold(_ messageID: Int64) -> Bool {
        lock.withLock {
            if descriptor < 0 { descriptor = Self.open(path) }
            return descriptor >= 0 && Self.apply(descriptor, command: Self.setLock, type: F_WRLCK, at: messageID) == 0
        }
    }

    func release(_ messageID: Int64) {
        lock.withLock {
            guard descriptor >= 0 else { return }
            _ = Self.apply(descriptor, command: Self.setLock, type: F_UNLCK, at: messageID)
        }
    }

    /// Returns once no reply is streaming into the history: while a writer holds any message's
    /// lock, waits (in the kernel, no polling) for that one to be let go, then looks again. A
    /// reply that never ends keeps the caller waiting; only `hark index`, in the background,
    /// calls this. Returns at once when the kernel cannot say (no lock file, an interrupted wait).
    func waitWhileRepliesStream() {
        let fd = Self.open(path, create: false)
        guard fd >= 0 else { return }
        defer { close(fd) }
        while true {
            // Every message's byte: from 1 (ids start there) to the end of any file (length 0).
            var query = Self.region(type: F_WRLCK, at: 1)
            query.l_len = 0
            guard fcntl(fd, Self.getLock, &query) == 0, query.l_type != Int16(F_UNLCK) else { return }
            // A shared lock on that reply's byte is granted once its writer lets go.
            var wait = Self.region(type: F_RDLCK, at: Int64(query.l_start))
            guard fcntl(fd, Self.setLockWaiting, &wait) == 0 else { return }
            _ = Self.apply(fd, command: Self.setLock, type: F_UNLCK, at: Int64(query.l_start))
        }
    }

    /// Waits (in the kernel, no polling) until no other background `hark index` holds byte 0
    /// (no message has id 0), then holds it for as long as this object lives. Runs made back
    /// to back each start one; several at once took turns at the write lock and the CPU the
    /// next run's stream needed. False when the kernel cannot say (no lock file, a signal):
    /// the caller indexes anyway, as before.
    func waitForIndexingTurn() -> Bool {
        lock.withLock {
            if descriptor < 0 { descriptor = Self.open(path) }
            return descriptor >= 0 && Self.apply(descriptor, command: Self.setLockWaiting, type: F_WRLCK, at: 0) == 0
        }
    }

    /// A descriptor for asking who holds which lock (its own open: a lock held through this
    /// process's writing descriptor then shows as held), or nil when there is no lock file.
    func inspector() -> Inspector? {
        let fd = Self.open(path, create: false)
        return fd < 0 ? nil : Inspector(descriptor: fd)
    }

    final class Inspector {
        let descriptor: Int32

        init(descriptor: Int32) { self.descriptor = descriptor }
        deinit { close(descriptor) }

        /// True while a writer holds the lock of `messageID`; nil when the kernel cannot say.
        func isHeld(_ messageID: Int64) -> Bool? {
            var query = WriterLocks.region(type: F_WRLCK, at: messageID)
            guard fcntl(descriptor, WriterLocks.getLock, &query) == 0 else { return nil }
            return query.l_type != Int16(F_UNLCK)
        }
    }

    private static func open(_ path: String, create: Bool = true) -> Int32 {
        let fd = Glibc.open(path, O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0), 0o600)
        if fd >= 0 && create { _ = fchmod(fd, 0o600) }
        return fd
    }

    private static func apply(_ fd: Int32, command: Int32, type: Int32, at messageID: Int64) -> Int32 {
        var region = region(type: type, at: messageID)
        return fcntl(fd, command, &region)
    }

    /// One byte at the message's id (l_pid must be 0 for OFD locks).
    static func region(type: Int32, at messageID: Int64) -> flock {
        var region = flock()
        region.l_type = Int16(type)
        region.l_whence = Int16(SEEK_SET)
        region.l_start = off_t(messageID)
        region.l_len = 1
        region.l_pid = 0
        return region
    }
}
