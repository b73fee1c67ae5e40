import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// The `hark` binary as scripts use it: arguments, stdin, stdout, stderr and exit codes.
@Suite struct CommandLineTests {
    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    func hark(_ arguments: [String], home: TestHome, input: String? = nil, environment: [String: String] = [:]) async throws -> Run {
        let result = try await Subprocess.run([BuiltProducts.hark] + arguments, environment: home.environment.merging(environment) { $1 },
                                        streams: .captured(input: input.map { Data($0.utf8) } ?? Data()))
        return Run(status: result.status, stdout: String(decoding: result.stdout, as: UTF8.self),
                   stderr: String(decoding: result.stderr, as: UTF8.self))
    }

    /// A Nyla session `ny` on instance ws1 that logs in with a password from the environment.
    func nylaHome(_ gateway: TestNylaGateway) -> TestHome {
        TestHome(config: "[session ny]\nkind = nyla\nurl = \(gateway.url)\nlanguage = en\ninstance = ws1\n"
            + "user = ann\npassword = env:HARK_TEST_NYLA_PASSWORD\n")
    }

    static let nylaPassword = ["HARK_TEST_NYLA_PASSWORD": "s3cret pass"]

    func openAIHome(_ server: TestOpenAIServer) -> TestHome {
        TestHome(config: "[session bot]\nkind = openai\nurl = \(server.baseURL)\n")
    }

    @Test func aMessageAsArgumentOrOnStdinPrintsTheReplyExactly() async throws {
        let server = try TestOpenAIServer { body in
            [.text("**bold** stays raw\n"), .text(body["messages"]?.array?.last?["content"]?.string ?? ""), .done]
        }
        let home = openAIHome(server)
        let argument = try await hark(["-s", "bot", "from", "arguments"], home: home)
        #expect(argument.status == 0)
        #expect(argument.stdout == "**bold** stays raw\nfrom arguments")
        #expect(argument.stderr.isEmpty)
        let piped = try await hark(["-s", "bot"], home: home, input: "from stdin\n")
        #expect(piped.stdout == "**bold** stays raw\nfrom stdin")
        #expect(!piped.stdout.contains("\u{1B}"), "no escape codes in a pipe")
    }

    @Test func jsonGivesOneObjectPerEvent() async throws {
        let server = try TestOpenAIServer { _ in [.reasoning("hm"), .text("a"), .text("b"), .usage(prompt: 3, completion: 2), .done] }
        let run = try await hark(["-s", "bot", "--json", "q"], home: openAIHome(server))
        #expect(run.status == 0)
        let events = try run.stdout.split(separator: "\n").map { try JSON.parse(String($0)) }
        // Text deltas come as they arrive (one or more objects); the rest in order.
        let types = events.map { $0["type"]?.string ?? "" }
        #expect(types.filter { $0 != "text" } == ["model", "reasoning", "usage", "done"])
        #expect(events.filter { $0["type"]?.string == "text" }.compactMap { $0["text"]?.string }.joined() == "ab")
        let done = try #require(events.last)
        #expect(done["status"]?.string == "complete")
        #expect(done["usage"]?["total_tokens"]?.int == 5)
        #expect(done["message_id"]?.int != nil)
    }

    /// `hark -s ny /prompts | …` gets the prompts alone: how hark got there (a login, a rate
    /// limit waited out) is said on stderr.
    @Test func notesOnTheWayGoToStderrNeverStdout() async throws {
        let gateway = try TestNylaGateway()
        let home = nylaHome(gateway)
        func hark(_ arguments: [String]) async throws -> Run { try await self.hark(arguments, home: home, environment: Self.nylaPassword) }
        let host = "127.0.0.1:\(gateway.http.port)"
        let prompts = try await hark(["-s", "ny", "/prompts"])
        #expect(prompts.status == 0)
        #expect(prompts.stdout.hasPrefix("summarize"))
        #expect(!prompts.stdout.contains("logged in"))
        #expect(prompts.stderr == "hark: logged in to \(host) as Ann Example\n")
        gateway.throttle(next: 1, retryAfter: "0")
        let chat = try await hark(["-s", "ny", "hello"])
        #expect(chat.status == 0)
        #expect(chat.stdout == "Echo: hello")
        #expect(chat.stderr == "hark: \(host) is rate limiting (HTTP 429); retrying\n")
    }

