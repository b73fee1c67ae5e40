/// One HTTP/1.1 request as a push notification arrives: the head parsed from the bytes read so
/// far, the body by its Content-Length. A plain struct fed bytes, so it is tested cut anywhere.
public struct PushRequest: Sendable, Equatable {
    public var method: String
    public var target: String
    /// Names lower-cased.
    public var headers: [String: String]
    public var body: [UInt8]

    public enum Failure: Error, Equatable {
        /// A status to answer with and why.
        case refuse(Int, String)
    }

    public static let headLimit = 16 << 10
    public static let bodyLimit = 4 << 20

    /// The whole request once `bytes` hold it; nil while more must be read.
    public static func parse(_ bytes: [UInt8]) throws -> PushRequest? {
        guard let end = headEnd(bytes) else {
            if bytes.count > headLimit { throw Failure.refuse(431, "the request head is too large") }
            return nil
        }
        let head = String(decoding: bytes[..<end], as: UTF8.self)
        var lines = head.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        let requestLine = lines.removeFirst().split(separator: " ").map(String.init)
        guard requestLine.count == 3, requestLine[2].hasPrefix("HTTP/1.") else { throw Failure.refuse(400, "not an HTTP/1.1 request") }
        var headers: [String: String] = [:]
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { throw Failure.refuse(400, "a header line without a colon") }
            headers[line[..<colon].trimmingSpaces.lowercased()] = line[line.index(after: colon)...].trimmingSpaces
        }
        if headers["transfer-encoding"] != nil { throw Failure.refuse(411, "send the body with a Content-Length") }
        let length = headers["content-length"].map { Int($0) } ?? 0
        guard let length, length >= 0 else { throw Failure.refuse(400, "Content-Length is not a number") }
        guard length <= bodyLimit else { throw Failure.refuse(413, "the body is larger than 4 MB") }
        let bodyStart = end + 4
        guard bytes.count >= bodyStart + length else { return nil }
        return PushRequest(method: requestLine[0], target: requestLine[1], headers: headers,
                           body: Array(bytes[bodyStart..<(bodyStart + length)]))
    }

    static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4) where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13
            && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }

    /// The token an A2A agent sends with a push: a2a-sdk (Python) sends
    /// `X-A2A-Notification-Token`, a2a-go `A2A-Notification-Token`; either is read.
    public var notificationToken: String? {
        headers["x-a2a-notification-token"] ?? headers["a2a-notification-token"]
    }

    /// A complete response with a short text body; the connection closes after it.
    public static func response(_ status: Int, _ text: String) -> [UInt8] {
        let reason = [200: "OK", 400: "Bad Request", 401: "Unauthorized", 405: "Method Not Allowed", 411: "Length Required",
                      413: "Content Too Large", 431: "Request Header Fields Too Large", 500: "Internal Server Error"][status] ?? "Error"
        let body = Array((text + "\n").utf8)
        return Array("HTTP/1.1 \(status) \(reason)\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n".utf8) + body
    }
}
