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
