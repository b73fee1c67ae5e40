import FoundationEssentials
import Glibc

/// Where a `file:` or `cmd:` secret comes from, read without trusting it: at most `limit` bytes
/// and within the session's `secret_timeout`, so that an endless source (/dev/zero, a FIFO
/// nobody writes, `cat /dev/zero`) is a one-line config error instead of a process that eats
/// the machine's memory or waits forever. The secret is the first line (blank lines before it
/// skipped); a line that has not ended within `limit` bytes is no secret.
enum SecretSource {
    /// More than any header a server takes: nginx and Apache refuse a header field over 8 KiB.
    static let limit = 8 << 10

    enum Problem: Error, Equatable {
        case cannotRead(String)
        case empty
        case noLine
        case timedOut
        case commandFailed(status: Int32)
        case printedNothing
    }

    /// The first line of the file at `path`. The file is opened without blocking (a FIFO opens
    /// at once) and each read waits for data first, until the deadline or until hark is told
    /// to terminate (`HarkError.interrupted`).
    static func firstLine(ofFile path: String, timeout: Double) throws -> String {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw Problem.cannotRead(String(cString: strerror(errno))) }
        defer { close(descriptor) }
        let deadline = Subprocess.monotonicSeconds() + timeout
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            if let line = completeLine(in: bytes) { return line }
            guard bytes.count < limit else { throw Problem.noLine }
            try waitForData(descriptor, until: deadline)
            let count = read(descriptor, &buffer, min(buffer.count, limit - bytes.count))
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw Problem.cannotRead(String(cString: strerror(errno)))
            }
            bytes += buffer[0..<count]
        }
        let line = firstLine(of: bytes)
        guard !line.isEmpty else { throw Problem.empty }
        return line
    }

    /// The first line of what `/bin/sh -c command` prints; it must exit 0 within `timeout`
    /// having printed at most `limit` bytes (past them it is stopped).
    static func firstLine(ofCommand command: String, timeout: Double) throws -> String {
        let output: ShellCommand.Output
        do {
            output = try ShellCommand.run(command, input: nil, timeout: timeout, outputLimit: limit)
        } catch is Subprocess.TimedOut {
            throw Problem.timedOut
        } catch is Subprocess.TooMuchOutput {
            throw Problem.noLine
        }
        guard output.status == 0 else { throw Problem.commandFailed(status: output.status) }
        let line = firstLine(of: [UInt8](output.stdout))
        guard !line.isEmpty else { throw Problem.printedNothing }
        return line
    }

    /// Waits until `descriptor` can be read (or is at its end); throws at the deadline, and
    /// `interrupted` once hark is told to terminate.
    private static func waitForData(_ descriptor: Int32, until deadline: Double) throws {
        let termination = Subprocess.terminationDescriptor
        while true {
            let left = deadline - Subprocess.monotonicSeconds()
            guard left > 0 else { throw Problem.timedOut }
            var fds = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
            if termination >= 0 { fds.append(pollfd(fd: termination, events: Int16(POLLIN), revents: 0)) }
            let ready = poll(&fds, nfds_t(fds.count), Int32(min(left * 1000, Double(Int32.max)).rounded(.up)))
            if ready < 0 && errno != EINTR { throw Problem.cannotRead(String(cString: strerror(errno))) }
            if fds.count > 1, fds[1].revents != 0 { throw HarkError.interrupted }
            if ready > 0, fds[0].revents != 0 { return }
        }
    }

    /// The first line once it has ended (a line break after it), nil while it may go on.
    static func completeLine(in bytes: [UInt8]) -> String? {
        guard let start = bytes.firstIndex(where: { !isBreak($0) }),
              let end = bytes[start...].firstIndex(where: isBreak) else { return nil }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    /// The first line of a file or of a command's output, without its CR or LF; line breaks
    /// before it are skipped.
    static func firstLine(of bytes: [UInt8]) -> String {
        guard let start = bytes.firstIndex(where: { !isBreak($0) }) else { return "" }
        let end = bytes[start...].firstIndex(where: isBreak) ?? bytes.endIndex
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    private static func isBreak(_ byte: UInt8) -> Bool { byte == 0x0A || byte == 0x0D }
}
