import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// Text and files piped into a one-shot hark, as scripts use it, against recording servers:
/// what the server received, what was stored, and what `/retry` sends again. (The README's
/// examples run in ReadmePipesTests.)
@Suite struct PipesTests {
    func hark(_ arguments: [String], home: TestHome, input: [UInt8] = []) async throws -> HarkRun {
        try await HarkRun.run(arguments, home.environment, input: input)
    }

    func hark(_ arguments: [String], home: TestHome, input: String) async throws -> HarkRun {
        try await hark(arguments, home: home, input: Array(input.utf8))
    }

    static func modelHome(_ server: TestOpenAIServer) -> TestHome {
        TestHome(config: "[session bot]\nkind = openai\nurl = \(server.baseURL)\n")
    }

    /// The last user message of each chat request, as text.
    static func sent(_ server: TestOpenAIServer) -> [String] {
        server.sentMessages.compactMap { $0.last(where: { $0.role == .user })?.text }
    }

    static let diff = "diff --git a/db.c b/db.c\n-  sync();\n+  fsync(fd);\n"

    @Test func theMessageAndItsPipedTextAreOneStoredMessageThatRetrySendsAgain() async throws {
        let server = try TestOpenAIServer { _ in [.text("looks fine"), .done] }
        let home = Self.modelHome(server)
        let run = try await hark(["-s", "bot", "review this diff"], home: home, input: Self.diff)
        #expect(run.status == 0)
        #expect(run.stdout == "looks fine")
        let shape = "review this diff\n\n```diff\ndiff --git a/db.c b/db.c\n-  sync();\n+  fsync(fd);\n```"
        #expect(Self.sent(server) == [shape])
        let store = try HistoryStore(path: home.paths.historyDatabase)
        let stored = try #require(try store.lastMessage(session: "bot", role: .user))
        #expect(stored.text == shape)
        #expect(stored.pipedText == "```diff\ndiff --git a/db.c b/db.c\n-  sync();\n+  fsync(fd);\n```")
        #expect(try await hark(["-s", "bot", "/retry"], home: home).status == 0)
        #expect(Self.sent(server) == [shape, shape], "/retry sends both parts")
        let history = try await hark(["-s", "bot", "/history"], home: home)
        #expect(history.stdout.contains(shape + "\n  piped in: 5 lines, 61 B\n"))
        let export = try JSON.parse(try await hark(["export", "-s", "bot", "--format", "json"], home: home).stdout)
        let first = export["threads"]?[0]?["messages"]?[0]
        #expect(first?["text"]?.string == shape)
        #expect(first?["piped"]?.string == stored.pipedText.map(String.init))
        #expect(try await hark(["search", "fsync"], home: home).stdout.contains("review this diff"), "search finds the piped part")
    }

    @Test func pipedTextAloneIsTheMessageByteForByte() async throws {
        let server = try TestOpenAIServer { _ in [.text("ok"), .done] }
        let home = Self.modelHome(server)
        #expect(try await hark(["-s", "bot"], home: home, input: "  indented\n\n{not json\t \n\n").status == 0)
        #expect(try await hark(["-s", "bot", "-"], home: home, input: "through -\n").status == 0)
        #expect(Self.sent(server) == ["  indented\n\n{not json\t ", "through -"])
        let store = try HistoryStore(path: home.paths.historyDatabase)
        #expect(try store.lastMessage(session: "bot", role: .user)?.pipedFrom == 0)
    }

    @Test func noStdinLeavesStdinUnreadAndACommandReadsNone() async throws {
        let server = try TestOpenAIServer { _ in [.text("ok"), .done] }
        let home = Self.modelHome(server)
        #expect(try await hark(["-s", "bot", "--no-stdin", "just this"], home: home, input: "not this").status == 0)
        #expect(Self.sent(server) == ["just this"])
        let threads = try await hark(["-s", "bot", "/threads"], home: home, input: "not read")
        #expect(threads.status == 0)
        #expect(threads.stdout.contains("just this"))
        let both = try await hark(["-s", "bot", "--no-stdin", "-"], home: home, input: "x")
        #expect(both.status == 2)
        #expect(both.stderr == "hark: - reads the message from stdin; leave out --no-stdin\n")
        let empty = try await hark(["-s", "bot", "-"], home: home, input: "")
        #expect(empty.stderr == "hark: - reads the message from stdin, and nothing came\n")
        let badEnd = try await hark(["-s", "bot", "--truncate", "middle", "x"], home: home)
        #expect(badEnd.status == 2)
        #expect(badEnd.stderr == "hark: --truncate takes head (keep the beginning) or tail (keep the end), not middle\n")
        #expect(server.bodies.count == 1)
    }

