import Foundation
import HarkCore

/// Waits for a process that is not this one's child to end (a command hark started and should
/// have killed), through a pidfd: readable when the process has ended, no polling of /proc.
public enum ProcessExit {
    /// True once `pid` has ended (a zombie counts: it runs no more), false if it still runs
    /// after `seconds`, a ceiling for a broken test, not a measure.
    public static func wait(for pid: pid_t, seconds: Double = 30) -> Bool {
        ProcessEnd.wait(for: pid, seconds: seconds)
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
        kill(pid, 0) == 0 && !ProcessEnd.hasEnded(pid)
    }
}
