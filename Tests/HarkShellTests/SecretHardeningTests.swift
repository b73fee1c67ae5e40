import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// What a careless user or a hostile config could do with secrets before they were hardened, each tried
/// with the real binary against loopback servers. Every secret here is distinctive, and each
/// test looks for it wherever hark writes or prints: the database and its WAL, every file of
/// the config and data folders, stdout, stderr, `--json`, and what the server received.
@Suite struct SecretHardeningTests {
    static func hark(_ arguments: [String], _ environment: [String: String]) async throws -> HarkRun {
        try await HarkRun.run(arguments, environment)
    }

    /// No file under `home` holds `secret` (the database, its WAL, the config, exports…), or
    /// under `folder` of it when given.
    static func expectNowhere(_ secret: String, under home: TestHome, folder: String? = nil,
                              sourceLocation: SourceLocation = #_sourceLocation) throws {
        for file in SecretsTests.files(under: folder ?? home.directory.path) {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
            #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(file) holds \(secret)", sourceLocation: sourceLocation)
        }
    }

    /// A webhook that records what it was sent and answers as n8n's "When last node finishes".
    static func recordingWebhook() throws -> TestHTTPServer {
        try TestHTTPServer { _, response in response.send(json: #"{"output":"heard"}"#) }
    }

    /// A home whose session `hook` sends to `server` with `auth`, waiting `secretTimeout` for it.
    static func hookHome(_ server: TestHTTPServer, auth: String, secretTimeout: String) -> TestHome {
        TestHome(config: """
            [session hook]
            kind = webhook
            url = \(server.baseURL)/hook
            secret_timeout = \(secretTimeout)
            auth = \(auth)
            """)
    }

    // MARK: 1. Header injection through a secret

    /// A `file:` or `cmd:` secret of several lines sends its first line only; whatever is left
    /// that would end the header line (an environment variable with a line break) is refused
    /// in one line naming the session and the reference, and nothing is sent. RFC 9112 §2.2
    /// lets a server end a line at a bare LF, as this test server does, so an LF sent inside a
    /// value would be read as a header of its own.
    @Test func aSecretCannotAddHeaderLines() async throws {
        let key = "injkey-7c1e09aa53"
        let server = try Self.recordingWebhook()
        let outside = TemporaryDirectory("hark-secret")
        let file = outside.write("n8n-key", "\(key)\nX-Injected: evil\n")
        let home = TestHome(config: """
            [session fromfile]
            kind = webhook
            url = \(server.baseURL)/hook
            auth = header:X-N8N-Key:file:\(file)

            [session fromcmd]
            kind = webhook
            url = \(server.baseURL)/hook
            auth = header:X-N8N-Key:cmd:printf '\(key)\\r\\nX-Injected: evil\\n'

            [session fromenv]
            kind = webhook
            url = \(server.baseURL)/hook
            auth = header:X-N8N-Key:env:HARK_INJECTED
            """)
        var environment = home.environment
        environment["HARK_INJECTED"] = "\(key)\nX-Injected: evil"
        for session in ["fromfile", "fromcmd"] {
            let run = try await Self.hark(["-s", session, "hi"], environment)
            #expect(run.status == 0, "\(run.output)")
        }
        #expect(server.requests.count == 2)
        for request in server.requests {
            #expect(request.header("x-n8n-key") == key)
            #expect(request.header("x-injected") == nil, "the server read an injected header")
        }
        let refused = try await Self.hark(["-s", "fromenv", "--json", "hi"], environment)
        #expect(refused.status == HarkError.ExitCode.config.rawValue)
        let lines = refused.stderr.split(separator: "\n")
        #expect(lines == ["hark: secret env:HARK_INJECTED of session fromenv: its value holds a line break, "
            + "which cannot go in a header (a header is one line)"], "\(refused.stderr)")
        #expect(refused.stdout.contains(#""type":"error""#))
        #expect(server.requests.count == 2, "nothing was sent")
        #expect(!refused.output.contains(key))
        // (The config holds the key in its `cmd:`, as the user wrote it.)
        try Self.expectNowhere(key, under: home, folder: home.paths.dataDirectory)
    }

    // MARK: 3 and 10. Literal secrets in config files others can read; passwords in URLs

