import Foundation

/// A request as the test server received it.
public struct TestRequest: Sendable {
    public var method: String
    public var target: String
    public var headers: [String: String]
    public var body: [UInt8]

    public var path: String { String(target.split(separator: "?", maxSplits: 1).first ?? "") }

    public var query: [String: String] {
        guard let mark = target.firstIndex(of: "?") else { return [:] }
        var result: [String: String] = [:]
        for pair in target[target.index(after: mark)...].split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            let key = parts[0].removingPercentEncoding ?? parts[0]
            let value = parts.count > 1 ? (parts[1].replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? parts[1]) : ""
            result[key] = value
        }
        return result
    }

    public func header(_ name: String) -> String? { headers[name.lowercased()] }
    public var text: String { String(decoding: body, as: UTF8.self) }
}

/// Writes a response onto the connection, in whatever shape a test needs: whole, chunked,
/// close-delimited, or raw bytes (for faults).
public final class ResponseWriter: @unchecked Sendable {
    let socket: Int32
    private(set) var closeAfter = false
    private var chunked = false
    public private(set) var clientGone = false

    init(socket: Int32) {
        self.socket = socket
    }

    @discardableResult
    public func writeRaw(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written <= 0 {
                clientGone = true
                return false
            }
            offset += written
        }
        return true
    }

    @discardableResult
    public func writeRaw(_ text: String) -> Bool { writeRaw(Array(text.utf8)) }

    private func head(status: Int, headers: [(String, String)]) -> String {
        var text = "HTTP/1.1 \(status) \(Self.reason(status))\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        return text
    }

    /// A complete response with Content-Length.
    public func send(status: Int = 200, headers: [(String, String)] = [], body: [UInt8] = []) {
        var text = head(status: status, headers: headers)
        text += "Content-Length: \(body.count)\r\n\r\n"
        writeRaw(Array(text.utf8) + body)
    }

    public func send(status: Int = 200, headers: [(String, String)] = [], text: String) {
        send(status: status, headers: headers, body: Array(text.utf8))
    }

    public func send(status: Int = 200, json: String, headers: [(String, String)] = []) {
        send(status: status, headers: [("Content-Type", "application/json")] + headers, body: Array(json.utf8))
    }

    /// Starts a chunked response; each `write` is one HTTP chunk sent at once.
    public func startChunked(status: Int = 200, headers: [(String, String)] = []) {
        chunked = true
        writeRaw(head(status: status, headers: headers) + "Transfer-Encoding: chunked\r\n\r\n")
    }

    /// Starts a body that ends when the connection closes (no length, no chunking).
    public func startUntilClose(status: Int = 200, headers: [(String, String)] = []) {
        closeAfter = true
        writeRaw(head(status: status, headers: headers) + "Connection: close\r\n\r\n")
    }

    @discardableResult
    public func write(_ bytes: [UInt8]) -> Bool {
        guard !bytes.isEmpty else { return !clientGone }
        if chunked {
            return writeRaw(Array((String(bytes.count, radix: 16) + "\r\n").utf8) + bytes + [0x0D, 0x0A])
        }
        return writeRaw(bytes)
    }

    @discardableResult
    public func write(_ text: String) -> Bool { write(Array(text.utf8)) }

    public func end() {
        if chunked { writeRaw("0\r\n\r\n") }
        chunked = false
    }

    /// Hands the connection to the caller (a WebSocket after its handshake): the server reads
    /// no further requests from it and closes it when the handler returns.
    public func takeOver() -> Int32 {
        closeAfter = true
        return socket
    }

    /// Drops the connection without finishing the response (a reset mid-stream).
    public func abort() {
        closeAfter = true
        var linger = linger(l_onoff: 1, l_linger: 0)
        setsockopt(socket, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
        shutdown(socket, Int32(SHUT_RDWR))
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 201: return "Created"
        case 204: return "No Content"
        case 302: return "Found"
        case 303: return "See Other"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 409: return "Conflict"
        case 422: return "Unprocessable Entity"
        case 429: return "Too Many Requests"
        case 500: return "Internal Server Error"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        default: return "Status"
        }
    }
}

