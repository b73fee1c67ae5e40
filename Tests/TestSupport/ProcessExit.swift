import Foundation

/// Waits for a process that is not this one's child to end (a command hark started and should
/// have killed), through a pidfd: readable when the process has ended, no polling of /proc.
public enum ProcessExit {
    private typealias PidfdOpen = @convention(c) (pid_t, UInt32) -> Int32

    /// glibc 2.36's pidfd_open, found at run time (the Glibc module does not export it).
    private static let pidfdOpen: PidfdOpen? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pidfd_open") else { return nil }
        return unsafeBitCast(symbol, to: PidfdOpen.self)
    }()

    /// True once `pid` has ended (a zombie counts: it runs no more), false if it still runs
    /// after `seconds`, a ceiling for a broken test, not a measure.
    public static func wait(for pid: pid_t, seconds: Double = 30) -> Bool {
        guard let pidfdOpen else { return isGoneNow(pid) }
        let fd = pidfdOpen(pid, 0)
        guard fd >= 0 else { return errno == ESRCH }
        defer { close(fd) }
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while true {
            let count = poll(&entry, 1, Int32(seconds * 1000))
            if count < 0 && errno == EINTR { continue }
            return count > 0
        }
    }

    public struct StillRunning: Error, CustomStringConvertible {
        public let pid: pid_t
        public var description: String { "process \(pid) still runs" }
    }

    /// The same for async tests: the wait blocks a thread of its own, not the cooperative pool,
    /// and a process still running after `seconds` is an error.
    public static func waitForExit(_ pid: pid_t, seconds: Double = 60) async throws {
        guard try await offThePool({ wait(for: pid, seconds: seconds) }) else { throw StillRunning(pid: pid) }
    }

    /// Whether `pid` still runs (a zombie has ended: it only waits for its parent).
    public static func isRunning(_ pid: pid_t) -> Bool {
        kill(pid, 0) == 0 && !isGoneNow(pid)
    }

    private static func isGoneNow(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return true }
        return stat[stat.index(after: close)...].split(separator: " ").first == "Z"
    }
}
