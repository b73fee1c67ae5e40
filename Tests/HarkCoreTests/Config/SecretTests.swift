import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// A secret is one line, goes into one header line, and is never the reason a request carries
/// more lines than it should; a command that provides it cannot hold hark for long.
@Suite struct SecretTests {
    static let value = "sec-1f0a93c2e7"

    @Test func aFileOrCommandGivesItsFirstLineOnly() throws {
        let directory = TemporaryDirectory()
        let file = directory.write("key", "\n\(Self.value)\r\nX-Injected: evil\n")
        #expect(try SecretReference("file:\(file)").resolve() == Self.value)
        #expect(try SecretReference("cmd:printf '\(Self.value)\\nX-Injected: evil\\n'").resolve() == Self.value)
        let empty = directory.write("empty", "\n\n")
        #expect(throws: HarkError.self) { try SecretReference("file:\(empty)").resolve() }
    }

    /// CR, LF or NUL left in a value (an environment variable, a quoted literal) is refused
    /// with one line naming the session and the reference, never the value.
    @Test(arguments: ["\n", "\r", "\r\n", "\0"])
    func aValueThatWouldAddHeaderLinesIsRefused(_ separator: String) throws {
        let environment = ["HARK_KEY": Self.value + separator + "X-Injected: evil"]
        for auth in ["header:X-N8N-Key:env:HARK_KEY", "bearer:env:HARK_KEY", "basic:ann:env:HARK_KEY"] {
            let cache = AuthHeaderCache(try AuthSpec(parsing: auth), session: "hook", environment: environment)
            do {
                _ = try cache.headers()
                Issue.record("\(auth) with \(separator.debugDescription) was accepted")
            } catch let error as HarkError {
                #expect(error.exitCode == .config)
                #expect(error.message.hasPrefix("secret env:HARK_KEY of session hook: its value holds a "), "\(error.message)")
                #expect(!error.message.contains(Self.value))
                #expect(!error.message.contains("\n") && !error.message.contains("\r"))
            }
        }
    }

    @Test func aHeaderNameMustBeAToken() {
        for name in ["X Evil", "X-A\r\nX-B", "", "Ké"] {
            #expect(throws: HarkError.self) { try AuthSpec(parsing: "header:\(name):env:K") }
            let spec = AuthSpec.header(name: name, value: .literal(Self.value))
            #expect(throws: HarkError.self) { _ = try spec.header() }
        }
        #expect(throws: Never.self) { try AuthSpec(parsing: "header:X-N8N-Key:env:K") }
    }

    /// Every request is checked where it leaves, whoever built its headers: the server never
    /// hears of one that would carry an extra line.
    @Test func theClientRefusesAHeaderLineBreakBeforeSending() async throws {
        let server = try TestHTTPServer { _, response in response.send(text: "ok") }
        let request = HTTPRequest(url: server.baseURL + "/x", headers: [("X-Key", Self.value + "\r\nX-Injected: evil")])
        await #expect(throws: HarkError.self) { _ = try await HTTPClient().fetch(request) }
        do { _ = try await HTTPClient().fetch(request) } catch {
            #expect(error.userMessage == "refusing to send the X-Key header: its value holds a line break")
        }
        #expect(server.requests.isEmpty)
    }

