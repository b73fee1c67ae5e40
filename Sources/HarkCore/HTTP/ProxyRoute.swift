import FoundationEssentials
import Glibc
import CCurl

/// Which proxy a request goes through. The rules are curl's (lib/url.c `detect_proxy`,
/// lib/noproxy.c), so that hark and `curl` agree on the same machine:
/// - the scheme's variable first (`http_proxy`, lowercase only, as curl refuses `HTTP_PROXY`
///   for the CGI "httpoxy" reason; `https_proxy` then `HTTPS_PROXY`), then `all_proxy`/`ALL_PROXY`;
///   a WebSocket's `ws`/`wss` counts as `http`/`https`;
/// - `no_proxy` (else `NO_PROXY`): `*` alone for every host; otherwise names separated by commas
///   or spaces, each matching the host itself and every name below it (`example.com` and
///   `.example.com` both match `www.example.com`, never `notexample.com`), and for a host given
///   as an IP address, addresses and CIDR ranges (`10.0.0.0/8`, `fd00::/8`).
/// One difference, kept from before proxies were read at all: `localhost`, `127.0.0.1` and `::1`
/// always go direct, as a proxy can never reach the user's own loopback. Other loopback
/// addresses (`127.0.0.2`) follow the rules, as in curl.
public enum ProxyRoute {
    /// The proxy URL to go through, or nil to connect directly.
    public static func proxy(for url: String, setting: ProxySetting,
                             environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        guard let components = URLComponents(string: url), var scheme = components.scheme?.lowercased(),
              let host = components.host else { return nil }
        if scheme == "ws" { scheme = "http" }
        if scheme == "wss" { scheme = "https" }
        let chosen: String?
        switch setting {
        case .direct: return nil
        case .through(let proxy): chosen = proxy
        case .environment:
            chosen = variable(scheme == "http" ? ["http_proxy"] : ["\(scheme)_proxy", "\(scheme.uppercased())_PROXY"], in: environment)
                ?? variable(["all_proxy", "ALL_PROXY"], in: environment)
        }
        guard let chosen else { return nil }
        let name = host.lowercased()
        if ["localhost", "127.0.0.1", "::1", "[::1]"].contains(name) { return nil }
        if let exclusions = variable(["no_proxy", "NO_PROXY"], in: environment), bypasses(host: name, noProxy: exclusions) {
            return nil
        }
        return chosen
    }

    /// Whether `no_proxy` sends `host` direct.
    static func bypasses(host: String, noProxy: String) -> Bool {
        let list = noProxy.trimmingSpaces
        if list == "*" { return true }
        var name = host.lowercased()
        if name.hasPrefix("[") && name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name.hasSuffix(".") { name.removeLast() }
        let address = IPAddress(name)
        for raw in list.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" }) {
            var token = raw.lowercased()
            if let address {
                if address.isIn(token) { return true }
                continue
            }
            if token.hasPrefix(".") { token.removeFirst() }
            if token.hasSuffix(".") { token.removeLast() }
            guard !token.isEmpty else { continue }
            if name == token || name.hasSuffix("." + token) { return true }
        }
        return false
    }

    /// host:port of a proxy URL, without credentials: how errors name it.
    public static func display(_ proxy: String) -> String {
        guard let components = URLComponents(string: proxy), let host = components.host else { return proxy }
        // curl's default proxy port is 1080, 443 for an HTTPS proxy.
        let port = components.port ?? (components.scheme?.lowercased() == "https" ? 443 : 1080)
        return "\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }

    private static func variable(_ names: [String], in environment: [String: String]) -> String? {
        for name in names {
            if let value = environment[name]?.trimmingSpaces, !value.isEmpty { return value }
        }
        return nil
    }
}

/// An IPv4 or IPv6 address as bytes, for `no_proxy`'s address and CIDR entries.
struct IPAddress {
    let bytes: [UInt8]