    /// `hark session add --auth bearer:LITERAL` into a config the user made 0644 by hand: refused
    /// before anything is written, as a URL with a password is. Into a private file, or a new
    /// one (created 0600), it is written.
    @Test func aLiteralSecretIsNotWrittenIntoAConfigOthersCanRead() async throws {
        let literal = "sk-live-3b9e51d07c"
        let password = "urlpass-e4c2a17f90"
        let home = TestHome(config: "[hark]\ndefault = local\n")
        chmod(home.paths.configFile, 0o644)
        let before = try String(contentsOfFile: home.paths.configFile, encoding: .utf8)
        for arguments in [["--url", "http://127.0.0.1:9/v1", "--auth", "bearer:\(literal)"],
                          ["--url", "http://ann:\(password)@127.0.0.1:9/v1"]] {
            let run = try await Self.hark(["session", "add", "bot", "--kind", "openai"] + arguments, home.environment)
            #expect(run.status == HarkError.ExitCode.config.rawValue, "\(run.output)")
            #expect(run.stderr.split(separator: "\n").count == 1)
            #expect(run.stderr.contains("not written: session bot would have"))
            #expect(run.stderr.contains("chmod 600 \(home.paths.configFile)"))
            #expect(try String(contentsOfFile: home.paths.configFile, encoding: .utf8) == before)
        }
        try Self.expectNowhere(literal, under: home)
        try Self.expectNowhere(password, under: home)
        // The same through `session edit` of a session whose auth was a reference.
        let added = try await Self.hark(["session", "add", "bot", "--kind", "openai", "--url", "http://127.0.0.1:9/v1",
                                         "--auth", "bearer:env:OPENAI_KEY"], home.environment)
        #expect(added.status == 0, "\(added.output)")
        let edit = try await Self.hark(["session", "edit", "bot", "auth=bearer:\(literal)"], home.environment)
        #expect(edit.status == HarkError.ExitCode.config.rawValue, "\(edit.output)")
        try Self.expectNowhere(literal, under: home)
        _ = try await Self.hark(["session", "rm", "bot"], home.environment)
        // A private file takes it; so does a new one, which hark makes private.
        chmod(home.paths.configFile, 0o600)
        let accepted = try await Self.hark(["session", "add", "bot", "--kind", "openai", "--url", "http://127.0.0.1:9/v1",
                                            "--auth", "bearer:\(literal)"], home.environment)
        #expect(accepted.status == 0, "\(accepted.output)")
        let fresh = TestHome()
        let created = try await Self.hark(["session", "add", "bot", "--kind", "openai", "--url", "http://127.0.0.1:9/v1",
                                           "--auth", "bearer:\(literal)"], fresh.environment)
        #expect(created.status == 0, "\(created.output)")
        var info = stat()
        stat(fresh.paths.configFile, &info)
        #expect(info.st_mode & 0o777 == 0o600)
    }

    /// A password in a session's URL: refused in a readable config with a hint to use `auth`;
    /// in a private one sent as Basic auth, never in the URL, and masked in errors.
    @Test func aPasswordInTheURLIsBasicAuthOrRefused() async throws {
        let password = "urlpass-91d3c5be02"
        let server = try TestHTTPServer { request, response in
            guard request.header("authorization") == "Basic " + Data("ann:\(password)".utf8).base64EncodedString() else {
                response.send(status: 401, headers: [("Content-Type", "text/plain")], text: "who are you")
                return
            }
            response.send(json: #"{"output":"welcome ann"}"#)
        }
        let home = TestHome(config: """
            [session hook]
            kind = webhook
            url = http://ann:\(password)@127.0.0.1:\(server.port)/hook
            """)
        let sent = try await Self.hark(["-s", "hook", "hi"], home.environment)
        #expect(sent.status == 0, "\(sent.output)")
        #expect(sent.stdout == "welcome ann")
        #expect(server.requests.first?.target == "/hook")
        let info = try await Self.hark(["sessions", "--json"], home.environment)
        #expect(!info.output.contains(password))
        chmod(home.paths.configFile, 0o644)
        let refused = try await Self.hark(["-s", "hook", "hi"], home.environment)
        #expect(refused.status == HarkError.ExitCode.config.rawValue)
        #expect(refused.stderr.split(separator: "\n").count == 1)
        #expect(refused.stderr.contains("a password in its url but the file is readable by others; "
            + "put it in auth = basic:USER:env:VAR"), "\(refused.stderr)")
        #expect(server.requests.count == 1)
        for run in [sent, refused] { #expect(!run.output.contains(password)) }
        // The private config holds it, as the user wrote it; nothing hark wrote does.
        try Self.expectNowhere(password, under: home, folder: home.paths.dataDirectory)
    }

