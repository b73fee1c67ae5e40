import FoundationEssentials
import Glibc

/// One cookie the gateway set, with the attributes that decide where it goes back.
public struct Cookie: Sendable, Equatable {
    public var name: String
    public var value: String
    public var path: String
    /// Seconds since 1970; nil for a session cookie.
    public var expires: Double?
    public var secure: Bool
}

/// The gateway's cookies, read from `Set-Cookie` headers (RFC 6265, for the one host a
/// session talks to) and sent back as one `Cookie` header. hark keeps no cookie engine in
/// libcurl: the jar is plain data, saved in a private file, never in the history.
public struct CookieJar: Sendable, Equatable {
    public private(set) var cookies: [Cookie] = []

    public init(cookies: [Cookie] = []) {
        self.cookies = cookies
    }

    public var isEmpty: Bool { cookies.isEmpty }

    /// Whether any cookie is still valid: a saved login whose cookies have all expired sends
    /// none, and the gateway answers 401.
    public func hasLiveCookie(now: Date) -> Bool {
        cookies.contains { cookie in cookie.expires.map { $0 > now.timeIntervalSince1970 } ?? true }
    }

    /// Takes every cookie of a response's `set-cookie` header (values joined by "\n").
    /// Returns true when the jar changed.
    @discardableResult
    public mutating func absorb(_ header: String, requestPath: String, now: Date) -> Bool {
        let before = cookies
        for line in header.split(separator: "\n") {
            guard let cookie = Self.parse(String(line), requestPath: requestPath, now: now) else { continue }
            let existing = cookies.firstIndex { $0.name == cookie.name && $0.path == cookie.path }
            if let expires = cookie.expires, expires <= now.timeIntervalSince1970 {  // a deletion
                if let existing { cookies.remove(at: existing) }
            } else if let existing {
                cookies[existing] = cookie
            } else {
                cookies.append(cookie)
            }
        }
        return cookies != before
    }

    /// The `Cookie` header for a request, or nil when no cookie applies. Longer paths first.
    public func header(path: String, secureChannel: Bool, now: Date) -> String? {
        let matching = cookies.filter { cookie in
            (cookie.expires.map { $0 > now.timeIntervalSince1970 } ?? true)
                && (!cookie.secure || secureChannel) && Self.pathMatches(path, cookie.path)
        }.sorted { $0.path.count > $1.path.count }
        guard !matching.isEmpty else { return nil }
        return matching.map { $0.name + "=" + $0.value }.joined(separator: "; ")
    }

    static func parse(_ line: String, requestPath: String, now: Date) -> Cookie? {
        let parts = line.split(separator: ";", omittingEmptySubsequences: false)
        guard let pair = parts.first, let equals = pair.firstIndex(of: "=") else { return nil }
        let name = pair[..<equals].trimmingSpaces
        var value = pair[pair.index(after: equals)...].trimmingSpaces
        if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
        guard !name.isEmpty else { return nil }
        SecretValues.remember(value, atLeast: 16)  // a session cookie is as good as the password
        var cookie = Cookie(name: name, value: value, path: defaultPath(requestPath), expires: nil, secure: false)
        var maxAge: Double?
        for attribute in parts.dropFirst() {
            let pieces = attribute.split(separator: "=", maxSplits: 1).map { $0.trimmingSpaces }
            let key = pieces.first?.lowercased() ?? ""
            let argument = pieces.count > 1 ? pieces[1] : ""
            switch key {
            case "path" where argument.hasPrefix("/"): cookie.path = argument
            case "secure": cookie.secure = true
            case "max-age":
                if let seconds = Double(argument) { maxAge = seconds }
            case "expires":
                if cookie.expires == nil, let date = HTTPDate.parse(argument) { cookie.expires = date.timeIntervalSince1970 }
            default: break
            }
        }
        // Max-Age wins over Expires.
        if let maxAge { cookie.expires = maxAge <= 0 ? 0 : now.timeIntervalSince1970 + maxAge }
        return cookie
    }

    /// RFC 6265 5.1.4: the request path up to its last "/".
    static func defaultPath(_ requestPath: String) -> String {
        guard requestPath.hasPrefix("/"), let slash = requestPath.lastIndex(of: "/"), slash != requestPath.startIndex else {
            return "/"
        }
        return String(requestPath[..<slash])
    }

    static func pathMatches(_ requestPath: String, _ cookiePath: String) -> Bool {
        if requestPath == cookiePath { return true }
        guard requestPath.hasPrefix(cookiePath) else { return false }
        return cookiePath.hasSuffix("/") || requestPath.dropFirst(cookiePath.count).hasPrefix("/")
    }

    // MARK: Storage

    var json: JSON {
        .array(cookies.map { cookie in
            var object: [String: JSON] = ["name": .string(cookie.name), "value": .string(cookie.value),
                                          "path": .string(cookie.path), "secure": .bool(cookie.secure)]
            if let expires = cookie.expires { object["expires"] = .number(expires) }
            return .object(object)
        })
    }

    init(json: JSON) {
        cookies = (json.array ?? []).compactMap { item in
            guard let name = item["name"]?.string, let value = item["value"]?.string else { return nil }
            return Cookie(name: name, value: value, path: item["path"]?.string ?? "/", expires: item["expires"]?.double,
                          secure: item["secure"]?.bool ?? false)
        }
    }
}
