import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// The shipped binary reads http_proxy, HTTP_PROXY (never, as curl), no_proxy and `[hark]`'s
/// proxy the way curl does: a model session at 127.0.0.2 (where nothing listens; the proxy
/// maps it to the test server) answers only through the proxy.
struct ProxyEnvironmentTests {
    static func home(_ server: TestOpenAIServer, hark: String = "") -> TestHome {
        TestHome(config: "[hark]\n\(hark)\n[session llama]\nkind = openai\nurl = http://127.0.0.2:\(server.http.port)/v1\n"
            + "model = test-model\ncontext = 8k\n")
    }

    static func run(_ home: TestHome, _ variables: [String: String]) async throws -> HarkRun {
        var environment = home.environment
        for name in ["http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"] {
            environment[name] = nil
        }
        return try await HarkRun.run(["-s", "llama", "hi"], environment.merging(variables) { $1 })
    }

    @Test func theEnvironmentsProxyCarriesPlainHTTPAsCurlWould() async throws {
        let server = try TestOpenAIServer(script: TestOpenAIServer.streaming(["Hello", " via", " proxy"]))
        let proxy = try TestProxy()
        let home = Self.home(server)
        let refused = "hark: cannot reach 127.0.0.2:\(server.http.port): connection refused\n"

        let through = try await Self.run(home, ["http_proxy": proxy.url, "no_proxy": ""])
        #expect(through.status == 0)
        #expect(through.stdout.hasPrefix("Hello via proxy"))
        #expect(proxy.seen.contains("POST http://127.0.0.2:\(server.http.port)/v1/chat/completions HTTP/1.1"))

        let seen = proxy.seen.count
        let uppercase = try await Self.run(home, ["HTTP_PROXY": proxy.url])
        #expect(uppercase.status == 4)
        #expect(uppercase.stderr.hasSuffix(refused))
        let excluded = try await Self.run(home, ["http_proxy": proxy.url, "no_proxy": "localhost,127.0.0.0/8"])
        #expect(excluded.status == 4)
        #expect(excluded.stderr.hasSuffix(refused))
        let none = try await Self.run(Self.home(server, hark: "proxy = none"), ["http_proxy": proxy.url])
        #expect(none.status == 4)
        #expect(none.stderr.hasSuffix(refused))
        #expect(proxy.seen.count == seen)

        let configured = try await Self.run(Self.home(server, hark: "proxy = \(proxy.url)"), [:])
        #expect(configured.stdout.hasPrefix("Hello via proxy"))
        #expect(proxy.seen.count > seen)
    }
}
