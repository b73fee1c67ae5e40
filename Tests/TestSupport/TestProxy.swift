import Foundation

/// A forward HTTP proxy on loopback, recording what passes, as squid and tinyproxy behave:
/// `CONNECT host:port` opens a tunnel (RFC 9110 section 9.3.6; "200 Connection established",
/// then bytes both ways) and a request in absolute form (`GET http://host:port/path`, RFC 9112
/// section 3.2.2) is sent on to the origin in origin form. A proxy that wants credentials
/// answers 407 with `Proxy-Authenticate: Basic` (RFC 9110 section 11.7.1), and one whose rules
/// forbid a tunnel answers it 502, as squid's `http_access deny CONNECT` and tinyproxy's
/// `ConnectPort` do with 403/502.
///
/// Names in `.test` never resolve (RFC 6761), and the proxy alone maps `origin.test` to the
/// loopback test servers: a request to `origin.test` that arrives went through the proxy.
public final class TestProxy: @unchecked Sendable {
    public enum Mode: Sendable {
        case forward
        case refuseTunnels(status: Int)
        case requireCredentials(user: String, password: String)
    }

    public static let originHost = "origin.test"

    public var port: Int { listener.port }
    private let mode: Mode
    private let listener: LoopbackListener
    private let lock = NSLock()
    private var lines: [String] = []
    private var authorizations: [String] = []

    /// `http://127.0.0.1:PORT`, for `proxy =` and `http_proxy`.
    public var url: String { "http://127.0.0.1:\(port)" }
    /// How hark names it in errors.
    public var display: String { "127.0.0.1:\(port)" }
    /// Every request line received: `CONNECT origin.test:443 HTTP/1.1`, `GET http://… HTTP/1.1`.
    public var seen: [String] { lock.withLock { lines } }
    /// The `Proxy-Authorization` values received.
    public var credentials: [String] { lock.withLock { authorizations } }

    public init(mode: Mode = .forward) throws {
        self.mode = mode
        listener = try LoopbackListener()
        listener.start(name: "test-proxy") { [self] client in serve(client) }
    }

    deinit { stop() }

    public func stop() { listener.stop() }

    private func serve(_ client: Int32) {
        guard let (head, rest) = Self.readHead(client) else { return }
        let headLines = head.components(separatedBy: "\r\n")
        let requestLine = headLines[0]
        let parts = requestLine.split(separator: " ").map(String.init)
        guard parts.count == 3 else { return }
        let authorization = headLines.dropFirst().first { $0.lowercased().hasPrefix("proxy-authorization:") }
            .map { String($0.dropFirst("proxy-authorization:".count)).trimmingCharacters(in: .whitespaces) }
        lock.withLock {
            lines.append(requestLine)
            if let authorization { authorizations.append(authorization) }
        }
        if case .requireCredentials(let user, let password) = mode,
           authorization != "Basic " + Data("\(user):\(password)".utf8).base64EncodedString() {
            reply(client, "407 Proxy Authentication Required", extra: "Proxy-Authenticate: Basic realm=\"test proxy\"\r\n")
            return
        }
        if parts[0] == "CONNECT" {
            if case .refuseTunnels(let status) = mode {
                reply(client, "\(status) \(status == 403 ? "Forbidden" : "Bad Gateway")")
                return
            }
            guard let origin = Self.connect(toAuthority: parts[1]) else {
                reply(client, "502 Bad Gateway")
                return
            }
            defer { close(origin) }
            guard Self.write(client, Array("HTTP/1.1 200 Connection established\r\n\r\n".utf8)) else { return }
            if !rest.isEmpty { guard Self.write(origin, rest) else { return } }
            Self.splice(client, origin)
        } else {
            guard let target = URLComponents(string: parts[1]), target.scheme == "http", let host = target.host,
                  let origin = Self.connect(toAuthority: "\(host):\(target.port ?? 80)") else {
                reply(client, "502 Bad Gateway")
                return
            }
            defer { close(origin) }
            var path = target.percentEncodedPath.isEmpty ? "/" : target.percentEncodedPath
            if let query = target.percentEncodedQuery { path += "?" + query }
            // One request per connection keeps the tunnel of bytes simple: the origin closes
            // after its answer, and so does the proxy.
            let headers = headLines.dropFirst().filter { line in
                let name = line.lowercased()
                return !name.hasPrefix("proxy-") && !name.hasPrefix("connection:")
            }
            let forwarded = (["\(parts[0]) \(path) \(parts[2])"] + headers + ["Connection: close", "", ""]).joined(separator: "\r\n")
            guard Self.write(origin, Array(forwarded.utf8) + rest) else { return }
            Self.splice(client, origin)
        }
    }

    private func reply(_ client: Int32, _ status: String, extra: String = "") {
        _ = Self.write(client, Array("HTTP/1.1 \(status)\r\n\(extra)Content-Length: 0\r\nConnection: close\r\n\r\n".utf8))
    }

    /// The request head up to its blank line, and any bytes read past it.
    private static func readHead(_ fd: Int32) -> (String, [UInt8])? {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        let marker: [UInt8] = [13, 10, 13, 10]
        while received.count < 64 * 1024 {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return nil }
            received += chunk[0..<count]
            if let end = received.indices.dropLast(3).first(where: { Array(received[$0..<($0 + 4)]) == marker }) {
                return (String(decoding: received[..<end], as: UTF8.self), Array(received[(end + 4)...]))
            }
        }
        return nil
    }

    /// A connection to `host:port`, with `origin.test` and loopback names meaning this machine.
    private static func connect(toAuthority authority: String) -> Int32? {
        guard let colon = authority.lastIndex(of: ":"), let port = UInt16(authority[authority.index(after: colon)...]) else { return nil }
        let host = authority[..<colon].lowercased()
        guard host == originHost || host == "localhost" || host.hasPrefix("127.") else { return nil }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            return nil
        }
        return fd
    }

    private static func write(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    /// Bytes both ways until either side closes.
    private static func splice(_ a: Int32, _ b: Int32) {
        var fds = [pollfd(fd: a, events: Int16(POLLIN), revents: 0), pollfd(fd: b, events: Int16(POLLIN), revents: 0)]
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            guard poll(&fds, 2, -1) > 0 else {
                if errno == EINTR { continue }
                return
            }
            for (index, entry) in fds.enumerated() where entry.revents != 0 {
                let count = buffer.withUnsafeMutableBytes { recv(entry.fd, $0.baseAddress, $0.count, 0) }
                guard count > 0, write(fds[1 - index].fd, Array(buffer[0..<count])) else { return }
            }
        }
    }
}