    // MARK: 5. Masks before clipping

    /// A server echoes the refused key at the point where the error line is cut: the line,
    /// the `--json` error and the history's error column show `***`, not the key's start.
    @Test func anEchoedSecretCutByClippingDoesNotLeakItsStart() async throws {
        let key = "envSECRET-4a1f6d20b8c3"
        let server = try TestHTTPServer { request, response in
            let sent = String((request.header("authorization") ?? "").dropFirst("Bearer ".count))
            let padding = String(repeating: "p", count: 190)
            response.send(status: 401, json: #"{"error":{"message":"\#(padding) key \#(sent) is not valid"}}"#)
        }
        let home = TestHome(config: "[session bot]\nkind = openai\nurl = \(server.baseURL)/v1\nauth = bearer:env:HARK_CLIP_KEY\n")
        var environment = home.environment
        environment["HARK_CLIP_KEY"] = key
        for arguments in [["-s", "bot", "hi"], ["-s", "bot", "--json", "hi"]] {
            let run = try await Self.hark(arguments, environment)
            #expect(run.status == HarkError.ExitCode.auth.rawValue)
            #expect(!run.output.contains(String(key.prefix(6))), "\(run.output)")
            #expect(run.output.contains("***"))
        }
        let store = try HistoryStore(path: home.paths.historyDatabase)
        let errors = try store.database.query("SELECT error FROM messages WHERE error IS NOT NULL").compactMap { $0["error"].string }
        #expect(errors.count == 2)
        for error in errors { #expect(!error.contains(String(key.prefix(6))), "\(error)") }
        try Self.expectNowhere(String(key.prefix(6)), under: home)
    }

    // MARK: 6 and 8. A hanging `cmd:` secret; signals

    /// A `cmd:` secret that hangs is stopped after `secret_timeout`, with one line naming it.
    @Test func aHangingCommandSecretTimesOut() async throws {
        let server = try Self.recordingWebhook()
        let outside = TemporaryDirectory("hark-secret")
        let pidFile = outside.file("sleep.pid")
        let home = Self.hookHome(server, auth: "header:X-Key:cmd:sleep 600 & echo $! > \(pidFile); wait", secretTimeout: "0.5")
        let run = try await Self.hark(["-s", "hook", "hi"], home.environment)
        #expect(run.status == HarkError.ExitCode.config.rawValue)
        #expect(run.stderr == "hark: secret cmd:sleep of session hook: the command did not finish within 0.5 s and was "
            + "stopped; raise the session's secret_timeout if it needs longer\n")
        #expect(server.requests.isEmpty)
        let sleeper = try #require(pid_t(try String(contentsOfFile: pidFile, encoding: .utf8).trimmed))
        #expect(ProcessExit.wait(for: sleeper), "the command was left running")
    }

    /// SIGTERM while hark waits on a `cmd:` secret: it ends at once, killing the command, and
    /// exits 143 (SIGINT stays 130).
    @Test func termWhileACommandSecretRunsEndsAtOnce() async throws {
        let server = try Self.recordingWebhook()
        let outside = TemporaryDirectory("hark-secret")
        let fifo = outside.file("started")
        #expect(mkfifo(fifo, 0o600) == 0)
        let home = Self.hookHome(server, auth: "header:X-Key:cmd:sleep 600 & echo $! > \(fifo); wait", secretTimeout: "600")
        let process = try RunningProcess([BuiltProducts.hark, "-s", "hook", "hi"], environment: home.environment)
        // The command writes its sleep's pid into the fifo: from then on hark waits on it.
        let sleeper = try await offThePool { Self.readLine(fromFifo: fifo) }
        let sleeperPID = try #require(pid_t(sleeper), "the command never started")
        process.kill(SIGTERM)
        let status = try await offThePool { process.wait() }
        #expect(status == 143)
        #expect(process.stderrText.split(separator: "\n").count <= 1, "\(process.stderrText)")
        #expect(ProcessExit.wait(for: sleeperPID), "the command was left running")
        #expect(server.requests.isEmpty)
    }

    /// SIGQUIT during a reply is handled as SIGTERM: the reply stops (what arrived is kept),
    /// hark exits 131 without the Swift runtime's crash report (registers, memory). (The
    /// test runner's threads block signals, and children inherit that: hark unblocks the ones
    /// it handles, as it must when any parent starts it so.)
    @Test func quitDuringAReplyStopsLikeTerm() async throws {
        let gate = Gate()
        let server = try HistoryPrivacyTests.heldReply(first: "first words ", gate: gate, rest: "never shown")
        defer { gate.open() }
        let home = TestHome(config: "[session bot]\nkind = openai\nurl = \(server.baseURL)/v1\n")
        let process = try RunningProcess([BuiltProducts.hark, "-s", "bot", "hi"], environment: home.environment)
        let printed = try await offThePool { process.readStdout(atLeast: "first words ".utf8.count) }
        #expect(printed)
        process.kill(SIGQUIT)
        let status = try await offThePool { process.wait() }
        #expect(status == 128 + SIGQUIT)
        #expect(!process.stderrText.contains("Backtracing") && !process.stderrText.contains("crashed"), "\(process.stderrText)")
        #expect(process.stderrText.split(separator: "\n").count <= 1)
        let store = try HistoryStore(path: home.paths.historyDatabase)
        let reply = try #require(try store.lastMessage(session: "bot", role: .assistant))
        #expect(reply.status == .stopped)
        #expect(reply.text == "first words ")
    }

    /// The fifo's first line; opened without blocking so a hark that never writes it fails the
    /// test after a ceiling instead of hanging it.
    static func readLine(fromFifo path: String) -> String {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        var text = ""
        var buffer = [UInt8](repeating: 0, count: 64)
        while !text.contains("\n") {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 60_000) > 0 else { break }
            let count = read(fd, &buffer, buffer.count)
            if count > 0 { text += String(decoding: buffer[0..<count], as: UTF8.self) } else if count == 0 && !text.isEmpty { break }
        }
        return text.trimmed
    }

