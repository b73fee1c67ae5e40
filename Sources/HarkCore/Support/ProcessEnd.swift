import FoundationEssentials
import Glibc

/// Waiting for a process to end without polling: a pidfd becomes readable when the process
/// has ended (a zombie counts: it runs no more). For MCP servers hark stops, and for tests.
public enum ProcessEnd {
    private typealias PidfdOpen = @convention(c) (pid_t, UInt32) -> Int32

    /// glibc 2.36's pidfd_open, found at run time (the Glibc module does not export it).
    private static let pidfdOpen: PidfdOpen? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pidfd_open") else { return nil }
        return unsafeBitCast(symbol, to: PidfdOpen.self)
    }()

    /// True once `pid` has ended, false if it still runs after `seconds`.
    public static func wait(for pid: pid_t, seconds: Double) -> Bool {
        guard let pidfdOpen else { return hasEnded(pid) }
        let fd = pidfdOpen(pid, 0)
        guard fd >= 0 else { return errno == ESRCH }
        defer { close(fd) }
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let deadline = Subprocess.monotonicSeconds() + seconds
        while true {
            let left = max(0, deadline - Subprocess.monotonicSeconds())
            let count = poll(&entry, 1, Int32(left * 1000))
            if count < 0 && errno == EINTR { continue }
            return count > 0
        }
    }

    /// Gone, or a zombie: the state field of /proc/PID/stat, after the parenthesised name.
    public static func hasEnded(_ pid: pid_t) -> Bool {
        guard let file = PosixFile(readingAtPath: "/proc/\(pid)/stat") else { return true }
        let text = String(decoding: file.read(count: 512), as: UTF8.self)
        guard let close = text.lastIndex(of: ")") else { return true }
        let state = text[text.index(after: close)...].trimmingSpaces.first
        return state == nil || state == "Z" || state == "X"
    }
}