/// A small HTTP/1.1 server on 127.0.0.1 for tests: real sockets, one thread per connection,
/// a handler that writes the response however the protocol under test needs.
public final class TestHTTPServer: @unchecked Sendable {
    public typealias Handler = @Sendable (TestRequest, ResponseWriter) -> Void

    public var port: Int { listener.port }
    private let listener: LoopbackListener
    private let handler: Handler
    private let lock = NSLock()
    private var recorded: [TestRequest] = []

    public var baseURL: String { "http://127.0.0.1:\(port)" }

    public var requests: [TestRequest] { lock.withLock { recorded } }

    public init(handler: @escaping Handler) throws {
        self.handler = handler
        listener = try LoopbackListener()
        listener.start(name: "test-http") { [self] client in serve(client) }
    }

    deinit { stop() }

    public func stop() { listener.stop() }

    private func serve(_ client: Int32) {
        var reader = SocketReader(socket: client)
        while let request = reader.readRequest() {
            lock.withLock { recorded.append(request) }
            let writer = ResponseWriter(socket: client)
            handler(request, writer)
            writer.end()
            if writer.closeAfter || writer.clientGone || request.header("connection")?.lowercased() == "close" { return }
        }
    }
}

public enum TestServerError: Error {
    case socket(Int32)
    case tls(String)
}

/// Reads HTTP requests off a socket: request line, headers, a Content-Length or chunked body.
struct SocketReader {
    let socket: Int32
    private var buffer: [UInt8] = []

    init(socket: Int32) {
        self.socket = socket
    }

    private mutating func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return false }
        buffer.append(contentsOf: chunk[0..<count])
        return true
    }

    private mutating func readLine() -> String? {
        while true {
            if let index = buffer.firstIndex(of: 0x0A) {
                var line = Array(buffer[0..<index])
                buffer.removeFirst(index + 1)
                if line.last == 0x0D { line.removeLast() }
                return String(decoding: line, as: UTF8.self)
            }
            guard fill() else { return nil }
        }
    }

    private mutating func readBytes(_ count: Int) -> [UInt8]? {
        while buffer.count < count { guard fill() else { return nil } }
        let bytes = Array(buffer[0..<count])
        buffer.removeFirst(count)
        return bytes
    }

    mutating func readRequest() -> TestRequest? {
        guard let requestLine = readLine(), !requestLine.isEmpty else { return nil }
        let parts = requestLine.split(separator: " ")
        guard parts.count >= 2 else { return nil }
        var headers: [String: String] = [:]
        while let line = readLine(), !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[name] = headers[name].map { $0 + ", " + value } ?? value
        }
        var body: [UInt8] = []
        if let length = headers["content-length"].flatMap(Int.init), length > 0 {
            guard let bytes = readBytes(length) else { return nil }
            body = bytes
        } else if headers["transfer-encoding"]?.lowercased() == "chunked" {
            while let sizeLine = readLine(), let size = Int(sizeLine.split(separator: ";")[0], radix: 16) {
                if size == 0 {
                    _ = readLine()
                    break
                }
                guard let bytes = readBytes(size) else { return nil }
                body += bytes
                _ = readLine()
            }
        }
        return TestRequest(method: String(parts[0]), target: String(parts[1]), headers: headers, body: body)
    }
}

/// A loopback port that is bound but not listening: connecting to it is refused, and no other
/// test can take it while this value lives.
public final class RefusingPort: @unchecked Sendable {
    private let fd: Int32
    public let port: Int
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    public init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.fd = fd
        port = try bindLoopback(fd)
    }

    deinit { close(fd) }
}

/// A listening socket on a free port of 127.0.0.1, and the port.
func listenOnLoopback() throws -> (Int32, Int) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw TestServerError.socket(errno) }
    var reuse: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
    let port = try bindLoopback(fd)
    guard listen(fd, 128) == 0 else {
        close(fd)
        throw TestServerError.socket(errno)
    }
    return (fd, port)
}

/// Binds a socket to a free port of 127.0.0.1 and returns the port; closes it on failure.
func bindLoopback(_ fd: Int32) throws -> Int {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard bound == 0 else {
        close(fd)
        throw TestServerError.socket(errno)
    }
    var actual = sockaddr_in()
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &actual) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return Int(UInt16(bigEndian: actual.sin_port))
}
