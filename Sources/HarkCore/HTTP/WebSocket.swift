import CCurl
import FoundationEssentials
import Glibc

/// A WebSocket client connection (RFC 6455), written for n8n's chat socket and small enough
/// to read: the opening handshake (section 4), masked client frames, server frames joined
/// from fragments, pings answered with pongs, and the closing handshake. `ws://` goes over a
/// socket of hark's own; `wss://` (and any URL a proxy applies to) over a connection libcurl
/// opens with CONNECT_ONLY, so TLS checks are libcurl's, as for every https request.
///
/// One thread reads the connection and hands each message to `handler` as it arrives; `send`
/// may be called from any thread. The owner must `close` it.
public final class WebSocketClient: @unchecked Sendable {
    public enum Incoming: Sendable, Equatable {
        case text(String)
        case binary([UInt8])
        /// The server closed the connection: its close frame's code (nil without one) and reason.
        case closed(code: UInt16?, reason: String)
        /// The connection ended without a close frame (the server dropped it).
        case dropped
        /// The connection broke, or the server broke the protocol.
        case failed(HarkError)
    }

    /// Called on the reading thread, with the client (so it can answer at once, even before
    /// `connect` has returned it: a server may speak first).
    public typealias Handler = @Sendable (WebSocketClient, Incoming) -> Void

    let host: String
    private let transport: WebSocketTransport
    private let handler: Handler
    private let idleTimeout: Double
    private var reader = WebSocketFrameReader()
    /// Held while a whole frame is written, so frames from two threads never interleave.
    private let sendLock = Lock()
    /// Held around each call into the transport: libcurl (and TLS) may not read and write at
    /// once from two threads.
    private let ioLock = Lock()
    private let stateLock = Lock()
    private var closing = false
    private var wakePipe: [Int32] = [-1, -1]

    /// The GUID of RFC 6455 section 1.3, appended to the key before hashing.
    static let acceptGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// Connects to `request.url` (ws:// or wss://) with its headers and timeouts, shakes hands
    /// and starts reading.
    public static func connect(_ request: HTTPRequest, userAgent: String, transport: HTTPClient.Transport = .automatic,
                               handler: @escaping Handler) async throws -> WebSocketClient {
        BrokenPipes.ignore()
        return try await withCheckedThrowingContinuation { continuation in
            Threads.start(name: "hark-websocket") {
                let client: WebSocketClient
                do {
                    client = try WebSocketClient(request: request, userAgent: userAgent, viaCurl: transport == .curl,
                                                 handler: handler)
                } catch {
                    continuation.resume(throwing: error)
                    return
                }
                continuation.resume(returning: client)
                client.readUntilClosed()
            }
        }
    }

