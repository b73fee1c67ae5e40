import FoundationEssentials
import Glibc

/// One plain-HTTP exchange over a socket of its own, on a thread of its own: hark's transport
/// for `http://` URLs (a local llama.cpp, n8n or Jenkins). Loading libcurl and the forty
/// libraries it links costs about ten milliseconds per process, more than a whole loopback
/// round trip; libcurl still carries https, proxies, redirects and multipart uploads.
final class NativeTransfer: @unchecked Sendable {
    let request: HTTPRequest
    let channel: HTTPBodyChannel
    private let userAgent: String
    private var wakePipe: [Int32] = [-1, -1]
    /// Guards the pipe's write end: a cancel may come after the transfer ended and closed it,
    /// and writing to a closed descriptor number could write into whatever file reuses it.
    private let wakeLock = Lock()
    private var wakeOpen = false

    init(request: HTTPRequest, channel: HTTPBodyChannel, userAgent: String) {
        self.request = request
        self.channel = channel
        self.userAgent = userAgent
    }

    /// Whether this transport can carry the request; otherwise libcurl does.
    static func canCarry(_ request: HTTPRequest) -> Bool {
        guard getenv("HARK_HTTP").map({ String(cString: $0) }) != "curl" else { return false }
        guard request.url.lowercased().hasPrefix("http://"), !request.followRedirects else { return false }
        if case .multipart = request.body { return false }
        // Proxies are libcurl's to speak.
        return request.proxy == nil
    }

    func start() {
        Threads.start(name: "hark-http") { [self] in
            let error = perform()
            channel.finish(throwing: error)
        }
    }

    private var host: String { request.displayHost }

    private func wake() {
        wakeLock.withLock {
            guard wakeOpen else { return }
            var byte: UInt8 = 1
            _ = write(wakePipe[1], &byte, 1)
        }
    }

    private func perform() -> Error? {
        guard pipe(&wakePipe) == 0 else { return HarkError.io("cannot create a pipe") }
        for fd in wakePipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC); _ = fcntl(fd, F_SETFL, O_NONBLOCK) }
        wakeLock.withLock { wakeOpen = true }
        channel.onCancel = { [weak self] in self?.wake() }
        var socket: Int32 = -1
        defer {
            if socket >= 0 { close(socket) }
            wakeLock.withLock {
                wakeOpen = false
                close(wakePipe[0])
                close(wakePipe[1])
            }
        }
        do {
            guard let components = URLComponents(string: request.url), let hostName = components.host else {
                throw HarkError.usage("the URL \(MessageLine.make(request.url, limit: 80)) is not a valid http URL")
            }
            socket = try connect(to: hostName, port: components.port ?? 80)
            try send(head(components: components) + body(), on: socket)
            try receive(on: socket)
            return nil
        } catch {
            return error
        }
    }

    // MARK: Connecting

    private func connect(to hostName: String, port: Int) throws -> Int32 {
        try TCPConnect.connect(to: hostName, port: port, host: host, timeout: request.timeouts.connect) { fd, events, deadline in
            try wait(fd, for: events, until: deadline, phase: .connect)
        }
    }

    // MARK: Sending

    private func head(components: URLComponents) -> [UInt8] {
        var target = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        if let query = components.percentEncodedQuery { target += "?" + query }
        return request.head(target: target, host: host, userAgent: userAgent)
    }

    private func body() -> [UInt8] {
        if case .bytes(let bytes) = request.body { return bytes }
        return []
    }

    private func send(_ bytes: [UInt8], on socket: Int32) throws {
        var offset = 0
        let deadline = Self.now() + request.timeouts.idle
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written > 0 {
                offset += written
            } else if written < 0 && (errno == EAGAIN || errno == EINTR) {
                _ = try wait(socket, for: Int16(POLLOUT), until: deadline, phase: .idle)
            } else {
                throw HarkError.network(host: host, reason: NetworkReason.reset)
            }
        }
    }

    // MARK: Receiving

    private func receive(on socket: Int32) throws {
        var parser = HTTPResponseParser(requestWasHead: request.method == "HEAD")
        var gzip: GzipDecoder?
        var sawByte = false
        // Reads of up to 512 KB: a fast stream arrives in a quarter of the reads 128 KB took,
        // and each read is one decoder step, one history commit and one terminal write.
        var buffer = [UInt8](repeating: 0, count: 512 * 1024)
        // Each read's body goes into a buffer of its own, handed to the consumer; buffers it
        // has read come back (HTTPBodyChannel.recycle), so a long reply reuses a few.
        var body = channel.spareBuffer(capacity: buffer.count)
        var deadline = Self.now() + request.timeouts.firstByte
        func push(body bytes: [UInt8]) throws {
            let decoded = try gzip.map { decoder in try bytes.withUnsafeBufferPointer { try decoder.decode($0) } } ?? bytes
            if !decoded.isEmpty, !channel.push(.body(decoded)) { throw CancellationError() }
        }
        while !parser.isDone {
            _ = try wait(socket, for: Int16(POLLIN), until: deadline, phase: sawByte ? .idle : .firstByte)
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count < 0 {
                if errno == EAGAIN || errno == EINTR { continue }
                throw HarkError.network(host: host, reason: sawByte ? NetworkReason.brokeMidReply : NetworkReason.reset)
            }
            let events: [HTTPResponseParser.Event]
            if count == 0 {
                do { events = try parser.finish() } catch let error as HarkError {
                    if case .network(_, let reason) = error { throw HarkError.network(host: host, reason: reason) }
                    throw error
                }
            } else {
                sawByte = true
                events = try buffer.withUnsafeBufferPointer {
                    try parser.feed(UnsafeBufferPointer(rebasing: $0[0..<count]), appendingBodyTo: &body)
                }
            }
            var ended = false
            for event in events {
                switch event {
                case .head(let head):
                    if let encoding = head.header("content-encoding")?.lowercased(), encoding == "gzip" || encoding == "deflate" {
                        gzip = try GzipDecoder()
                    }
                    guard channel.push(.head(head)) else { throw CancellationError() }
                case .body(let bytes):
                    try push(body: bytes)
                case .end:
                    ended = true
                }
            }
            // The read's body: after its heads, before its end.
            if !body.isEmpty {
                try push(body: body)
                body = channel.spareBuffer(capacity: buffer.count)
            }
            if ended { return }
            if count == 0 { return }
            deadline = Self.now() + request.timeouts.idle
        }
    }

    enum Phase { case connect, firstByte, idle }

    /// Waits until the socket is ready, the deadline passes (an error naming the phase), or the
    /// consumer cancels (CancellationError).
    /// While the consumer expects the server to be silent (`HTTPStream.expectQuiet`), the
    /// idle deadline moves with the clock, checked every quarter second.
    private func wait(_ socket: Int32, for events: Int16, until deadline: Double, phase: Phase) throws -> Bool {
        var deadline = deadline
        while true {
            if channel.cancelled { throw CancellationError() }
            let quiet = phase == .idle && channel.quietExpected
            if quiet { deadline = max(deadline, Self.now() + request.timeouts.idle) }
            let remaining = deadline - Self.now()
            if remaining <= 0 {
                switch phase {
                case .connect: throw HarkError.timeout(host: host, phase: "while connecting", seconds: request.timeouts.connect)
                case .firstByte:
                    throw HarkError.timeout(host: host, phase: "waiting for the first byte", seconds: request.timeouts.firstByte)
                case .idle: throw HarkError.timeout(host: host, phase: "with no data", seconds: request.timeouts.idle)
                }
            }
            var fds = [pollfd(fd: socket, events: events, revents: 0), pollfd(fd: wakePipe[0], events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 2, Int32(min(remaining * 1000 + 1, quiet ? 250 : 60_000)))
            if ready < 0 && errno != EINTR { throw HarkError.io("poll failed: \(String(cString: strerror(errno)))") }
            if fds[1].revents != 0 || channel.cancelled { throw CancellationError() }
            if fds[0].revents != 0 { return true }
        }
    }

    static func now() -> Double { Double(CurlTransfer.monotonicNanoseconds()) / 1e9 }
}

