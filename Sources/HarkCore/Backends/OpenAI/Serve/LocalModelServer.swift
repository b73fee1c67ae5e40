import FoundationEssentials
import Glibc
import Dispatch

/// llama.cpp's server run by hark for a session with `serve = …`: started on a free loopback
/// port the first time the session is used, ready once `/health` answers 200, and stopped when
/// hark exits or the session's settings change.
///
/// It cannot outlive hark: its stdin is a pipe whose other end only hark holds, and it stops
/// when that pipe ends, which the kernel does however hark ends (kill -9 included). A pid file
/// per running server (`DATA/serve/SESSION-HARKPID.pid`) lets the next start stop one whose
/// hark is gone all the same, should that ever fail.
final class LocalModelServer: @unchecked Sendable {
    let session: String
    let model: ServedModel
    private let folder: String
    private let http: HTTPClient
    private let state = Locked<State>(State())

    private struct State {
        var starting: Task<Running, Error>?
        var running: Running?
    }

    /// A started server: its launcher's pid (its process group), port and lifeline.
    final class Running: @unchecked Sendable {
        let pid: pid_t
        let port: Int
        let lifeline: Int32
        let pidFile: String

        init(pid: pid_t, port: Int, lifeline: Int32, pidFile: String) {
            self.pid = pid
            self.port = port
            self.lifeline = lifeline
            self.pidFile = pidFile
        }

        var base: String { "http://127.0.0.1:\(port)/v1" }

        /// False once the launcher has ended (it is reaped then).
        var isRunning: Bool {
            var status: Int32 = 0
            return waitpid(pid, &status, WNOHANG) == 0
        }

        /// Ends the lifeline (the launcher stops its server), signals the group in case it
        /// does not listen, and reaps it off the caller's thread.
        func stop() {
            close(lifeline)
            kill(-pid, SIGTERM)
            unlink(pidFile)
            let pid = self.pid
            DispatchQueue.global().async {
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            }
        }
    }

    init(session: String, model: ServedModel, paths: Paths, http: HTTPClient) {
        self.session = session
        self.model = model
        self.folder = paths.dataDirectory + "/serve"
        self.http = http
    }

    deinit {
        if let running = state.read({ $0.running }) {
            LocalModelServers.forget(running)
            running.stop()
        }
    }

    /// The server's API base once it is up, known without waiting.
    var readyBase: String? { state.read { $0.running?.base } }

    /// The server's API base (`http://127.0.0.1:PORT/v1`), starting it on first use (and again
    /// if it died); callers that come while it starts wait for the same start.
    func base() async throws -> String {
        enum Next { case ready(Running), wait(Task<Running, Error>) }
        let next: Next = state.update { state in
            if let running = state.running {
                if running.isRunning { return .ready(running) }
                LocalModelServers.forget(running)
                running.stop()
                state.running = nil
            }
            if let starting = state.starting { return .wait(starting) }
            let starting = Task { [self] in try await start() }
            state.starting = starting
            return .wait(starting)
        }
        switch next {
        case .ready(let running): return running.base
        case .wait(let task):
            do { return try await task.value.base } catch {
                state.update { $0.starting = nil }
                throw error
            }
        }
    }

    /// The launcher's log, for a failure's message and the user.
    var logPath: String { folder + "/\(session).log" }

