import FoundationEssentials
import Glibc

/// How long to wait, per phase. The first byte can take long (an n8n "last node" workflow
/// answers only when it ends); silence after that is a stall.
public struct HTTPTimeouts: Sendable, Equatable {
    public var connect: Double
    public var firstByte: Double
    public var idle: Double

    public init(connect: Double = 10, firstByte: Double = 300, idle: Double = 120) {
        self.connect = connect
        self.firstByte = firstByte
        self.idle = idle
    }
}

public struct MultipartPart: Sendable, Equatable {
    public enum Content: Sendable, Equatable {
        case text(String)
        case file(path: String)
        case bytes([UInt8])
    }

    public var name: String
    public var content: Content
    public var filename: String?
    public var contentType: String?

    public init(name: String, content: Content, filename: String? = nil, contentType: String? = nil) {
        self.name = name
        self.content = content
        self.filename = filename
        self.contentType = contentType
    }
}

public struct HTTPRequest: Sendable {
    public enum Body: Sendable {
        case none
        case bytes([UInt8])
        case multipart([MultipartPart])
    }

    public var method: String
    public var url: String
    public var headers: [(name: String, value: String)]
    public var body: Body
    public var timeouts: HTTPTimeouts
    /// How the server's certificate is checked: the session's `ca`, `pin` and `insecure`.
    public var tls: TLSOptions
    public var followRedirects: Bool

    public init(method: String = "GET", url: String, headers: [(name: String, value: String)] = [],
                body: Body = .none, timeouts: HTTPTimeouts = HTTPTimeouts(), insecure: Bool = false,
                tls: TLSOptions? = nil, followRedirects: Bool = false) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeouts = timeouts
        self.tls = tls ?? TLSOptions(insecure: insecure)
        self.followRedirects = followRedirects
    }

    /// Skip TLS verification: only when a session says `insecure = on`.
    public var insecure: Bool {
        get { tls.insecure }
        set { tls.insecure = newValue }
    }

    /// A POST of a JSON document.
    public static func json(_ method: String = "POST", url: String, body: JSON,
                            headers: [(name: String, value: String)] = [],
                            timeouts: HTTPTimeouts = HTTPTimeouts()) -> HTTPRequest {
        HTTPRequest(method: method, url: url, headers: [("Content-Type", "application/json")] + headers,
                    body: .bytes(JSONEncoding.bytes(body)), timeouts: timeouts)
    }

    // MARK: Header fields fit for the wire

    /// A field name is an RFC 9110 token: letters, digits and ``!#$%&'*+-.^_`|~``.
    public static func isHeaderName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    /// What makes a value unfit for a header line ("a line break", "a NUL"), nil when it is fit.
    /// CR and LF would end the line and let the rest be read as headers of their own (many
    /// servers end a line at a bare LF); NUL cuts C strings short. RFC 9110 §5.5 forbids all
    /// three in a field value.
    public static func headerValueProblem(_ value: String) -> String? {
        for byte in value.utf8 {
            if byte == 0x0A || byte == 0x0D { return "a line break" }
            if byte == 0 { return "a NUL character" }
        }
        return nil
    }

    /// Refuses a request any of whose header fields would not be one line of its own: checked
    /// where every request goes out (HTTPClient), whoever built the headers. Names the field,
    /// never its value (it may be a secret).
    public func checkHeaders() throws {
        for header in headers {
            guard Self.isHeaderName(header.name) else {
                throw HarkError.usage("refusing to send a header named \"\(MessageLine.name(header.name))\": "
                    + "not a valid HTTP header name")
            }
            if let problem = Self.headerValueProblem(header.value) {
                throw HarkError.usage("refusing to send the \(header.name) header: its value holds \(problem)")
            }
        }
    }

    /// The request line and header lines as hark's own transport writes them (headers checked
    /// by `checkHeaders` first). Headers with empty values are left out, as curl does.
    public func head(target: String, host: String, userAgent: String) -> [UInt8] {
        var text = "\(method) \(target) HTTP/1.1\r\n"
        let explicit = Set(headers.map { $0.name.lowercased() })
        if !explicit.contains("host") { text += "Host: \(host)\r\n" }
        if !explicit.contains("user-agent") { text += "User-Agent: \(userAgent)\r\n" }
        if !explicit.contains("accept") { text += "Accept: */*\r\n" }
        if !explicit.contains("accept-encoding") { text += "Accept-Encoding: gzip, deflate\r\n" }
        text += "Connection: close\r\n"
        for header in headers where !header.value.isEmpty {
            text += "\(header.name): \(header.value)\r\n"
        }
        if case .bytes(let bytes) = body {
            text += "Content-Length: \(bytes.count)\r\n"
        } else if method == "POST" || method == "PUT" || method == "PATCH" {
            text += "Content-Length: 0\r\n"
        }
        return Array((text + "\r\n").utf8)
    }

    /// Host and port for messages: never the path, query or credentials, which may hold secrets.
    public var displayHost: String { HTTPRequest.displayHost(of: url) }

    public static func displayHost(of url: String) -> String {
        guard let components = URLComponents(string: url), let host = components.host else { return "the server" }
        let bracketed = host.contains(":") ? "[\(host)]" : host
        return components.port.map { "\(bracketed):\($0)" } ?? bracketed
    }
}

public struct HTTPResponseHead: Sendable, Equatable {
    public var status: Int
    public var headers: [String: String]

    public init(status: Int, headers: [String: String]) {
        self.status = status
        self.headers = headers
    }

    /// Header names are stored lower-cased.
    public func header(_ name: String) -> String? { headers[name.lowercased()] }

    public var isSuccess: Bool { (200..<300).contains(status) }
}

public struct HTTPResponse: Sendable {
    public var head: HTTPResponseHead
    public var body: [UInt8]

    public var status: Int { head.status }
    public var text: String { String(decoding: body, as: UTF8.self) }
    public func json() throws -> JSON {
        do { return try JSON.parse(body) } catch {
            throw HarkError.protocolViolation("the server's answer is not JSON (\(error.description))")
        }
    }
}

public enum HTTPEvent: Sendable {
    case head(HTTPResponseHead)
    case body([UInt8])
}