/// Opening a TCP connection without blocking past a deadline, shared by the HTTP transport
/// and the WebSocket client.
enum TCPConnect {
    /// Tries each address of `hostName` in turn; `wait` polls the connecting socket until the
    /// deadline (it may throw to cancel). Returns a non-blocking socket with TCP_NODELAY.
    static func connect(to hostName: String, port: Int, host: String, timeout: Double,
                        wait: (Int32, Int16, Double) throws -> Bool) throws -> Int32 {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV | AI_ADDRCONFIG
        var results: UnsafeMutablePointer<addrinfo>?
        let lookup = getaddrinfo(String(hostName.drop(while: { $0 == "[" }).reversed().drop(while: { $0 == "]" }).reversed()), String(port), &hints, &results)
        guard lookup == 0, let first = results else { throw HarkError.network(host: host, reason: "unknown host") }
        defer { freeaddrinfo(results) }
        let deadline = NativeTransfer.now() + timeout
        var lastError = ECONNREFUSED
        var address: UnsafeMutablePointer<addrinfo>? = first
        while let candidate = address {
            address = candidate.pointee.ai_next
            let fd = Glibc.socket(candidate.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
                | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard fd >= 0 else { continue }
            do {
                if Glibc.connect(fd, candidate.pointee.ai_addr, candidate.pointee.ai_addrlen) == 0 || errno == EINPROGRESS {
                    if try wait(fd, Int16(POLLOUT), deadline) {
                        var code: Int32 = 0
                        var length = socklen_t(MemoryLayout<Int32>.size)
                        getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length)
                        if code == 0 {
                            var on: Int32 = 1
                            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
                            return fd
                        }
                        lastError = code
                    }
                } else {
                    lastError = errno
                }
            } catch {
                close(fd)
                throw error
            }
            close(fd)
        }
        throw HarkError.network(host: host, reason: lastError == ECONNREFUSED ? NetworkReason.refused
            : String(cString: strerror(lastError)))
    }
}