    private func start() async throws -> Running {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        LocalModelServers.cleanUp(folder)
        let port = try Self.freePort()
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw HarkError.io("cannot create a pipe: \(String(cString: strerror(errno)))") }
        // Only the server gets the read end, and nothing else hark starts gets the write end.
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        unlink(logPath)
        let pid: pid_t
        do {
            pid = try Subprocess.start(model.command(port: port), input: ends[0], log: logPath)
        } catch {
            close(ends[0])
            close(ends[1])
            throw error
        }
        close(ends[0])
        let pidFile = folder + "/\(session)-\(getpid()).pid"
        _ = FileManager.default.createFile(atPath: pidFile, contents: Data("\(pid) \(getpid())\n".utf8))
        let running = Running(pid: pid, port: port, lifeline: ends[1], pidFile: pidFile)
        LocalModelServers.remember(running)
        do {
            try await waitUntilHealthy(running)
        } catch {
            LocalModelServers.forget(running)
            running.stop()
            throw error
        }
        state.update {
            $0.running = running
            $0.starting = nil
        }
        return running
    }

    /// How long a server may take to load its model (a large model on a slow disk), on the
    /// HTTP client's clock.
    static let readinessLimit: Double = 180

    /// Asks `/health` until it answers 200 (503 while the model loads), the launcher ends, or
    /// `readinessLimit` passes.
    private func waitUntilHealthy(_ running: Running) async throws {
        let clock = http.clock
        let deadline = clock.uptime() + Self.readinessLimit
        var pause = 0.02
        let request = HTTPRequest(url: "http://127.0.0.1:\(running.port)/health",
                                  timeouts: HTTPTimeouts(connect: 2, firstByte: 10, idle: 10))
        while true {
            try Task.checkCancellation()
            var status: Int32 = 0
            if waitpid(running.pid, &status, WNOHANG) == running.pid {
                throw HarkError.backend("llama.cpp's server for \(session) stopped while starting" + lastLogLine())
            }
            if let response = try? await http.fetch(request, maxBytes: 1 << 16, retry: .never), response.head.status == 200 {
                return
            }
            guard clock.uptime() < deadline else {
                throw HarkError.backend("llama.cpp's server for \(session) was not ready after 3 minutes; see \(logPath)")
            }
            try await clock.sleep(pause)
            pause = min(pause * 2, 0.2)
        }
    }

    private func lastLogLine() -> String {
        let text = FileManager.default.contents(atPath: logPath).map { String(decoding: $0.suffix(4096), as: UTF8.self) } ?? ""
        let line = text.lineSlices(keepingEmpty: false).last.map { String($0).trimmingSpaces } ?? ""
        return line.isEmpty ? "; see \(logPath)" : ": \(line.prefix(160)) (see \(logPath))"
    }

    /// A loopback port nobody listens on: bound, read back, released for the server.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HarkError.io("cannot open a socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socket in
                bind(fd, socket, length) == 0 && getsockname(fd, socket, &length) == 0
            }
        }
        guard bound else { throw HarkError.io("cannot find a free port: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// The servers this process started, stopped when it exits normally; and the clean-up of
/// those a gone hark left.
enum LocalModelServers {
    private static let running = Locked<[ObjectIdentifier: LocalModelServer.Running]>([:])
    private static let exitHook: Void = { atexit { LocalModelServers.stopAll() } }()

    static func remember(_ server: LocalModelServer.Running) {
        _ = exitHook
        running.update { $0[ObjectIdentifier(server)] = server }
    }

    static func forget(_ server: LocalModelServer.Running) {
        running.update { $0[ObjectIdentifier(server)] = nil }
    }

    static func stopAll() {
        let all = running.update { servers in
            defer { servers = [:] }
            return Array(servers.values)
        }
        for server in all {
            close(server.lifeline)
            kill(-server.pid, SIGTERM)
            unlink(server.pidFile)
        }
    }

    /// Stops the servers of pid files whose hark has ended, if they still run (and are ours:
    /// their command line carries the marker, so a reused pid is left alone), and removes the
    /// files.
    static func cleanUp(_ folder: String) {
        for file in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where file.hasSuffix(".pid") {
            let path = folder + "/" + file
            let fields = (FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) } ?? "")
                .split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { pid_t($0) }
            guard fields.count == 2 else { unlink(path); continue }
            let (server, owner) = (fields[0], fields[1])
            if owner == getpid() || isAlive(owner) { continue }
            if isAlive(server), commandLine(of: server).contains(ServedModel.marker) {
                kill(-server, SIGTERM)
                kill(server, SIGTERM)
            }
            unlink(path)
        }
    }

    static func isAlive(_ pid: pid_t) -> Bool { kill(pid, 0) == 0 || errno == EPERM }

    /// Read with read(2): /proc files say they are empty, so a reader that trusts the size
    /// gets nothing.
    static func commandLine(of pid: pid_t) -> String {
        guard let file = PosixFile(readingAtPath: "/proc/\(pid)/cmdline") else { return "" }
        return String(decoding: file.read(count: 1 << 16).map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
    }
}
