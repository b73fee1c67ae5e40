import Foundation
import Testing
@testable import HarkCore

/// Which proxy a request takes, by curl's rules (lib/url.c detect_proxy, lib/noproxy.c), and
/// the session's `proxy` setting.
struct ProxyRouteTests {
    static let proxy = "http://127.0.0.1:3128"

    static func route(_ url: String, _ environment: [String: String], setting: ProxySetting = .environment) -> String? {
        ProxyRoute.proxy(for: url, setting: setting, environment: environment)
    }

    @Test func theSchemesVariableComesFirstThenAllProxy() {
        #expect(Self.route("http://api.example.com/v1", ["http_proxy": Self.proxy]) == Self.proxy)
        // curl never reads HTTP_PROXY (a CGI server sets it from a request's Proxy header).
        #expect(Self.route("http://api.example.com/v1", ["HTTP_PROXY": Self.proxy]) == nil)
        #expect(Self.route("https://api.example.com/v1", ["HTTPS_PROXY": Self.proxy]) == Self.proxy)
        #expect(Self.route("https://api.example.com/v1", ["https_proxy": "http://a:1", "HTTPS_PROXY": "http://b:2"]) == "http://a:1")
        #expect(Self.route("https://api.example.com/v1", ["http_proxy": Self.proxy]) == nil)
        #expect(Self.route("https://api.example.com/v1", ["ALL_PROXY": "socks5h://127.0.0.1:1080"]) == "socks5h://127.0.0.1:1080")
        #expect(Self.route("http://api.example.com/", ["http_proxy": "http://a:1", "all_proxy": "http://b:2"]) == "http://a:1")
        // A WebSocket goes as the HTTP request it starts as.
        #expect(Self.route("ws://n8n.example.com/chat", ["http_proxy": Self.proxy]) == Self.proxy)
        #expect(Self.route("wss://n8n.example.com/chat", ["https_proxy": Self.proxy]) == Self.proxy)
        #expect(Self.route("http://api.example.com/", ["http_proxy": ""]) == nil)
    }

    @Test func noProxyTakesNamesDomainsAddressesAndRanges() {
        func bypasses(_ host: String, _ list: String) -> Bool { ProxyRoute.bypasses(host: host, noProxy: list) }
        #expect(bypasses("anything.example", "*"))
        #expect(bypasses("example.com", "example.com"))
        #expect(bypasses("www.example.com", "example.com"))
        #expect(bypasses("www.example.com", ".example.com"))
        #expect(bypasses("example.com", ".example.com"), "curl drops the leading dot")
        #expect(!bypasses("notexample.com", "example.com"))
        #expect(bypasses("WWW.Example.COM.", "intranet, example.com"))
        #expect(bypasses("ci.corp", "a.b c.d,ci.corp"), "commas and spaces both separate")
        #expect(bypasses("10.1.2.3", "10.0.0.0/8"))
        #expect(!bypasses("11.1.2.3", "10.0.0.0/8"))
        #expect(bypasses("192.168.7.9", "192.168.7.9"))
        #expect(!bypasses("192.168.7.10", "192.168.7.9"))
        #expect(bypasses("172.16.5.4", "172.16.0.0/12"))
        #expect(!bypasses("172.32.0.1", "172.16.0.0/12"))
        #expect(bypasses("fd00::1", "fd00::/8"))
        #expect(bypasses("[fd00::1]", "[fd00::1]"))
        #expect(!bypasses("fe80::1", "fd00::/8"))
        #expect(!bypasses("10.1.2.3", "10.0.0.0"), "an address is matched whole without a range")
        #expect(!bypasses("10.1.2.3", "example.com,*.x"), "* counts only alone")
        // Through the whole route: no_proxy, else NO_PROXY.
        let environment = ["https_proxy": Self.proxy, "NO_PROXY": ".corp"]
        #expect(Self.route("https://git.corp/api", environment) == nil)
        #expect(Self.route("https://git.corp/api", environment.merging(["no_proxy": "other"]) { $1 }) == Self.proxy)
    }

    @Test func theUsersOwnLoopbackNamesAlwaysGoDirect() {
        let environment = ["http_proxy": Self.proxy]
        #expect(Self.route("http://127.0.0.1:8080/v1", environment) == nil)
        #expect(Self.route("http://localhost:8080/v1", environment) == nil)
        #expect(Self.route("http://[::1]:8080/v1", environment) == nil)
        // Every other address follows the rules, as in curl.
        #expect(Self.route("http://127.0.0.2:8080/v1", environment) == Self.proxy)
        #expect(Self.route("http://127.0.0.2:8080/v1", environment.merging(["no_proxy": "127.0.0.0/8"]) { $1 }) == nil)
    }

    @Test func theSessionsSettingIsCheckedAndWins() throws {
        let environment = ["http_proxy": "http://env:1", "no_proxy": "intranet"]
        #expect(Self.route("http://api.example.com/", environment, setting: .direct) == nil)
        #expect(Self.route("http://api.example.com/", environment, setting: .through(Self.proxy)) == Self.proxy)
        #expect(Self.route("http://intranet/", environment, setting: .through(Self.proxy)) == nil, "no_proxy still applies")

        #expect(try ProxySetting.parse(nil, session: "s") == .environment)
        #expect(try ProxySetting.parse("none", session: "s") == .direct)
        #expect(try ProxySetting.parse("proxy.corp:3128", session: "s") == .through("http://proxy.corp:3128"))
        #expect(try ProxySetting.parse("socks5h://127.0.0.1:1080", session: "s") == .through("socks5h://127.0.0.1:1080"))
        #expect(throws: HarkError.badSetting(session: "s", problem: "proxy must be none or a proxy URL such as http://proxy.example:3128 "
            + "(schemes: http, https, socks4, socks4a, socks5, socks5h), not \"ftp://x\"")) {
            try ProxySetting.parse("ftp://x", session: "s")
        }
        #expect(throws: HarkError.badSetting(session: "s", problem: "proxy must not hold the proxy's password; "
            + "set proxy_auth = basic:USER:env:VAR (or file:/cmd:) instead")) {
            try ProxySetting.parse("http://ann:pw@proxy.corp:3128", session: "s")
        }
        #expect(ProxyRoute.display("http://ann@proxy.corp:3128") == "proxy.corp:3128")
        #expect(ProxyRoute.display("http://proxy.corp") == "proxy.corp:1080")
    }
}
