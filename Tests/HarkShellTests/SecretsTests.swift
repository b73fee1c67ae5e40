import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// Secrets from an environment variable, a file and a command go to servers that accept them and
/// to servers that refuse them and echo them back; afterwards nothing hark wrote or printed holds
/// one: not the history (database, WAL), not any file in its folders, not stdout, `--json`,
/// exports or error lines, not the interactive screen.
@Suite struct SecretsTests {
    static let fromEnvironment = "envsecret-4f9a1c77e0"
    static let fromFile = "filesecret-91b2e0d3aa"
    /// The config builds it from two halves, so only the command's output holds it whole.
    static let fromCommand = "cmdsecret-c3d8a6b5ff"
    /// What `basic:admin:cmd:…` sends, the form a server echoes.
    static let basicToken = Data("admin:\(fromCommand)".utf8).base64EncodedString()
    static let all = [fromEnvironment, fromFile, fromCommand, basicToken]

    /// One loopback server for every session: /ok and /hook accept their credential, /echo and
    /// /basic refuse it and repeat it in their error bodies, as careless servers do.
    static func makeServer() throws -> TestHTTPServer {
        try TestHTTPServer { request, response in
            switch request.path {
            case "/ok/v1/chat/completions":
                guard request.header("authorization") == "Bearer \(fromEnvironment)" else {
                    response.send(status: 401, json: #"{"error":{"message":"no"}}"#)
                    return
                }
                response.startChunked(headers: [("Content-Type", "text/event-stream")])
                response.write(TestOpenAIServer.chunk(["content": "the answer is 42"]))
                response.write("data: [DONE]\n\n")
                response.end()
            case "/echo/v1/chat/completions":
                let sent = request.header("authorization") ?? ""
                response.send(status: 401, json: """
                    {"error":{"message":"Incorrect API key provided: \(sent.dropFirst(7)). You can find your key in your account.",\
                    "type":"invalid_request_error","code":"invalid_api_key"}}
                    """)
            case "/echo500/v1/chat/completions":
                let sent = request.header("authorization") ?? ""
                response.send(status: 500, headers: [("Content-Type", "text/html")],
                              text: "<html><head><title>Crash with \(sent)</title></head><body>\(sent)</body></html>")
            case "/hook":
                guard request.header("x-n8n-key") == fromFile else {
                    response.send(status: 403, headers: [("Content-Type", "text/plain")], text: "Authorization data is wrong!")
                    return
                }
                response.send(json: #"{"output":"hook heard you"}"#)
            case "/basic":
                let sent = request.header("authorization") ?? ""
                response.send(status: 403, headers: [("Content-Type", "text/plain")],
                              text: "Authorization data is wrong! (got \(sent), user admin password \(fromCommand))")
            default:
                response.send(status: 404, json: #"{"message":"not found"}"#)
            }
        }
    }

    struct Run: Sendable {
        var status: Int32
        var output: String
    }

    @Test func noSecretLandsAnywhereHarkWritesOrPrints() async throws {
        let server = try Self.makeServer()
        let outside = TemporaryDirectory("hark-secret")
        let secretFile = outside.write("n8n-key", Self.fromFile + "\n")
        let home = TestHome(config: """
            [session bot]
            kind = openai
            url = \(server.baseURL)/ok/v1
            auth = bearer:env:HARK_TEST_SECRET

            [session echo]
            kind = openai
            url = \(server.baseURL)/echo/v1
            auth = bearer:env:HARK_TEST_SECRET

            [session crash]
            kind = openai
            url = \(server.baseURL)/echo500/v1
            auth = bearer:env:HARK_TEST_SECRET

            [session hook]
            kind = webhook
            url = \(server.baseURL)/hook
            auth = header:X-N8N-Key:file:\(secretFile)

            [session basic]
            kind = webhook
            url = \(server.baseURL)/basic
            auth = basic:admin:cmd:printf cmdsecret-%s c3d8a6b5ff
            """)
        var environment = home.environment
        environment["HARK_TEST_SECRET"] = Self.fromEnvironment
        let export = home.directory.file("export.json")

        let fixedEnvironment = environment
        @Sendable func hark(_ arguments: [String]) throws -> Run {
            let result = try Subprocess.run([BuiltProducts.hark] + arguments, environment: fixedEnvironment,
                                            streams: .captured(input: Data()))
            return Run(status: result.status,
                       output: String(decoding: result.stdout + result.stderr, as: UTF8.self))
        }

        // Twelve whole runs, one after another: off the concurrency pool, whose two threads the
        // other tests need (held here, they starved tests waiting on terminals for minutes).
        let runs: [(String, Run)] = try await offThePool {
            try [["-s", "bot", "what is it"], ["-s", "bot", "--json", "again"], ["-s", "hook", "hello"],
                 ["-s", "echo", "hi"], ["-s", "crash", "hi"], ["-s", "basic", "hi"],
                 ["history", "--json", "-n", "50"], ["search", "--json", "answer"], ["sessions", "--json"],
                 ["export", "--format", "json"], ["export"], ["export", "--format", "json", "--output", export]].map {
                ($0.joined(separator: " "), try hark($0))
            }
        }
        let byName = Dictionary(runs, uniquingKeysWith: { first, _ in first })
        // The accepted credentials worked, so the secrets really were sent…
        #expect(byName["-s bot what is it"]?.output == "the answer is 42")
        #expect(byName["-s hook hello"]?.output.hasPrefix("hook heard you") == true)
        // …and the refusals were reported, with the echoed secret masked.
        let refused = try #require(byName["-s echo hi"])
        #expect(refused.status == HarkError.ExitCode.auth.rawValue)
        #expect(refused.output.contains("Incorrect API key provided: ***"), "\(refused.output)")
        #expect(byName["-s crash hi"]?.status == HarkError.ExitCode.backend.rawValue)
        #expect(byName["-s basic hi"]?.status == HarkError.ExitCode.auth.rawValue)
        #expect(byName["export --format json"]?.output.contains("the answer is 42") == true, "the export has the history")

        // The interactive shell: the same refusals, /info and /export on screen.
        var screens: [String] = []
        if TerminalDriver.isAvailable {
            let terminal = try home.terminal(["-s", "echo"], base: environment)
            try await terminal.waitFor(text: "/help for commands")
            // Each line waits for its answer: the screen is read after every step.
            let steps = [("hi", "refused the credentials"), ("/info", "bearer:env:HARK_TEST_SECRET"),
                         ("/session basic", "basic · hi ›"), ("hi", "403"), ("/info", "basic:admin:cmd:printf"),
                         ("/session bot", "\nbot · "), ("/export json " + home.directory.file("shell.json"), "wrote ")]
            for (line, answer) in steps {
                try terminal.press("C-l")
                try terminal.enter(line)
                screens.append(try await terminal.waitFor(text: answer))
            }
            try terminal.press("C-d")
            #expect(try await terminal.waitForExit() == 0)
        }

        for secret in Self.all {
            for (name, run) in runs {
                #expect(!run.output.contains(secret), "hark \(name) printed a secret: \(run.output)")
            }
            for screen in screens { #expect(!screen.contains(secret), "the screen shows a secret") }
            for file in Self.files(under: home.directory.path) {
                let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
                #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(file) holds a secret")
            }
        }
        #expect(Self.files(under: home.directory.path).contains { $0.hasSuffix("history.db") })
    }

    /// Every regular file below `path`: the database, its WAL, exports, anything else hark made.
    static func files(under path: String) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: path)
        var found: [String] = []
        while let relative = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            let full = path + "/" + relative
            if FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory), !isDirectory.boolValue { found.append(full) }
        }
        return found
    }
}
