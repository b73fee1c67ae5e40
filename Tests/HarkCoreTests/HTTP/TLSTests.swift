import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// `ca` and `pin` against a real TLS server on loopback (Python's ssl with a certificate made
/// by openssl for this run): a Jenkins behind a private CA is refused until its CA bundle is
/// given, and a pinned key that does not match is refused even then.
@Suite(.timeLimit(.minutes(3))) struct TLSTests {
    /// A transcript with its private home, kept as long as the test uses it.
    final class Session: @unchecked Sendable {
        let home: TestHome
        let transcript: Transcript

        init(_ config: String, session: String) throws {
            home = TestHome(config: config)
            let workspace = try home.workspace()
            try workspace.switchSession(to: session)
            transcript = Transcript(workspace)
        }

        func type(_ line: String) async -> String { await transcript.type(line) }
    }

    static func jenkins(_ tls: TestTLSServer, extra: String) throws -> Session {
        try Session("[session ci]\nkind = jenkins\nurl = \(tls.baseURL)/\n"
            + "auth = basic:\(TestJenkinsServer.user):\(TestJenkinsServer.token)\n\(extra)\n", session: "ci")
    }

    @Test func aPrivateCAIsTrustedOnlyWhenGivenAndAPinMustMatch() async throws {
        let jenkins = try TestJenkinsServer()
        jenkins.addJob("app")
        let tls = try TestTLSServer(forwardingTo: jenkins.http.port)
        let certificate = try #require(TestTLSServer.certificate)
        let host = "127.0.0.1:\(tls.port)"

        let untrusted = try Self.jenkins(tls, extra: "")
        #expect(await untrusted.type("/jobs") == "> /jobs\nhark: cannot reach \(host): its TLS certificate is not trusted; "
            + "set ca = PATH to your CA bundle (insecure = on only for a server you control)\n")

        let trusted = try Self.jenkins(tls, extra: "ca = \(certificate.certificateFile)")
        #expect(await trusted.type("/jobs") == "> /jobs\n·  app  not built\n")
        #expect(await trusted.type("/info").contains("\ntls      trusts the CA bundle \(certificate.certificateFile)\n"))

        let pinned = try Self.jenkins(tls, extra: "ca = \(certificate.certificateFile)\npin = \(certificate.pin)")
        #expect(await pinned.type("/jobs") == "> /jobs\n·  app  not built\n")

        let otherKey = "sha256//" + Data(repeating: 7, count: 32).base64EncodedString()
        let wrongPin = try Self.jenkins(tls, extra: "ca = \(certificate.certificateFile)\npin = \(otherKey)")
        #expect(await wrongPin.type("/jobs") == "> /jobs\nhark: cannot reach \(host): its TLS public key does not match "
            + "the session's pin; if the server's key changed on purpose, update pin\n")
        // Refused in the handshake: the request never reached Jenkins.
        #expect(jenkins.answers.filter { $0.path == "/api/json" }.count == 2)
    }

    @Test func everyHTTPSKindTakesTheSessionsCA() async throws {
        let monica = try TestMonicaServer()
        let tls = try TestTLSServer(forwardingTo: monica.http.port)
        let certificate = try #require(TestTLSServer.certificate)
        let transcript = try Session("[session crm]\nkind = monica\nurl = \(tls.baseURL)\nauth = bearer:\(TestMonicaServer.token)\n"
            + "tries = 1\nca = \(certificate.certificateFile)\n", session: "crm")
        #expect(await transcript.type("jo").hasPrefix("> jo\ncontacts matching \"jo\"\n"))
    }

    @Test func aMalformedPinOrAMissingBundleIsAConfigMistake() async throws {
        let transcript = try Session("[session ci]\nkind = jenkins\nurl = https://ci.example.com/\npin = sha256//abc\n"
            + "[session crm]\nkind = monica\nurl = https://crm.example.com\nauth = bearer:x\nca = /nonexistent/ca.pem\n",
            session: "ci")
        #expect(await transcript.type("/jobs") == "> /jobs\nhark: session ci: pin must be sha256// and the base64 SHA-256 "
            + "of the server's public key, not \"sha256//abc\" (see docs/jenkins.md, TLS)\n")
        #expect(await transcript.type("@crm jo").contains("hark: session crm: ca = /nonexistent/ca.pem is not a file hark can read"))
    }
}