    /// Over the window the server told, with --json: the error as a JSON line too, exit 2, and
    /// no request. `--truncate head` sends the beginning that fits and says what was cut.
    @Test func tooMuchIsRefusedOrCutToTheBeginning() async throws {
        let props: JSON = ["default_generation_settings": ["n_ctx": 1024]]
        let server = try TestOpenAIServer(props: props) { _ in [.text("ok"), .done] }
        let home = Self.modelHome(server)
        let lines = (1...2000).map { "line \($0)" }.joined(separator: "\n") + "\n"
        let refused = try await hark(["-s", "bot", "--json", "count the lines"], home: home, input: lines)
        #expect(refused.status == 2)
        let expected = "the message and its 18.4 KB of piped text are about 4,700 tokens; bot takes 1,024 "
            + "(256 of them kept for the reply): --truncate head|tail sends what fits"
        #expect(refused.stderr == "hark: \(expected)\n")
        #expect(try JSON.parse(refused.stdout)["message"]?.string == expected)
        #expect(server.bodies.isEmpty)
        let cut = try await hark(["-s", "bot", "--truncate", "head", "count the lines"], home: home, input: lines)
        #expect(cut.status == 0)
        let message = try #require(Self.sent(server).last)
        #expect(message.hasPrefix("count the lines\n\nline 1\nline 2\n"))
        let kept = message.split(separator: "\n").filter { $0.hasPrefix("line ") }.count
        let cutCount = ByteCount.grouped(2000 - kept)
        #expect(message.hasSuffix("\nline \(kept)\n[the last \(cutCount) of 2,000 lines were cut to fit the context]"))
        #expect(cut.stderr == "hark: only the first \(kept) of 2,000 lines of piped text fit bot's context; the last \(cutCount) were cut\n")
        #expect(TokenEstimator.raw(message: message) <= 768, "it fits the prompt's room")
        #expect(TokenEstimator.raw(message: message) > 700, "and uses most of it")
    }

    /// Bytes piped to a session that takes files go as a file by /attach's rules: to n8n as a
    /// multipart upload named by its type, sent again by /retry; a kind that takes none refuses.
    @Test func pipedBytesGoAsAFileWhereTheKindTakesFiles() async throws {
        let server = try TestN8NServer { _, _ in .streaming(["got it"]) }
        let home = TestHome(config: "[session helpdesk]\nkind = webhook\nurl = \(server.webhookURL)\n"
            + "[session ci]\nkind = jenkins\nurl = http://127.0.0.1:9\n")
        let png = DocumentFixtures.png
        let run = try await hark(["-s", "helpdesk", "file this receipt"], home: home, input: png)
        #expect(run.status == 0)
        #expect(run.stdout == "got it")
        #expect(try await hark(["-s", "helpdesk", "/retry"], home: home).status == 0)
        let uploads = server.http.requests.map(\.body)
        #expect(uploads.count == 2)
        let part = Array("name=\"files\"; filename=\"stdin.png\"\r\nContent-Type: image/png\r\n\r\n".utf8) + png
        for body in uploads { #expect(body.firstRange(of: part) != nil) }
        #expect(String(decoding: uploads[0], as: UTF8.self).contains("name=\"chatInput\"\r\n\r\nfile this receipt"))
        let refused = try await hark(["-s", "ci", "build it"], home: home, input: png)
        #expect(refused.status == 2)
        #expect(refused.stderr == "hark: a jenkins session takes no files, so stdin.png cannot go to ci\n")
        let alone = try await hark(["-s", "helpdesk"], home: home, input: png)
        #expect(alone.status == 2)
        #expect(alone.stderr.contains("the piped image/png goes as a file, with a message"))
        #expect(server.http.requests.count == 2)
        let kept = try FileManager.default.subpathsOfDirectory(atPath: home.paths.dataDirectory + "/attachments")
        #expect(kept.filter { $0.hasSuffix("stdin.png") }.count == 1, "the refused file is not kept")
    }

    /// A Nyla session takes files by its own /attach, which uploads them: piped bytes go the
    /// same way, and the message goes with the uploaded file's id.
    @Test func pipedBytesAreUploadedToANylaWorkspace() async throws {
        let gateway = try TestNylaGateway()
        let home = TestHome(config: "[session ny]\nkind = nyla\nurl = \(gateway.url)\nlanguage = en\ninstance = ws1\n"
            + "user = ann\npassword = env:HARK_TEST_NYLA_PASSWORD\n")
        var environment = home.environment
        environment["HARK_TEST_NYLA_PASSWORD"] = "s3cret pass"
        let run = try await HarkRun.run(["-s", "ny", "what is in this picture?"], environment, input: DocumentFixtures.png)
        #expect(run.status == 0, "\(run.stderr)")
        let id = try #require(gateway.fileIDs(named: "stdin.png").first)
        #expect(gateway.streamBodies.last?["fileIds"] == [.string(id)])
    }
}
