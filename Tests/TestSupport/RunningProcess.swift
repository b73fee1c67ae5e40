import Foundation
import HarkCore

/// A program started in the background with its stdout and stderr on pipes the test reads as
/// they fill, so it can act at a chosen moment (kill -9 after N bytes were printed) and then
/// collect the exit status.
public final class RunningProcess: @unchecked Sendable {
    public let pid: pid_t
    private let stdoutFD: Int32
    private let stderrFD: Int32
    public private(set) var stdout: [UInt8] = []
    public private(set) var stderr: [UInt8] = []
    private var reaped: Int32?
    /// The child's peak resident memory (VmHWM), sampled while its output is read. Not wait4's
    /// ru_maxrss: posix_spawn starts the child in this process's memory (vfork), and Linux
    /// counts that memory's high-water mark, the whole test runner's, as the child's.
    public private(set) var maxRSSKilobytes: Int = 0
    private var sampledBytes = 0

    public init(_ arguments: [String], environment: [String: String]) throws {
        BrokenPipes.ignore()
        var out: [Int32] = [-1, -1]
        var err: [Int32] = [-1, -1]
        guard pipe(&out) == 0, pipe(&err) == 0 else { throw HarkError.io("pipe failed") }
        for fd in out + err { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, out[1], 1)
        posix_spawn_file_actions_adddup2(&actions, err[1], 2)
        var pid: pid_t = 0
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        let code = posix_spawn(&pid, arguments[0], &actions, nil, argv, envp)
        close(out[1])
        close(err[1])
        guard code == 0 else {
            close(out[0])
            close(err[0])
            throw HarkError.io("cannot start \(arguments[0]): \(String(cString: strerror(code)))")
        }
        self.pid = pid
        stdoutFD = out[0]
        stderrFD = err[0]
    }

    deinit {
        if reaped == nil {
            _ = Glibc.kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        close(stdoutFD)
        close(stderrFD)
    }

    /// Reads stdout until it holds at least `count` bytes or ends; false if it ended first.
    public func readStdout(atLeast count: Int) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while stdout.count < count {
            let read = Glibc.read(stdoutFD, &buffer, min(buffer.count, max(1, count - stdout.count)))
            if read < 0 && errno == EINTR { continue }
            if read <= 0 { return false }
            stdout += buffer[0..<read]
        }
        return true
    }

    public func kill(_ signal: Int32 = SIGKILL) {
        _ = Glibc.kill(pid, signal)
    }

    /// `wait()` on a thread of its own. An async test that waits for a program must not hold
    /// one of the cooperative pool's threads meanwhile (two on a two-core machine): in the
    /// full suite, tests blocked that way kept every other test's awaits from resuming. Being
    /// the async overload, it is what an async test's `process.wait()` calls, with `await`.
    @discardableResult
    public func wait() async -> Int32 {
        (try? await offThePool { self.wait() }) ?? -1
    }

    /// Reads both pipes to their end and waits for the exit status (128+N for signal N).
    @discardableResult
    public func wait() -> Int32 {
        if let reaped { return reaped }
        var buffer = [UInt8](repeating: 0, count: 65536)
        var open = [stdoutFD, stderrFD]
        while !open.isEmpty {
            var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            if poll(&fds, nfds_t(fds.count), -1) < 0 { if errno == EINTR { continue } else { break } }
            for entry in fds where entry.revents != 0 {
                let count = Glibc.read(entry.fd, &buffer, buffer.count)
                if count > 0 {
                    if entry.fd == stdoutFD { stdout += buffer[0..<count] } else { stderr += buffer[0..<count] }
                    sampledBytes += count
                    if sampledBytes >= 1 << 20 {
                        sampledBytes = 0
                        samplePeak()
                    }
                } else if count == 0 || errno != EINTR {
                    open.removeAll { $0 == entry.fd }
                }
            }
        }
        samplePeak()  // the output has ended; the process may not have yet
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let result = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        reaped = result
        return result
    }

    private func samplePeak() {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") else { return }
        maxRSSKilobytes = max(maxRSSKilobytes, kilobytes)
    }

    public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    public var stderrText: String { String(decoding: stderr, as: UTF8.self) }
}
