import FoundationEssentials

/// Where a session's proxy comes from: its `proxy` setting (or `[hark]`'s), else the
/// environment's variables.
public enum ProxySetting: Sendable, Equatable {
    static let schemes = ["http", "https", "socks4", "socks4a", "socks5", "socks5h"]

    /// `http_proxy`, `https_proxy`, `all_proxy` and `no_proxy`, read as curl reads them.
    case environment
    /// `proxy = none`: always straight to the server.
    case direct
    /// `proxy = URL`: this proxy for every request of the session (`no_proxy` still applies).
    case through(String)

    /// Checks `proxy` as a user wrote it: `none`, or a proxy URL hark (through libcurl) can use.
    public static func parse(_ text: String?, session: String) throws -> ProxySetting {
        guard let text = text?.trimmingSpaces, !text.isEmpty else { return .environment }
        if let problem = problem(with: text) { throw HarkError.badSetting(session: session, problem: "proxy \(problem)") }
        if ["none", "off", "direct"].contains(text.lowercased()) { return .direct }
        return .through(text.contains("://") ? text : "http://" + text)
    }

    /// Why `text` is no `proxy` value, as the end of a sentence starting "proxy", or nil.
    static func problem(with text: String) -> String? {
        let text = text.trimmingSpaces
        if text.isEmpty || ["none", "off", "direct"].contains(text.lowercased()) { return nil }
        let withScheme = text.contains("://") ? text : "http://" + text
        guard let components = URLComponents(string: withScheme), let scheme = components.scheme?.lowercased(),
              schemes.contains(scheme), let host = components.host, !host.isEmpty else {
            return "must be none or a proxy URL such as http://proxy.example:3128 "
                + "(schemes: \(schemes.joined(separator: ", "))), not \"\(MessageLine.make(text, limit: 60))\""
        }
        guard components.password == nil else {
            return "must not hold the proxy's password; set proxy_auth = basic:USER:env:VAR (or file:/cmd:) instead"
        }
        return nil
    }
}

/// `proxy_auth` as written (`basic:USER:SECRET`), checked when the session is read and resolved
/// only when a connection through the proxy is made.
public struct ProxyCredentials: Sendable, Equatable {
    public var spec: String

    public init(spec: String) {
        self.spec = spec
    }
}
