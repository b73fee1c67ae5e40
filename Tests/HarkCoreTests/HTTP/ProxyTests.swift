import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// Every transport through a recording proxy on loopback (TestProxy: CONNECT tunnels and
/// absolute-form requests, as squid does): plain HTTP, a streamed model reply, HTTPS and n8n's
/// chat WebSocket. The servers are reached as `origin.test`, a name only the proxy resolves,
/// so an answer at all proves the request went through it. The session's `proxy` setting
/// is used here (the environment's variables are the process's, shared by parallel tests);
/// ProxyEnvironmentTests runs the binary with them.
@Suite(.timeLimit(.minutes(3))) struct ProxyTests {
    final class Session: @unchecked Sendable {
        let home: TestHome
        let workspace: Workspace
        let transcript: Transcript

        init(_ config: String, session: String) throws {
            home = TestHome(config: config)
            workspace = try home.workspace()
            try workspace.switchSession(to: session)
            transcript = Transcript(workspace)
        }

        func type(_ line: String) async -> String { await transcript.type(line) }
    }

    static func jenkins(_ url: String, proxy: TestProxy, extra: String = "") throws -> Session {
        try Session("[session ci]\nkind = jenkins\nurl = \(url)\nauth = basic:\(TestJenkinsServer.user):\(TestJenkinsServer.token)\n"
            + "proxy = \(proxy.url)\n\(extra)", session: "ci")
    }

    @Test func plainHTTPAndHTTPSGoThroughTheProxy() async throws {
        let jenkins = try TestJenkinsServer()
        jenkins.addJob("app")
        let proxy = try TestProxy()
        let plain = try Self.jenkins("http://\(TestProxy.originHost):\(jenkins.http.port)/", proxy: proxy)
        #expect(await plain.type("/jobs") == "> /jobs\n·  app  not built\n")
        #expect(proxy.seen.contains { $0.hasPrefix("GET http://\(TestProxy.originHost):\(jenkins.http.port)/api/json") })

        let tls = try TestTLSServer(forwardingTo: jenkins.http.port)
        let certificate = try #require(TestTLSServer.certificate)
        // The certificate names 127.0.0.1: the pin decides trust here.
        let secure = try Self.jenkins("https://\(TestProxy.originHost):\(tls.port)/", proxy: proxy,
                                      extra: "insecure = on\npin = \(certificate.pin)\n")
        #expect(await secure.type("/jobs") == "> /jobs\n·  app  not built\n")
        #expect(proxy.seen.contains("CONNECT \(TestProxy.originHost):\(tls.port) HTTP/1.1"))
        #expect(await secure.type("/info").contains("\nproxy    \(proxy.display)\n"))
    }

    @Test func aStreamedReplyAndTheChatSocketGoThroughTheProxy() async throws {
        let model = try TestOpenAIServer(script: TestOpenAIServer.streaming(["Hello", " through", " the proxy"]))
        let proxy = try TestProxy()
        let llama = try Session("[session llama]\nkind = openai\nurl = http://\(TestProxy.originHost):\(model.http.port)/v1\n"
            + "model = test-model\ncontext = 8k\nproxy = \(proxy.url)\n", session: "llama")
        #expect(await llama.type("hi") == "> hi\nHello through the proxy\n")
        #expect(proxy.seen.contains("POST http://\(TestProxy.originHost):\(model.http.port)/v1/chat/completions HTTP/1.1"))

        let n8n = try TestN8NServer { _, _ in
            .responseNodes(executionID: "40", resumeToken: nil, chat: [.heartbeat, .messageThenContinue("Socket through the proxy"), .close])
        }
        let webhook = n8n.webhookURL.replacingOccurrences(of: "127.0.0.1", with: TestProxy.originHost)
        let helpdesk = try Session("[session helpdesk]\nkind = webhook\nurl = \(webhook)\nproxy = \(proxy.url)\n", session: "helpdesk")
        #expect(await helpdesk.type("go") == "> go\nSocket through the proxy\n")
        #expect(proxy.seen.contains("POST \(webhook) HTTP/1.1"))
        #expect(proxy.seen.contains("CONNECT \(TestProxy.originHost):\(n8n.http.port) HTTP/1.1"), "the upgrade goes through a tunnel")
        #expect(n8n.chatPeers.count == 1)
    }

    @Test func aRefusedTunnelAndAskedCredentialsNameTheProxy() async throws {
        let refusing = try TestProxy(mode: .refuseTunnels(status: 502))
        let refused = try Self.jenkins("https://\(TestProxy.originHost)/", proxy: refusing)
        #expect(await refused.type("/jobs") == "> /jobs\nhark: the proxy \(refusing.display) refused the tunnel to "
            + "\(TestProxy.originHost):443 (502); ask its admin, or set no_proxy or proxy = none if the server is reachable directly\n")

        let jenkins = try TestJenkinsServer()
        jenkins.addJob("app")
        let password = "pr0xy-s3cret-7f2a"
        let guarded = try TestProxy(mode: .requireCredentials(user: "ann", password: password))
        let origin = "http://\(TestProxy.originHost):\(jenkins.http.port)/"
        let without = try Self.jenkins(origin, proxy: guarded)
        let asked = "hark: the proxy \(guarded.display) asked for credentials (407); set the session's proxy_auth = basic:USER:SECRET\n"
        let answered = await without.type("/jobs")
        #expect(answered == "> /jobs\n" + asked, "\(answered)")
        let withoutTunnel = try Self.jenkins("https://\(TestProxy.originHost)/", proxy: guarded)
        #expect(await withoutTunnel.type("/jobs") == "> /jobs\n" + asked)

        let secretFile = TemporaryDirectory("proxy-secret")
        let secretPath = secretFile.path + "/proxy-password"
        try Data((password + "\n").utf8).write(to: URL(fileURLWithPath: secretPath))
        let with = try Self.jenkins(origin, proxy: guarded, extra: "proxy_auth = basic:ann:file:\(secretPath)\n")
        #expect(await with.type("/jobs") == "> /jobs\n·  app  not built\n")
        #expect(guarded.credentials.last == "Basic " + Data("ann:\(password)".utf8).base64EncodedString())
        let wrong = try Self.jenkins(origin, proxy: guarded, extra: "proxy_auth = basic:bob:file:\(secretPath)\n")
        #expect(await wrong.type("/jobs") == "> /jobs\nhark: the proxy \(guarded.display) refused the credentials of proxy_auth (407)\n")
        // The password is nowhere hark writes.
        for session in [with, wrong] {
            let database = try Data(contentsOf: URL(fileURLWithPath: session.home.paths.historyDatabase))
            #expect(!String(decoding: database, as: UTF8.self).contains(password))
            #expect(!session.transcript.text.contains(password))
        }
    }

    @Test func proxyNoneGoesDirect() async throws {
        let proxy = try TestProxy()
        let closed = try RefusingPort()
        // 127.0.0.2 is not one of the names that always go direct, and nothing listens there.
        let proxied = try Self.jenkins("http://127.0.0.2:\(closed.port)/", proxy: proxy)
        _ = await proxied.type("/jobs")
        #expect(proxy.seen.first?.hasPrefix("GET http://127.0.0.2:\(closed.port)/") == true)
        let none = try Session("[session ci]\nkind = jenkins\nurl = http://127.0.0.2:\(closed.port)/\nauth = basic:u:env:HOME\n"
            + "proxy = none\n", session: "ci")
        let seenBefore = proxy.seen.count
        #expect(await none.type("/jobs") == "> /jobs\nhark: cannot reach 127.0.0.2:\(closed.port): connection refused\n")
        #expect(proxy.seen.count == seenBefore)
    }
}