    // MARK: Endless sources

    /// An endless `file:` or `cmd:` source (/dev/zero, a FIFO nobody writes, `cat /dev/zero`)
    /// is a config error in one line (exit 3) with nothing sent. Run with its data limited to
    /// 256 MB: hark reads a few KB of the source, where it once read /dev/zero until the
    /// machine's memory was gone.
    @Test func anEndlessSecretIsAConfigErrorWithNothingSent() async throws {
        let server = try Self.recordingWebhook()
        let outside = TemporaryDirectory("hark-secret")
        let fifo = outside.file("nobody-writes")
        #expect(mkfifo(fifo, 0o600) == 0)
        let home = TestHome(config: """
            [session zero]
            kind = webhook
            url = \(server.baseURL)/hook
            auth = bearer:file:/dev/zero

            [session fifo]
            kind = webhook
            url = \(server.baseURL)/hook
            secret_timeout = 0.5
            auth = bearer:file:\(fifo)

            [session cat]
            kind = webhook
            url = \(server.baseURL)/hook
            auth = header:X-Key:cmd:cat /dev/zero
            """)
        let expected = [
            "zero": "secret file:/dev/zero of session zero: /dev/zero has no line within its first 8 KB; the secret is the file's "
                + "first line",
            "fifo": "secret file:\(fifo) of session fifo: no line came from \(fifo) within 0.5 s (a pipe nobody writes?); "
                + "raise the session's secret_timeout if it needs longer",
            "cat": "secret cmd:cat of session cat: the command printed more than 8 KB and was stopped; have it print only the "
                + "secret, on one line",
        ]
        for (session, line) in expected.sorted(by: { $0.key < $1.key }) {
            let run = try await offThePool {
                try Subprocess.run(["/usr/bin/prlimit", "--data=\(256 << 20)", BuiltProducts.hark, "-s", session, "hi"],
                                   environment: home.environment, streams: .captured(input: Data()))
            }
            #expect(run.status == HarkError.ExitCode.config.rawValue, "\(session): \(String(decoding: run.stderr, as: UTF8.self))")
            #expect(String(decoding: run.stderr, as: UTF8.self) == "hark: \(line)\n")
        }
        #expect(server.requests.isEmpty)
    }

