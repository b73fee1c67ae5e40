import FoundationEssentials
import Glibc
import Dispatch

/// An MCP server hark started, spoken to over its stdin and stdout (spec basic/transports,
/// stdio). Its stderr is kept (the last lines, for a failure's message), never printed.
///
/// It cannot outlive hark: its stdin is a pipe whose write end only hark holds, and the
/// Python SDK's server ends when stdin ends (mcp/server/stdio.py: `stdin_reader` leaves its
/// `async for line in stdin` at EOF and the server's task group finishes), which the kernel
/// causes however hark ends, kill -9 included. At a normal exit hark also stops it by its
/// PID: stdin closed, then SIGTERM to its process group, then SIGKILL (the spec's shutdown
/// sequence, basic/lifecycle).
final class StdioConnection: MCPConnection, @unchecked Sendable {
    let pid: pid_t
    private let name: String
    private let input: Int32
    private let pending = PendingRequests()
    private let writeLock = Lock()
    private let state = Locked(State())
    /// Told of the server's notifications (`notifications/tools/list_changed`).
    private let onNotification: @Sendable (String) -> Void
    private let onRequest: MCPRequestHandler

    private struct State {
        var stderrTail: [UInt8] = []
        /// Set when the server speaks 2026-07-28 (`adopt`).
        var envelope: MCPEnvelope?
        var closed = false
        var exitStatus: Int32?
    }

    init(name: String, arguments: [String], environment: [String: String], directory: String?,
         onNotification: @escaping @Sendable (String) -> Void, onRequest: @escaping MCPRequestHandler) throws {
        self.name = name
        self.onNotification = onNotification
        self.onRequest = onRequest
        let stdin = try Subprocess.pipe()
        let stdout = try Subprocess.pipe()
        let stderr = try Subprocess.pipe()
        do {
            pid = try Subprocess.spawn(arguments, environment: environment, directory: directory,
                                       stdin: stdin.read, stdout: stdout.write, stderr: stderr.write)
        } catch {
            for fd in [stdin.read, stdin.write, stdout.read, stdout.write, stderr.read, stderr.write] { Glibc.close(fd) }
            throw error
        }
        for fd in [stdin.read, stdout.write, stderr.write] { Glibc.close(fd) }
        input = stdin.write
        StdioServers.remember(pid: pid, input: input)
        let (out, err) = (stdout.read, stderr.read)
        Threads.start(name: "mcp-" + String(name.prefix(11))) { [self] in readLoop(stdout: out, stderr: err) }
    }

    var isClosed: Bool { pending.hasEnded }

    var lastWords: String? {
        let tail = state.read { $0.stderrTail }
        let lines = String(decoding: tail, as: UTF8.self).lineSlices(keepingEmpty: false)
        return lines.last.map { MessageLine.make(String($0), limit: 200) }
    }

    func request(_ method: String, params: JSON?, timeout: Double) async throws -> JSON {
        try await send(method, params: params, timeout: timeout, envelope: state.read { $0.envelope })
    }

    func adopt(_ envelope: MCPEnvelope) { state.update { $0.envelope = envelope } }

    var isStateless: Bool { state.read { $0.envelope != nil } }

    func discover(_ envelope: MCPEnvelope, timeout: Double) async throws -> JSON {
        try await send(MCPEnvelope.discover, params: nil, timeout: timeout, envelope: envelope)
    }

    /// A request, in the 2026-07-28 envelope when there is one. Cancelled: the handshake's
    /// `notifications/cancelled`; 2026-07-28 has no notifications from the client, and its
    /// server drops an answer nobody waits for.
    private func send(_ method: String, params: JSON?, timeout: Double, envelope: MCPEnvelope?) async throws -> JSON {
        let id = pending.makeID()
        let message = JSONRPCMessage.request(id: .number(Double(id)), method: method, params: envelope.map { $0.stamp(params) } ?? params)
        let answer = try await pending.wait(for: id, timeout: timeout, host: "MCP server \(name)",
                                            send: { try write(message) }, onCancel: { [weak self] id in
            guard envelope == nil else { return }
            try? self?.write(.notification(method: "notifications/cancelled",
                                           params: ["requestId": .number(Double(id)), "reason": "stopped by the user"]))
        })
        return try answer.result()
    }

    func notify(_ method: String, params: JSON?) async throws {
        try write(.notification(method: method, params: params))
    }

