import Glibc

/// The kernel's list of file locks, where a process waiting for one shows with "->": the only
/// way to see that a lock is waited for, as the kernel offers no event for it.
public enum ProcLocks {
    /// All of /proc/locks, read to its end with read(2): it reports a size of 0, and with a
    /// whole suite's processes holding locks the line looked for can be pages in.
    public static func read() -> String {
        let fd = open("/proc/locks", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = Glibc.read(fd, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether some process waits for a lock on the file with this inode.
    public static func someoneWaits(inode: UInt64) -> Bool {
        read().split(separator: "\n").contains { $0.contains("->") && $0.contains(":\(inode) ") }
    }
}