    init?(_ text: String) {
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            bytes = withUnsafeBytes(of: v4) { Array($0) }
        } else if inet_pton(AF_INET6, text, &v6) == 1 {
            bytes = withUnsafeBytes(of: v6) { Array($0) }
        } else {
            return nil
        }
    }

    /// Whether this address is `entry` (an address) or inside it (`address/bits`).
    func isIn(_ entry: String) -> Bool {
        let parts = entry.split(separator: "/", maxSplits: 1)
        var text = String(parts.first ?? "")
        if text.hasPrefix("[") && text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        guard let network = IPAddress(text), network.bytes.count == bytes.count else { return false }
        let bits = parts.count == 2 ? Int(parts[1]) ?? -1 : bytes.count * 8
        guard bits >= 0, bits <= bytes.count * 8 else { return false }
        for index in 0..<bytes.count {
            let remaining = bits - index * 8
            if remaining <= 0 { break }
            let mask: UInt8 = remaining >= 8 ? 0xFF : UInt8(0xFF) << (8 - remaining)
            if bytes[index] & mask != network.bytes[index] & mask { return false }
        }
        return true
    }
}

extension HTTPRequest {
    /// The proxy this request goes through, or nil for a direct connection.
    var proxy: String? { ProxyRoute.proxy(for: url, setting: tls.proxy) }
}

/// What went wrong with the proxy, said as the proxy's fault: "the proxy 10.0.0.1:3128 refused
/// the tunnel to api.example.com:443 (502)" sends the user to the right machine, where "the
/// connection broke" would send them to the server.
enum ProxyFailure {
    static func describe(_ code: CURLcode, proxy: String, request: HTTPRequest, connectCode: Int) -> HarkError? {
        let shown = ProxyRoute.display(proxy)
        if connectCode == 407 { return credentials(proxy: proxy, request: request) }
        if connectCode >= 300 {
            return .proxy(proxy: shown, reason: "refused the tunnel to \(target(of: request)) (\(connectCode)); "
                + "ask its admin, or set no_proxy or proxy = none if the server is reachable directly")
        }
        switch code {
        case CURLE_COULDNT_RESOLVE_PROXY: return .proxy(proxy: shown, reason: "is not a host name that resolves; check proxy or http(s)_proxy")
        case CURLE_COULDNT_CONNECT:
            return .proxy(proxy: shown, reason: "cannot be reached (connection refused); check proxy or http(s)_proxy, or set proxy = none")
        case CURLE_PROXY:
            return .proxy(proxy: shown, reason: "failed the handshake (\(String(cString: hark_curl_easy_strerror(code))))")
        default: return nil
        }
    }

    static func credentials(proxy: String, request: HTTPRequest) -> HarkError {
        .proxy(proxy: ProxyRoute.display(proxy), reason: request.tls.proxyAuth == nil
            ? "asked for credentials (407); set the session's proxy_auth = basic:USER:SECRET"
            : "refused the credentials of proxy_auth (407)")
    }

    /// host:port the tunnel was asked for.
    private static func target(of request: HTTPRequest) -> String {
        guard let components = URLComponents(string: request.url), let host = components.host else { return request.displayHost }
        let secure = ["https", "wss"].contains(components.scheme?.lowercased() ?? "")
        return "\(host):\(components.port ?? (secure ? 443 : 80))"
    }
}

extension TLSOptions {
    /// For `/info`: the proxy requests to `url` take, and why; nil when they go direct unasked.
    public func proxySummary(for url: String) -> String? {
        switch proxy {
        case .direct: return "none (proxy = none)"
        case .through(let setting):
            return ProxyRoute.proxy(for: url, setting: proxy).map { _ in ProxyRoute.display(setting) } ?? "none (no_proxy)"
        case .environment:
            return ProxyRoute.proxy(for: url, setting: proxy).map { ProxyRoute.display($0) + " (from the environment)" }
        }
    }
}
