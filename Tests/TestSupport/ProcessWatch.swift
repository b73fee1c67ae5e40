import Foundation
import HarkCore

/// Waits for a process that is not the test's child to end, without polling: Linux's pidfd
/// becomes readable when the process exits (Python's os.pidfd_open, as Swift cannot call the
/// variadic syscall()). Throws when it still runs after `seconds`.
public enum ProcessWatch {
    public struct StillRunning: Error, CustomStringConvertible {
        public let pid: pid_t
        public var description: String { "process \(pid) still runs" }
    }

    public static func waitForExit(_ pid: pid_t, seconds: Double = 60) async throws {
        let script = """
            import os, select, sys
            try:
                fd = os.pidfd_open(int(sys.argv[1]))
            except ProcessLookupError:
                sys.exit(0)
            sys.exit(0 if select.select([fd], [], [], float(sys.argv[2]))[0] else 1)
            """
        let result = try await offThePool { try Subprocess.run(["python3", "-c", script, String(pid), String(seconds)]) }
        if result.status != 0 { throw StillRunning(pid: pid) }
    }

    public static func isRunning(_ pid: pid_t) -> Bool {
        guard kill(pid, 0) == 0 else { return false }
        // A zombie has ended; it only waits for its parent.
        let status = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        return !(status.split(separator: ")").last?.trimmingCharacters(in: .whitespaces).hasPrefix("Z") ?? false)
    }
}
