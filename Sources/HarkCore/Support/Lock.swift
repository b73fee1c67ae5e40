import FoundationEssentials
import Glibc

// hark links FoundationEssentials, not corelibs Foundation: linking the latter (with
// CoreFoundation and ICU) costs 0.7 ms and a hundred page faults at every start, used or not
// (BENCHMARKS.md). These few POSIX wrappers stand in for NSLock, NSCondition and Thread.

/// A pthread mutex, for state shared with threads outside Swift concurrency.
public final class Lock: @unchecked Sendable {
    fileprivate let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    /// A recursive lock may be taken again by the thread holding it.
    public init(recursive: Bool = false) {
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        if recursive { pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE)) }
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    public func lock() { pthread_mutex_lock(mutex) }
    public func unlock() { pthread_mutex_unlock(mutex) }

    public func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}

/// State that is only ever read or changed under its lock: `read` and `update` are the only
/// ways in, so no path can touch it unlocked. The bodies must not call back into the owner.
public final class Locked<Value>: @unchecked Sendable {
    private let lock = Lock()
    private var value: Value

    public init(_ value: Value) { self.value = value }

    public func read<T>(_ body: (Value) throws -> T) rethrows -> T { try lock.withLock { try body(value) } }

    @discardableResult
    public func update<T>(_ body: (inout Value) throws -> T) rethrows -> T { try lock.withLock { try body(&value) } }
}

/// A mutex with a condition variable: `wait` releases the lock until signalled.
public final class Condition: @unchecked Sendable {
    private let lockable = Lock()
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    public init() {
        // Deadlines are measured on the monotonic clock: a wall-clock step must not wake
        // or stall a waiter.
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deallocate()
    }

    public func lock() { lockable.lock() }
    public func unlock() { lockable.unlock() }
    public func signal() { pthread_cond_signal(condition) }
    public func broadcast() { pthread_cond_broadcast(condition) }
    public func wait() { pthread_cond_wait(condition, lockable.mutex) }

    public func withLock<T>(_ body: () throws -> T) rethrows -> T { try lockable.withLock(body) }

    /// Waits at most `seconds`; false when the time ran out.
    @discardableResult
    public func wait(seconds: Double) -> Bool {
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        let whole = seconds.rounded(.down)
        deadline.tv_sec += Int(whole)
        deadline.tv_nsec += Int((seconds - whole) * 1e9)
        if deadline.tv_nsec >= 1_000_000_000 {
            deadline.tv_sec += 1
            deadline.tv_nsec -= 1_000_000_000
        }
        return pthread_cond_timedwait(condition, lockable.mutex, &deadline) == 0
    }
}

/// Threads for blocking work (a transfer's socket, the audio device, the speech engine) that
/// must not hold a Swift concurrency thread.
public enum Threads {
    /// Starts `body` on a new detached thread named `name` (at most 15 bytes show in `ps`).
    public static func start(name: String, _ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(Start(name: name, body: body)).toOpaque()
        var thread = pthread_t()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        let created = pthread_create(&thread, &attributes, threadEntry, box)
        pthread_attr_destroy(&attributes)
        precondition(created == 0, "hark could not start a thread (pthread_create: \(created))")
    }

    /// Runs blocking work (a child process to its end) on a thread of its own and waits for it
    /// without holding one of the concurrency pool's threads: they are as many as cores, and a
    /// few commands waiting on them would stall every reply streaming meanwhile.
    public static func run<T: Sendable>(name: String, _ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            start(name: name) { continuation.resume(with: Result { try work() }) }
        }
    }

    private static let threadEntry: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { argument in
        let start = Unmanaged<Start>.fromOpaque(argument!).takeRetainedValue()
        setName(start.name)
        start.body()
        return nil
    }

    /// Names the calling thread for ps, top and perf (prctl, the usual way, is variadic and
    /// out of Swift's reach; the kernel takes the same name through this file).
    private static func setName(_ name: String) {
        let file = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard file >= 0 else { return }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(file, $0.baseAddress, $0.count) }
        close(file)
    }

    private final class Start: @unchecked Sendable {
        let name: String
        let body: @Sendable () -> Void
        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }
}