    /// Opens the connection and completes the handshake, on the calling thread.
    private init(request: HTTPRequest, userAgent: String, viaCurl: Bool, handler: @escaping Handler) throws {
        host = request.displayHost
        self.handler = handler
        idleTimeout = request.timeouts.idle
        guard let components = URLComponents(string: request.url), let scheme = components.scheme?.lowercased(),
              scheme == "ws" || scheme == "wss", let hostName = components.host else {
            throw HarkError.usage("the URL \(request.url.prefix(80)) is not a valid ws:// or wss:// URL")
        }
        let secure = scheme == "wss"
        let port = components.port ?? (secure ? 443 : 80)
        if secure || viaCurl || request.proxy != nil || getenv("HARK_HTTP").map({ String(cString: $0) }) == "curl" {
            var httpRequest = request
            httpRequest.url = (secure ? "https" : "http") + request.url.dropFirst(secure ? 3 : 2)
            transport = try CurlConnection(request: httpRequest, userAgent: userAgent, host: host)
        } else {
            let host = self.host
            let fd = try TCPConnect.connect(to: hostName, port: port, host: host, timeout: request.timeouts.connect) { fd, events, deadline in
                try Self.poll(fd, events, until: deadline, host: host, phase: "while connecting", seconds: request.timeouts.connect)
            }
            transport = SocketConnection(fd: fd, host: host)
        }
        guard pipe(&wakePipe) == 0 else {
            transport.close()
            throw HarkError.io("cannot create a pipe")
        }
        for fd in wakePipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC); _ = fcntl(fd, F_SETFL, O_NONBLOCK) }
        do {
            try handshake(request: request, components: components, userAgent: userAgent)
        } catch {
            transport.close()
            for fd in wakePipe { Glibc.close(fd) }
            throw error
        }
    }

    // MARK: The opening handshake

    private func handshake(request: HTTPRequest, components: URLComponents, userAgent: String) throws {
        let key = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        var target = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        if let query = components.percentEncodedQuery { target += "?" + query }
        var head = "GET \(target) HTTP/1.1\r\nHost: \(host)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        head += "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\nUser-Agent: \(userAgent)\r\n"
        for header in request.headers where !header.value.isEmpty { head += "\(header.name): \(header.value)\r\n" }
        try write(Array((head + "\r\n").utf8), timeout: request.timeouts.connect)

        // The answer's head, up to its blank line; what follows it is already frames.
        let deadline = NativeTransfer.now() + request.timeouts.connect
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var headEnd: Int?
        while headEnd == nil {
            guard let count = try receive(&buffer) else {
                _ = try Self.poll(transport.descriptor, Int16(POLLIN), until: deadline, host: host,
                                  phase: "waiting for the WebSocket handshake", seconds: request.timeouts.connect)
                continue
            }
            guard count > 0 else { throw HarkError.network(host: host, reason: NetworkReason.closedWithoutAnswer) }
            received += buffer[0..<count]
            headEnd = Self.endOfHead(received)
            if headEnd == nil && received.count > 64 * 1024 {
                throw HarkError.protocolViolation("\(host) sent no HTTP answer to the WebSocket handshake")
            }
        }
        let (status, headers) = try Self.parseHead(Array(received[..<headEnd!]), host: host)
        let rest = Array(received[headEnd!...])
        guard status == 101 else {
            throw ServerMessage.error(status: status, host: host, body: rest, contentType: headers["content-type"])
        }
        let expected = Data(SHA1.digest(Array((key + Self.acceptGUID).utf8))).base64EncodedString()
        guard headers["upgrade"]?.lowercased() == "websocket",
              headers["connection"]?.lowercased().split(separator: ",").contains(where: { $0.trimmingSpaces == "upgrade" }) == true,
              headers["sec-websocket-accept"] == expected else {
            throw HarkError.protocolViolation("\(host) did not accept the WebSocket handshake (RFC 6455)")
        }
        if !rest.isEmpty { try readFrames(rest) }
    }

    static func endOfHead(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 0x0D && bytes[index + 1] == 0x0A && bytes[index + 2] == 0x0D && bytes[index + 3] == 0x0A {
            return index + 4
        }
        return nil
    }

    static func parseHead(_ head: [UInt8], host: String) throws -> (Int, [String: String]) {
        let lines = String(decoding: head, as: UTF8.self).split(separator: "\r\n")
        let statusLine = lines.first.map { $0.split(separator: " ") } ?? []
        guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/"), let status = Int(statusLine[1]) else {
            throw HarkError.protocolViolation("\(host) did not answer the WebSocket handshake in HTTP")
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingSpaces
        }
        return (status, headers)
    }

    // MARK: Sending

    /// Sends one text message.
    public func send(text: String) throws {
        try send(.text, Array(text.utf8))
    }

    private func send(_ opcode: WebSocketOpcode, _ payload: [UInt8]) throws {
        guard !stateLock.withLock({ closing }) || opcode == .close else {
            throw HarkError.network(host: host, reason: "the chat connection is closed")
        }
        try write(WebSocketFrames.clientFrame(opcode, payload, mask: WebSocketFrames.randomMask()), timeout: idleTimeout)
    }

    private func write(_ bytes: [UInt8], timeout: Double) throws {
        try sendLock.withLock {
            var offset = 0
            let deadline = NativeTransfer.now() + timeout
            while offset < bytes.count {
                let written = try bytes[offset...].withUnsafeBytes { chunk in try ioLock.withLock { try transport.send(chunk) } }
                if let written {
                    offset += written
                } else {
                    _ = try Self.poll(transport.descriptor, Int16(POLLOUT), until: deadline, host: host,
                                      phase: "sending", seconds: timeout)
                }
            }
        }
    }

    // MARK: Receiving

    private func receive(_ buffer: inout [UInt8]) throws -> Int? {
        try buffer.withUnsafeMutableBytes { bytes in try ioLock.withLock { try transport.receive(bytes) } }
    }

    /// The reading thread: until the server closes, the connection breaks or `close` is called.
    private func readUntilClosed() {
        defer {
            transport.close()
            for fd in wakePipe { Glibc.close(fd) }
        }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while !stateLock.withLock({ closing }) {
            do {
                guard let count = try receive(&buffer) else {
                    var fds = [pollfd(fd: transport.descriptor, events: Int16(POLLIN), revents: 0),
                               pollfd(fd: wakePipe[0], events: Int16(POLLIN), revents: 0)]
                    if Glibc.poll(&fds, 2, -1) < 0 && errno != EINTR {
                        throw HarkError.io("poll failed: \(String(cString: strerror(errno)))")
                    }
                    continue
                }
                guard count > 0 else {
                    // The end of the stream without a close frame: the server dropped it.
                    finish(.dropped)
                    return
                }
                if try readFrames(Array(buffer[0..<count])) { return }
            } catch let violation as WebSocketViolation {
                try? send(.close, WebSocketFrames.closeBody(code: violation.code))
                finish(.failed(.protocolViolation("\(host): \(violation.reason)")))
                return
            } catch let error as HarkError {
                finish(.failed(error))
                return
            } catch {
                finish(.failed(.network(host: host, reason: "\(error)")))
                return
            }
        }
    }

    /// Decodes frames and acts on them; true when the server's close frame came.
    @discardableResult
    private func readFrames(_ bytes: [UInt8]) throws -> Bool {
        var events: [WebSocketEvent] = []
        try reader.feed(bytes, into: &events)
        for event in events {
            switch event {
            case .text(let text): handler(self, .text(text))
            case .binary(let data): handler(self, .binary(data))
            case .ping(let payload): try send(.pong, payload)
            case .pong: break
            case .close(let code, let reason):
                // Section 5.5.1: answer with a close frame echoing the code, then stop reading.
                try? send(.close, code.map { WebSocketFrames.closeBody(code: $0) } ?? [])
                finish(.closed(code: code, reason: reason))
                return true
            }
        }
        return false
    }

    /// Reports the end once, unless hark itself closed the connection.
    private func finish(_ end: Incoming) {
        let report = stateLock.withLock { () -> Bool in
            defer { closing = true }
            return !closing
        }
        if report { handler(self, end) }
    }

    /// Closes the connection: a close frame (1000, normal closure) and the socket. Nothing is
    /// reported to the handler after this.
    public func close(code: UInt16 = 1000) {
        let wasOpen = stateLock.withLock { () -> Bool in
            defer { closing = true }
            return !closing
        }
        guard wasOpen else { return }
        try? send(.close, WebSocketFrames.closeBody(code: code))
        var byte: UInt8 = 1
        _ = Glibc.write(wakePipe[1], &byte, 1)
    }

    /// Waits until the descriptor is ready, or throws a timeout naming the phase.
    static func poll(_ fd: Int32, _ events: Int16, until deadline: Double, host: String, phase: String,
                     seconds: Double) throws -> Bool {
        while true {
            let remaining = deadline - NativeTransfer.now()
            guard remaining > 0 else { throw HarkError.timeout(host: host, phase: phase, seconds: seconds) }
            var descriptor = pollfd(fd: fd, events: events, revents: 0)
            let ready = Glibc.poll(&descriptor, 1, Int32(min(remaining * 1000 + 1, 60_000)))
            if ready < 0 && errno != EINTR { throw HarkError.io("poll failed: \(String(cString: strerror(errno)))") }
            if ready > 0 { return true }
        }
    }
}