    /// `hark -s ny "/attach f"` says the file goes with the next message, and the next run's
    /// message takes it; `/retry` sends it again and `/history` shows it under the message.
    @Test func aFileAttachedInOneRunGoesWithTheNextRunsMessage() async throws {
        let gateway = try TestNylaGateway()
        let home = nylaHome(gateway)
        func hark(_ arguments: [String]) async throws -> Run { try await self.hark(arguments, home: home, environment: Self.nylaPassword) }
        let files = TemporaryDirectory()
        let brief = files.write("brief.txt", "Brief: keep it short.\n")
        let attach = try await hark(["-s", "ny", "/attach", brief])
        #expect(attach.status == 0)
        let id = try #require(gateway.fileIDs(named: "brief.txt").first)
        #expect(attach.stdout.contains("brief.txt uploaded as \(id); it goes with your next message"))
        #expect(try await hark(["-s", "ny", "Summarize the brief"]).status == 0)
        #expect(gateway.streamBodies.last?["fileIds"] == [.string(id)])
        #expect(try await hark(["-s", "ny", "/retry"]).status == 0)
        #expect(gateway.streamBodies.count == 2)
        #expect(gateway.streamBodies.last?["fileIds"] == [.string(id)], "a retried message goes with its files")
        let history = try await hark(["-s", "ny", "/history"])
        #expect(history.stdout.contains("Summarize the brief\n  attached: brief.txt (22 bytes)\n"))
        #expect(try await hark(["-s", "ny", "And now?"]).status == 0)
        #expect(gateway.streamBodies.last?["fileIds"] == [], "a file goes with one message only")
    }

    /// A reply cut by max_tokens: the note on stderr, `done` with its finish_reason.
    @Test func jsonDoneCarriesTheFinishReason() async throws {
        let server = try TestOpenAIServer { _ in [.text("Once upon"), .finish("length"), .done] }
        let run = try await hark(["-s", "bot", "--json", "q"], home: openAIHome(server))
        #expect(run.status == 0)
        let events = try run.stdout.split(separator: "\n").map { try JSON.parse(String($0)) }
        #expect(events.contains { $0["type"]?.string == "notice" && $0["text"]?.string == ChatCompletionDecoder.cutOffNote })
        #expect(events.last?["finish_reason"]?.string == "length")
        let plain = try await hark(["-s", "bot", "q"], home: openAIHome(server))
        #expect(plain.stdout == "Once upon")
        #expect(plain.stderr == "hark: \(ChatCompletionDecoder.cutOffNote)\n")
    }

    /// llama.cpp's mid-stream `error:` line: exit 6, the server's message on one line.
    @Test func anOldLlamaCppErrorLineExitsSix() async throws {
        let server = try TestOpenAIServer { _ in [.text("par"), .llamaError("the slot crashed"), .done] }
        let run = try await hark(["-s", "bot", "q"], home: openAIHome(server))
        #expect(run.status == 6)
        #expect(run.stdout == "par")
        #expect(run.stderr == "hark: the slot crashed\n")
    }

    @Test func exitCodesTellWhatWentWrong() async throws {
        let refusing = try RefusingPort()
        let home = TestHome(config: """
            [session down]
            kind = openai
            url = \(refusing.baseURL)/v1
            """)
        let usage = try await hark(["--frobnicate"], home: home)
        #expect(usage.status == 2)
        #expect(usage.stderr == "hark: unknown option --frobnicate; see hark --help\n")
        let unknown = try await hark(["-s", "nope", "hi"], home: home)
        #expect(unknown.status == 2)
        let network = try await hark(["-s", "down", "hi"], home: home)
        #expect(network.status == 4)
        #expect(network.stderr == "hark: cannot reach 127.0.0.1:\(refusing.port): connection refused\n")
        #expect(network.stdout.isEmpty)
        let noMessage = try await hark([], home: home, input: "")
        #expect(noMessage.status == 2)
        #expect(noMessage.stderr.contains("no message"))
        let badValue = try await hark(["-s", "down", "hi"], home: TestHome(config: """
            [session down]
            kind = openai
            url = \(refusing.baseURL)/v1
            temperature = warm
            """))
        #expect(badValue.status == 3, "a value of the wrong type is a config error, found before anything is sent")
        #expect(badValue.stderr.hasSuffix(":4: session down: temperature must be a number, 0 or more, not \"warm\"\n"))
        let noURL = try await hark(["-s", "model", "hi"], home: TestHome(config: "[session model]\nkind = openai\n"))
        #expect(noURL.status == 3, "a session the config leaves without a url is a config fault, not a usage error")
        #expect(noURL.stderr.contains("hark: session model needs url (the API base"))
        #expect(noURL.stdout.isEmpty)
    }