    /// SIGTERM while hark waits on a FIFO secret ends it at once (143), with nothing sent.
    @Test func termWhileAFIFOSecretIsAwaitedEndsAtOnce() async throws {
        let server = try Self.recordingWebhook()
        let outside = TemporaryDirectory("hark-secret")
        let fifo = outside.file("slow-writer")
        #expect(mkfifo(fifo, 0o600) == 0)
        let home = Self.hookHome(server, auth: "bearer:file:\(fifo)", secretTimeout: "600")
        let process = try RunningProcess([BuiltProducts.hark, "-s", "hook", "hi"], environment: home.environment)
        // Opening the FIFO for writing returns once hark has opened it to read: it waits now.
        let writer = try await offThePool { open(fifo, O_WRONLY | O_CLOEXEC) }
        defer { close(writer) }
        process.kill(SIGTERM)
        #expect(try await offThePool { process.wait() } == 143)
        #expect(process.stderrText.split(separator: "\n").count <= 1, "\(process.stderrText)")
        #expect(server.requests.isEmpty)
    }

    // MARK: 9. One line per error

    @Test func everyErrorIsOneLine() async throws {
        // n8n streams an error chunk whose message has line breaks ("type":"error" as n8n's
        // streaming response writes it, see N8NReplyDecoderTests).
        let webhook = try TestHTTPServer { request, response in
            switch request.path {
            case "/error":
                response.startChunked(headers: [("Content-Type", "application/json")])
                response.write(#"{"type":"begin","metadata":{"nodeId":"a","nodeName":"Agent","itemIndex":0,"runIndex":0}}"# + "\n")
                response.write(#"{"type":"error","content":"line one\nline two\nline three","metadata":{"nodeId":"a"}}"# + "\n")
                response.end()
            default:
                response.send(status: 404, json: "{}")
            }
        }
        // An OpenAI-compatible server whose event is not JSON and spans two data: lines.
        let openai = try TestOpenAIServer { _ in [.raw("data: not json\ndata: second line\n\n"), .done] }
        let home = TestHome(config: """
            [session hook]
            kind = webhook
            url = \(webhook.baseURL)/error

            [session bot]
            kind = openai
            url = \(openai.baseURL)
            """)
        for (session, exit) in [("hook", HarkError.ExitCode.backend), ("bot", .backend)] {
            let run = try await Self.hark(["-s", session, "hi"], home.environment)
            #expect(run.status == exit.rawValue, "\(session): \(run.output)")
            #expect(run.stderr.split(separator: "\n", omittingEmptySubsequences: false).count == 2, "\(session): \(run.stderr)")
        }
        let hook = try await Self.hark(["-s", "hook", "hi"], home.environment)
        #expect(hook.stderr == "hark: n8n: a node failed: line one line two line three\n")
        // A 100 KB session name is clipped.
        let name = String(repeating: "n", count: 100_000)
        let unknown = try await Self.hark(["-s", name, "hi"], home.environment)
        #expect(unknown.status == HarkError.ExitCode.usage.rawValue)
        #expect(unknown.stderr.count < 300, "\(unknown.stderr.count) characters")
        #expect(unknown.stderr.split(separator: "\n").count == 1)
    }

    /// n8n's Respond to Webhook node can answer with a file (n8n-io/n8n-docs,
    /// docs/integrations/builtin/core-nodes/n8n-nodes-base.respondtowebhook.md: "Binary File:
    /// Respond with a binary file defined in Response Data Source"). That is no reply: exit
    /// 6, one line, and what arrived is stored as the failed reply, not printed.
    @Test func aBinaryWebhookReplyFailsAndIsStored() async throws {
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0xFF, 0xD8, 0x00, 0x41]
        let server = try TestHTTPServer { _, response in
            response.send(headers: [("Content-Type", "image/png")], body: png)
        }
        let home = TestHome(config: "[session hook]\nkind = webhook\nurl = \(server.baseURL)/hook\n")
        let run = try await Self.hark(["-s", "hook", "draw"], home.environment)
        #expect(run.status == HarkError.ExitCode.backend.rawValue)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr == "hark: the webhook answered with 12 bytes of binary data (image/png), not a reply; "
            + "the history keeps what arrived\n")
        let store = try HistoryStore(path: home.paths.historyDatabase)
        let reply = try #require(try store.lastMessage(session: "hook", role: .assistant))
        #expect(reply.status == .failed)
        #expect(reply.text == String(decoding: png, as: UTF8.self))
        #expect(reply.error?.contains("binary data") == true)
    }
}