/// The bytes under a WebSocket, read and written without blocking.
protocol WebSocketTransport: AnyObject {
    /// What to poll for readiness.
    var descriptor: Int32 { get }
    /// Bytes read into `buffer`; 0 at the end of the stream; nil when none are there yet.
    func receive(_ buffer: UnsafeMutableRawBufferPointer) throws -> Int?
    /// Bytes written; nil when the connection cannot take any now.
    func send(_ bytes: UnsafeRawBufferPointer) throws -> Int?
    func close()
}

/// A plain TCP socket (ws://).
final class SocketConnection: WebSocketTransport {
    let descriptor: Int32
    private let host: String

    init(fd: Int32, host: String) {
        descriptor = fd
        self.host = host
    }

    func receive(_ buffer: UnsafeMutableRawBufferPointer) throws -> Int? {
        let count = recv(descriptor, buffer.baseAddress, buffer.count, 0)
        if count >= 0 { return count }
        if errno == EAGAIN || errno == EINTR { return nil }
        throw HarkError.network(host: host, reason: NetworkReason.reset)
    }

    func send(_ bytes: UnsafeRawBufferPointer) throws -> Int? {
        let count = Glibc.send(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
        if count >= 0 { return count }
        if errno == EAGAIN || errno == EINTR { return nil }
        throw HarkError.network(host: host, reason: NetworkReason.reset)
    }

    func close() { Glibc.close(descriptor) }
}

/// A connection libcurl opened and left to hark (CURLOPT_CONNECT_ONLY): TLS, proxies and
/// certificate checks as for any https request, then raw bytes through curl_easy_send/recv.
final class CurlConnection: WebSocketTransport {
    private let easy: UnsafeMutableRawPointer
    let descriptor: Int32
    private let host: String