    @Test func authAndBackendErrorsHaveTheirOwnCodes() async throws {
        let unauthorized = try TestOpenAIServer(status: 401, errorBody: #"{"error":{"message":"bad key"}}"#) { _ in [] }
        #expect(try await hark(["-s", "bot", "hi"], home: openAIHome(unauthorized)).status == 5)
        let broken = try TestOpenAIServer(status: 500, errorBody: "<html><title>502 Bad Gateway</title></html>") { _ in [] }
        let run = try await hark(["-s", "bot", "hi"], home: openAIHome(broken))
        #expect(run.status == 6)
        #expect(run.stderr.hasSuffix("answered HTTP 500: 502 Bad Gateway\n"))
    }

    @Test func slashCommandsAndSubcommandsWorkFromScripts() async throws {
        let home = TestHome(config: "[session notes]\nkind = local\n")
        #expect(try await hark(["-s", "notes", "first note about zebras"], home: home).status == 0)
        #expect(try await hark(["-s", "notes", "second note"], home: home).status == 0)
        let threads = try await hark(["-s", "notes", "/threads"], home: home)
        #expect(threads.stdout.contains("first note about zebras"))
        let search = try await hark(["search", "zebras", "--json"], home: home)
        #expect(search.status == 0)
        let hit = try JSON.parse(search.stdout.trimmingCharacters(in: .newlines))
        #expect(hit["text"] == nil, "a hit is its snippet and size, not the text")
        #expect(hit["snippet"]?.string == "first note about zebras")
        #expect(hit["length"]?.int == "first note about zebras".utf8.count)
        #expect(hit["id"]?.int != nil && hit["thread"]?.int != nil)
        let full = try await hark(["search", "zebras", "--json", "--full"], home: home)
        #expect(try JSON.parse(full.stdout.trimmingCharacters(in: .newlines))["text"]?.string == "first note about zebras")
        #expect(try await hark(["search", "unicorns"], home: home).status == 1)
        let history = try await hark(["history", "-n", "1"], home: home)
        #expect(history.stdout.hasSuffix("[notes] you: second note\n"))
        let export = try await hark(["export", "-s", "notes", "--format", "md"], home: home)
        #expect(export.stdout.contains("## You · "))
        #expect(try await hark(["sessions", "--names"], home: home).stdout == "local\nnotes\n")
        #expect(try await hark(["//literal slash", "-s", "notes"], home: home).status == 0)
        #expect(try await hark(["history", "-n", "1"], home: home).stdout.hasSuffix("you: /literal slash\n"))
    }

    @Test func sessionAddEditRemoveFromTheCommandLine() async throws {
        let home = TestHome()
        let added = try await hark(["session", "add", "helpdesk", "--kind", "webhook", "--url", "http://127.0.0.1:9/chat",
                              "--auth", "header:X-Key:env:KEY"], home: home)
        #expect(added.status == 0, "\(added.stderr)")
        #expect(try await hark(["session", "edit", "helpdesk", "stream=off"], home: home).status == 0)
        let config = try String(contentsOfFile: home.paths.configFile, encoding: .utf8)
        #expect(config.contains("[session helpdesk]\nkind = webhook\nurl = http://127.0.0.1:9/chat\nauth = header:X-Key:env:KEY\nstream = off"))
        let bad = try await hark(["session", "add", "x", "--kind", "webhok", "--url", "http://h"], home: home)
        #expect(bad.status == 2)
        #expect(bad.stderr == "hark: session x: unknown kind \"webhok\"; did you mean webhook?\n")
        #expect(try await hark(["session", "rm", "helpdesk"], home: home).status == 0)
        #expect(try await hark(["sessions", "--names"], home: home).stdout == "local\n")
    }

    @Test func fourProcessesShareOneHistory() async throws {
        let home = TestHome(config: "[session notes]\nkind = local\n")
        _ = try await hark(["-s", "notes", "warm up"], home: home)
        try await withThrowingTaskGroup(of: Int32.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    var failures: Int32 = 0
                    for index in 0..<25 {
                        // Each run blocks until hark exits: off the concurrency pool, which other tests need.
                        let run = try await self.hark(["-s", "notes", "w\(worker) n\(index)"], home: home)
                        if run.status != 0 || !run.stderr.isEmpty { failures += 1 }
                    }
                    return failures
                }
            }
            for try await failures in group { #expect(failures == 0) }
        }
        let store = try HistoryStore(path: home.paths.historyDatabase)
        #expect(try store.messageCount() == 101)
        #expect(try store.database.scalar("PRAGMA integrity_check").string == "ok")
    }

    @Test func versionAndHelpNeedNoConfig() async throws {
        let home = TestHome()
        #expect(try await hark(["version"], home: home).stdout == "hark \(HarkVersion.string)\n")
        #expect(try await hark(["--help"], home: home).stdout.contains("usage: hark [-s NAME]"))
        #expect(try await hark(["help", "thread"], home: home).stdout.contains("/thread NAME|ID"))
        #expect(!FileManager.default.fileExists(atPath: home.paths.historyDatabase), "version touches nothing")
    }

    @Test func aFailedBuildExitsNonZeroFromAScript() async throws {
        let jenkins = try TestJenkinsServer()
        jenkins.addJob("app")
        let home = TestHome(config: "[session ci]\nkind = jenkins\nurl = \(jenkins.url)\n"
            + "auth = basic:\(TestJenkinsServer.user):\(TestJenkinsServer.token)\npoll_interval = 0.005\n")
        let run = Task.detached { try await self.hark(["-s", "ci", "/build app"], home: home) }
        #expect(await jenkins.until { $0.contains { $0.path.hasSuffix("/api/json") && $0.path.hasPrefix("/queue/item/") } })
        let number = jenkins.start(try #require(jenkins.lastQueueID))
        jenkins.append("app", number, "compiling\nerror: undefined symbol main\n")
        jenkins.finish("app", number, "FAILURE", duration: 1.5)
        let result = try await run.value
        #expect(result.stdout.contains("error: undefined symbol main"))
        #expect(result.status == 6, "a script can tell a failed build: \(result.stderr)")
    }
}