    /// A `cmd:` secret that hangs is stopped after its timeout, with one line naming it; the
    /// command the shell started is stopped with it, not left behind.
    @Test func aHangingCommandIsStoppedAfterItsTimeout() throws {
        let directory = TemporaryDirectory()
        let pidFile = directory.file("sleep.pid")
        do {
            _ = try SecretReference("cmd:sleep 60 & echo $! > \(pidFile); wait").resolve(commandTimeout: 0.5)
            Issue.record("a hanging command was waited for")
        } catch let error as HarkError {
            #expect(error.message == "secret cmd:sleep: the command did not finish within 0.5 s and was stopped; "
                + "raise the session's secret_timeout if it needs longer")
        }
        let sleeper = try #require(pid_t(try String(contentsOfFile: pidFile, encoding: .utf8).trimmed))
        #expect(ProcessExit.wait(for: sleeper), "the command's sleep goes on")
    }

    /// An endless source is read no further than a secret could go: no line within the first
    /// 8 KB is an error naming the reference, never a process that reads until memory ends.
    @Test func anEndlessFileOrCommandIsAnErrorAfterAFewKilobytes() throws {
        for (reference, reason) in [("file:/dev/zero", "/dev/zero has no line within its first 8 KB; the secret is the file's first line"),
                                    ("cmd:cat /dev/zero", "the command printed more than 8 KB and was stopped; "
                                        + "have it print only the secret, on one line")] {
            do {
                _ = try SecretReference(reference).resolve(commandTimeout: 30)
                Issue.record("\(reference) gave a value")
            } catch let error as HarkError {
                #expect(error.exitCode == .config)
                #expect(error.message == "secret \(SecretReference(reference)): \(reason)")
            }
        }
        let directory = TemporaryDirectory()
        let long = directory.write("long", String(repeating: "k", count: 9000) + "\n")
        #expect(throws: HarkError.self) { try SecretReference("file:\(long)").resolve() }
        let fits = directory.write("fits", String(repeating: "k", count: 8000) + "\n" + String(repeating: "z", count: 100_000))
        #expect(try SecretReference("file:\(fits)").resolve() == String(repeating: "k", count: 8000))
    }

    /// A FIFO is read as its writer writes it, within the timeout; nobody writing is an error
    /// once the timeout has passed, not a wait without end.
    @Test func aFIFOIsWaitedForWithinTheTimeout() async throws {
        let directory = TemporaryDirectory()
        let fifo = directory.file("secret.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        do {
            _ = try SecretReference("file:\(fifo)").resolve(commandTimeout: 0.5)
            Issue.record("a FIFO nobody writes gave a value")
        } catch let error as HarkError {
            #expect(error.message == "secret file:\(fifo): no line came from \(fifo) within 0.5 s (a pipe nobody writes?); "
                + "raise the session's secret_timeout if it needs longer")
        }
        let writer = Thread {
            let descriptor = open(fifo, O_WRONLY)  // waits for the reader
            _ = write(descriptor, "\(Self.value)\nrest", 5 + Self.value.utf8.count)
            close(descriptor)
        }
        writer.start()
        let value = try await offThePool { try SecretReference("file:\(fifo)").resolve(commandTimeout: 60) }
        #expect(value == Self.value)
    }

    // MARK: A password in the URL

    @Test func urlCredentialsAreFoundAndTakenOut() {
        let found = URLCredentials(in: "https://ann:p%40ss:w@host.example:8443/webhook/x?q=1")
        #expect(found == URLCredentials(in: "https://ann:p%40ss:w@host.example:8443/webhook/x?q=1"))
        #expect(found?.user == "ann")
        #expect(found?.password == "p@ss:w")
        #expect(found?.url == "https://host.example:8443/webhook/x?q=1")
        #expect(URLCredentials(in: "https://ann@host/x") == nil, "a user alone is no secret")
        #expect(URLCredentials(in: "https://host/x?mail=a:b@c") == nil, "an @ after the host is not userinfo")
        #expect(URLCredentials(in: "not a url") == nil)
    }

    @Test func aPasswordInTheURLIsSentAsBasicAuth() throws {
        let session = SessionConfig(name: "hook", kind: "webhook", values: ["url": "http://ann:\(Self.value)@127.0.0.1:9/hook"])
        #expect(session.url == "http://127.0.0.1:9/hook")
        #expect(try session.auth() == .basic(user: "ann", password: .literal(Self.value)))
        #expect(session.literalSecretKeys == ["url"])
        var both = session
        both["auth"] = "bearer:env:K"
        #expect(throws: HarkError.self) { try both.auth() }
    }

    @Test func theWebhooksKeyNamesAreNotSecrets() {
        let session = SessionConfig(name: "hook", kind: "webhook", values: ["input_key": "message", "session_key": "conversation",
                                                                            "api_key": "literal-one"])
        #expect(session.literalSecretKeys == ["api_key"])
    }
}