    init(request: HTTPRequest, userAgent: String, host: String) throws {
        self.host = host
        try CurlTransfer.loadLibrary()
        guard let easy = hark_curl_easy_init() else { throw HarkError.io("libcurl could not start a connection") }
        do {
            try CurlTransfer.setConnectionOptions(easy, request: request, userAgent: userAgent)
        } catch {
            hark_curl_easy_cleanup(easy)
            throw error
        }
        hark_curl_setopt_long(easy, CURLOPT_CONNECT_ONLY, 1)
        // Through a proxy the upgrade must reach the server itself: a CONNECT tunnel, for
        // ws:// as for wss://.
        if request.proxy != nil { hark_curl_setopt_long(easy, CURLOPT_HTTPPROXYTUNNEL, 1) }
        let code = hark_curl_easy_perform(easy)
        var socket: curl_socket_t = -1
        guard code == CURLE_OK, hark_curl_getinfo_socket(easy, CURLINFO_ACTIVESOCKET, &socket) == CURLE_OK, socket >= 0 else {
            var connectCode = 0
            hark_curl_getinfo_long(easy, CURLINFO_HTTP_CONNECTCODE, &connectCode)
            hark_curl_easy_cleanup(easy)
            throw CurlTransfer.describe(code == CURLE_OK ? CURLE_COULDNT_CONNECT : code, request: request, sawFirstByte: false,
                                        connectCode: connectCode)
        }
        self.easy = easy
        descriptor = socket
    }

    func receive(_ buffer: UnsafeMutableRawBufferPointer) throws -> Int? {
        var count = 0
        let code = hark_curl_easy_recv(easy, buffer.baseAddress, buffer.count, &count)
        if code == CURLE_AGAIN { return nil }
        guard code == CURLE_OK else { throw HarkError.network(host: host, reason: NetworkReason.reset) }
        return count
    }

    func send(_ bytes: UnsafeRawBufferPointer) throws -> Int? {
        var count = 0
        let code = hark_curl_easy_send(easy, bytes.baseAddress, bytes.count, &count)
        if code == CURLE_AGAIN { return nil }
        guard code == CURLE_OK else { throw HarkError.network(host: host, reason: NetworkReason.reset) }
        return count
    }

    func close() { hark_curl_easy_cleanup(easy) }
}
