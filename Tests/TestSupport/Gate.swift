import Foundation

/// A one-way latch between a test and a server thread: the server waits at the gate until the
/// test opens it. The wait has a generous ceiling so a broken test fails instead of hanging.
public final class Gate: @unchecked Sendable {
    private let condition = NSCondition()
    private var isOpen = false
    /// When it opened (monotonic), so a waiter that resumes late still knows whether it opened in time.
    private var openedAt: UInt64?
    private var waiters: [CheckedContinuation<Void, Never>] = []

    public init() {}

    public func open() {
        condition.lock()
        if openedAt == nil { openedAt = DispatchTime.now().uptimeNanoseconds }
        isOpen = true
        condition.broadcast()
        let waiting = waiters
        waiters = []
        condition.unlock()
        for waiter in waiting { waiter.resume() }
    }

    /// Waits without holding a thread: use this from test code (async tests share a small
    /// pool of threads, and a blocked one can starve the code under test).
    public func opened() async {
        await withCheckedContinuation { continuation in
            condition.lock()
            if isOpen {
                condition.unlock()
                continuation.resume()
            } else {
                waiters.append(continuation)
                condition.unlock()
            }
        }
    }

    /// Waits until open or until `seconds` pass; whether it opened within them. For test code.
    /// The answer comes from when the gate opened, not from which child task finished first:
    /// on a loaded machine both children can sit runnable behind tests that block the shared
    /// thread pool (speech recognition, say), and the timer's may then be picked first although
    /// the gate opened seconds before. That made a cancellation test fail at "19 s" in CI.
    public func opened(within seconds: Double) async -> Bool {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        return await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.opened() }
            group.addTask { try? await Task.sleep(nanoseconds: UInt64(seconds * 1e9)) }
            await group.next()
            group.cancelAll()
            // The group ends only when the waiting child does: release it (the gate itself
            // stays as it is).
            return openedInTime(deadline)
        }
    }

    /// Whether it opened by `deadline`; wakes whoever still waits in `opened()`.
    private func openedInTime(_ deadline: UInt64) -> Bool {
        condition.lock()
        let inTime = openedAt.map { $0 <= deadline } ?? false
        let waiting = waiters
        waiters = []
        condition.unlock()
        for waiter in waiting { waiter.resume() }
        return inTime
    }

    /// Blocks the calling thread: for server threads. Returns false if the gate did not open
    /// within `seconds`.
    @discardableResult
    public func wait(seconds: Double = 30) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date().addingTimeInterval(seconds)
        while !isOpen {
            if !condition.wait(until: deadline) { return isOpen }
        }
        return true
    }
}

/// A fresh folder under the system temp directory, removed when released.
public final class TemporaryDirectory: @unchecked Sendable {
    public let path: String

    public init(_ label: String = "hark-test") {
        let template = NSTemporaryDirectory() + "/\(label)-XXXXXX"
        var bytes = Array(template.utf8CString)
        let made = bytes.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        path = made.map { String(cString: $0) } ?? (NSTemporaryDirectory() + "/\(label)-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    public func file(_ name: String) -> String { path + "/" + name }

    @discardableResult
    public func write(_ name: String, _ text: String, mode: Int = 0o600) -> String {
        let target = file(name)
        try? FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent,
                                                 withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: target, contents: Data(text.utf8), attributes: [.posixPermissions: mode])
        return target
    }
}
