import FoundationEssentials
import Glibc
import HarkCore

/// Signals become bytes on a pipe (the self-pipe trick), so the shell's poll loop handles
/// them in order with keystrokes and reply events, outside any signal handler.
public enum Signals {
    nonisolated(unsafe) static var writeFD: Int32 = -1
    nonisolated(unsafe) public private(set) static var readFD: Int32 = -1

    public static func install(_ signals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGWINCH]) {
        if readFD < 0 {
            var fds: [Int32] = [0, 0]
            guard pipe(&fds) == 0 else { return }
            for fd in fds {
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            }
            readFD = fds[0]
            writeFD = fds[1]
        }
        for signal in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                var byte = UInt8(truncatingIfNeeded: number)
                let saved = errno
                _ = Glibc.write(Signals.writeFD, &byte, 1)
                errno = saved
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = 0  // no SA_RESTART: a blocking read returns EINTR
            sigaction(signal, &action, nil)
        }
        // A reader that goes away (hark | head) must not kill us mid-write.
        Glibc.signal(SIGPIPE, SIG_IGN)
    }

    /// Signals received since the last call, in order.
    public static func drain() -> [Int32] {
        guard readFD >= 0 else { return [] }
        var received: [Int32] = []
        var buffer = [UInt8](repeating: 0, count: 64)
        while true {
            let count = read(readFD, &buffer, buffer.count)
            if count <= 0 { break }
            received += buffer[0..<count].map { Int32($0) }
        }
        return received
    }
}

/// Events for the shell thread from other threads (reply events, background replies ending),
/// with a pipe to wake its poll.
public final class Inbox<Item: Sendable>: @unchecked Sendable {
    private let lock = Lock()
    private var items: [Item] = []
    public let readFD: Int32
    private let writeFD: Int32

    public init() {
        var fds: [Int32] = [0, 0]
        _ = pipe(&fds)
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        readFD = fds[0]
        writeFD = fds[1]
    }

    deinit {
        close(readFD)
        close(writeFD)
    }

    public func post(_ item: Item) {
        lock.withLock { items.append(item) }
        var byte: UInt8 = 1
        _ = write(writeFD, &byte, 1)
    }

    public func take() -> [Item] {
        var buffer = [UInt8](repeating: 0, count: 256)
        while read(readFD, &buffer, buffer.count) > 0 {}
        return lock.withLock {
            defer { items.removeAll() }
            return items
        }
    }

    public var isEmpty: Bool { lock.withLock { items.isEmpty } }
}