    /// One message, one line: the encoder escapes every newline inside strings.
    private func write(_ message: JSONRPCMessage) throws {
        let bytes = Array(message.json.encoded().utf8) + [0x0A]
        try writeLock.withLock {
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { Glibc.write(input, $0.baseAddress, $0.count) }
                if written < 0 {
                    if errno == EINTR { continue }
                    // The server has gone: its reader is about to fail every waiting request
                    // with its exit status and last words on stderr, which say more than EPIPE.
                    if errno == EPIPE { return }
                    throw HarkError.backend("MCP server \(name) stopped" + (lastWords.map { ": " + $0 } ?? ""))
                }
                offset += written
            }
        }
    }

    /// Reads stdout (messages) and stderr (kept) until the server closes stdout, then fails
    /// what still waits with the server's last words and reaps it.
    private func readLoop(stdout: Int32, stderr: Int32) {
        var decoder = JSONRPCLineDecoder()
        var open = [stdout, stderr]
        var buffer = [UInt8](repeating: 0, count: 65536)
        var failure: Error?
        while open.contains(stdout) {
            var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            if poll(&fds, nfds_t(fds.count), -1) < 0 {
                if errno == EINTR { continue }
                break
            }
            for entry in fds where entry.revents != 0 {
                let count = read(entry.fd, &buffer, buffer.count)
                if count <= 0 {
                    if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
                    Glibc.close(entry.fd)
                    open.removeAll { $0 == entry.fd }
                    continue
                }
                if entry.fd == stderr {
                    keepStderr(Array(buffer[0..<count]))
                    continue
                }
                do {
                    for item in try decoder.feed(Array(buffer[0..<count])) { handle(item) }
                } catch {
                    failure = error
                    Glibc.close(stdout)
                    open.removeAll { $0 == stdout }
                }
            }
        }
        for item in decoder.finish() { handle(item) }
        // stderr may still hold the reason the server stopped.
        if open.contains(stderr) {
            var fds = [pollfd(fd: stderr, events: Int16(POLLIN), revents: 0)]
            while poll(&fds, 1, 200) > 0 {
                let count = read(stderr, &buffer, buffer.count)
                if count <= 0 { break }
                keepStderr(Array(buffer[0..<count]))
            }
            Glibc.close(stderr)
        }
        let status = StdioServers.reap(pid: pid)
        state.update { $0.exitStatus = status }
        let reason = failure.map { $0.userMessage }
            ?? "MCP server \(name) stopped" + (status.map { " (exit status \($0))" } ?? "") + (lastWords.map { ": " + $0 } ?? "")
        pending.end(HarkError.backend(reason))
    }

    private func keepStderr(_ bytes: [UInt8]) {
        state.update { state in
            state.stderrTail += bytes
            if state.stderrTail.count > 8192 { state.stderrTail.removeFirst(state.stderrTail.count - 8192) }
        }
    }

    private func handle(_ item: JSONRPCLineDecoder.Item) {
        switch item {
        case .garbage(let start):
            keepStderr(Array("(not a JSON-RPC message on stdout: \(start))\n".utf8))
        case .message(let message):
            switch message {
            case .response, .error:
                if let id = message.numericID { pending.resume(id, with: .success(message)) }
            case .request(let id, let method, _) where method == "ping":
                try? write(JSONRPCMessage.answer(id: id, method: method))
            case .request(let id, let method, let params):
                // Answered off the reader: the user may take a while, and the server's other
                // messages keep coming meanwhile.
                pending.hold()
                Task { [self] in
                    let reply = await onRequest(id, method, params)
                    pending.release()
                    try? write(reply)
                }
            case .notification(let method, _):
                onNotification(method)
            }
        }
    }

    @discardableResult
    func close() -> Task<Void, Never>? {
        StdioServers.stop(pid: pid, input: input)
        return nil
    }
}

/// The stdio servers this process started, stopped by PID when it exits normally (their
/// stdin closed, then SIGTERM to each one's process group, SIGKILL if it lingers), and
/// reaped by their reader once they end. A signal is only ever sent to a PID not yet reaped
/// (under the same lock as the reaping), so it cannot reach a process that reused the number.
enum StdioServers {
    private static let running = Locked<[pid_t: Int32]>([:])
    private static let reaped = Locked<Set<pid_t>>([])
    private static let exitHook: Void = { atexit { StdioServers.stopAll() } }()

    static func remember(pid: pid_t, input: Int32) {
        _ = exitHook
        running.update { $0[pid] = input }
    }

    /// Called by the reader once the server closed its stdout: waits for it to end, briefly,
    /// then makes sure of it, and reaps it. Returns its exit status.
    static func reap(pid: pid_t) -> Int32? {
        if let input = running.update({ $0.removeValue(forKey: pid) }) { close(input) }
        if !exited(pid, within: 2) {
            signal(pid, SIGKILL)
            _ = exited(pid, within: 2)
        }
        return reaped.update { reaped -> Int32? in
            var status: Int32 = 0
            guard waitpid(pid, &status, WNOHANG) == pid else { return nil }
            reaped.insert(pid)
            return (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        }
    }

    /// Ends one server: stdin closed (it leaves by itself), SIGTERM after a moment if not.
    static func stop(pid: pid_t, input: Int32) {
        guard running.update({ $0.removeValue(forKey: pid) }) != nil else { return }
        close(input)
        DispatchQueue.global().async {
            if exited(pid, within: 1) { return }
            signal(pid, SIGTERM)
            if exited(pid, within: 2) { return }
            signal(pid, SIGKILL)
        }
    }

    /// At exit: every server still running is told to go, without waiting long for it.
    static func stopAll() {
        let all = running.update { servers in
            defer { servers = [:] }
            return servers
        }
        for (_, input) in all { close(input) }
        for (pid, _) in all where !exited(pid, within: 0.5) { signal(pid, SIGTERM) }
    }

    /// `sig` to the server's process group (what it started too), unless it was reaped.
    static func signal(_ pid: pid_t, _ sig: Int32) {
        reaped.read { reaped in
            guard !reaped.contains(pid) else { return }
            kill(-pid, sig)
            kill(pid, sig)
        }
    }

    /// Whether the process has ended within `seconds` (gone or a zombie not yet reaped). A
    /// pid already reaped here may name another process by now: it has ended.
    static func exited(_ pid: pid_t, within seconds: Double) -> Bool {
        if reaped.read({ $0.contains(pid) }) { return true }
        return ProcessEnd.wait(for: pid, seconds: seconds)
    }
}
