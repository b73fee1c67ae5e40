import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// What a server (or anyone who can put text in what it relays) sends cannot take over the
/// terminal: for each kind, the built hark runs in a pseudo-terminal and the raw bytes it
/// writes are read. No OSC (clipboard, title, links), no DCS, no CSI but hark's own SGR,
/// erase and cursor-forward, no C1, no BEL; the text around the sequences is shown, with
/// the sequences as marks. A pipe still gets the bytes as sent, and the history keeps them.
@Suite(.timeLimit(.minutes(5)))
struct HostileTextTests {
    /// Issue 38's reply: clipboard, title, clear screen, a link hiding its target, a terminal
    /// query, an 8-bit CSI, a bell.
    static let hostile = "Hello \u{1B}]52;c;cHduZWQ=\u{7} \u{1B}]0;PWNED-TITLE\u{7} \u{1B}[2J "
        + "\u{1B}]8;;http://evil.example/\u{7}click\u{1B}]8;;\u{7} \u{1B}P+q\u{1B}\\ \u{9B}31m \u{7} END"

    /// The environment of a run on a colour terminal.
    static func terminal(_ home: TestHome) -> [String: String] {
        var environment = home.environment
        environment["NO_COLOR"] = nil
        environment["TERM"] = "xterm-256color"
        environment["HARK_HYPERLINKS"] = nil
        return environment
    }

    /// The checks every kind's run must pass.
    static func expectInert(_ run: PtyRun, _ kind: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(run.foreignSequences.isEmpty, "\(kind): \(run.foreignSequences)", sourceLocation: sourceLocation)
        #expect(run.text.contains("Hello"), "\(kind): \(run.text.debugDescription)", sourceLocation: sourceLocation)
        #expect(run.text.contains("END"), "\(kind)", sourceLocation: sourceLocation)
        #expect(run.text.contains("␛]52;c;cHduZWQ=␇"), "\(kind): the sequence shows as a mark", sourceLocation: sourceLocation)
    }

    @Test func anOpenAIReply() async throws {
        let pieces = Self.hostile.split(separator: " ").map { String($0) + " " }
        let server = try TestOpenAIServer { _ in pieces.map { .text($0) } + [.done] }
        let home = TestHome(config: "[session bot]\nkind = openai\nurl = \(server.baseURL)\n")
        Self.expectInert(try await PtyRun.run(["-s", "bot", "hi"], Self.terminal(home)), "openai")
        // Reasoning and a tool's name take the same way.
        let piped = try await HarkRun.run(["-s", "bot", "hi"], home.environment)
        #expect(piped.stdout == pieces.joined(), "a pipe gets what the server sent")
        let sanitized = try await HarkRun.run(["-s", "bot", "--sanitize", "hi"], home.environment)
        #expect(sanitized.stdout.contains("␛]52;c;cHduZWQ=␇") && !sanitized.stdout.contains("\u{1B}"))
        let store = try HistoryStore(path: home.paths.historyDatabase)
        #expect(try store.lastMessage(session: "bot", role: .assistant)?.text == pieces.joined(), "the history keeps the bytes")
    }

    @Test func anN8NWebhookReply() async throws {
        let server = try TestN8NServer { _, _ in .streaming([String(Self.hostile.prefix(20)), String(Self.hostile.dropFirst(20))]) }
        let home = TestHome(config: "[session flow]\nkind = webhook\nurl = \(server.webhookURL)\n")
        Self.expectInert(try await PtyRun.run(["-s", "flow", "hi"], Self.terminal(home)), "webhook")
    }

    /// The official SDK's echo agent says back what it hears, word by word: the sequences
    /// come back from a server hark did not write.
    @Test func anA2AAgentsReply() async throws {
        let agent = try await TestA2AAgent.shared()
        let home = TestHome(config: "[session agent]\nkind = a2a\nurl = \(agent.url("echo"))\n")
        Self.expectInert(try await PtyRun.run(["-s", "agent", Self.hostile], Self.terminal(home)), "a2a")
    }

    @Test func aNylaReply() async throws {
        let gateway = try TestNylaGateway { _ in [.event(["type": "status", "message": "Think\u{1B}]0;t\u{7}ing"]),
                                                  .chunk(Self.hostile), .complete] }
        let home = TestHome(config: "[session ny]\nkind = nyla\nurl = \(gateway.url)\nlanguage = en\ninstance = ws1\n"
            + "user = ann\npassword = env:HARK_TEST_NYLA_PASSWORD\n")
        var environment = Self.terminal(home)
        environment["HARK_TEST_NYLA_PASSWORD"] = "s3cret pass"
        Self.expectInert(try await PtyRun.run(["-s", "ny", "hi"], environment), "nyla")
    }

    /// A build's console keeps its colours (written again by hark from the parsed SGR); its
    /// other sequences are marks.
    @Test func aJenkinsConsoleKeepsItsColoursOnly() async throws {
        let server = try TestJenkinsServer()
        server.addJob("app")
        server.addBuild("app", result: "SUCCESS", log: "\u{1B}[31mred line\u{1B}[0m\n" + Self.hostile + "\n", duration: 1_000)
        let home = TestHome(config: "[session ci]\nkind = jenkins\nurl = \(server.url)\n"
            + "auth = basic:\(TestJenkinsServer.user):\(TestJenkinsServer.token)\n")
        let run = try await PtyRun.run(["-s", "ci", "/log app"], Self.terminal(home))
        Self.expectInert(run, "jenkins")
        #expect(run.text.contains("\u{1B}[0;31mred line\u{1B}[0m"), "the console's red, as hark writes it")
        #expect(!run.text.contains("\u{1B}[31m"), "not the server's own bytes")
        let piped = try await HarkRun.run(["-s", "ci", "/log app"], home.environment)
        #expect(piped.stdout.hasPrefix("\u{1B}[31mred line\u{1B}[0m\n" + Self.hostile), "a pipe gets the console as sent")
    }

    @Test func monicaNotes() async throws {
        var data = TestMonicaData.standard
        data.notes[4].body = Self.hostile
        let server = try TestMonicaServer(data: data)
        let home = TestHome(config: "[session crm]\nkind = monica\nurl = \(server.baseURL)\nauth = bearer:\(TestMonicaServer.token)\n")
        Self.expectInert(try await PtyRun.run(["-s", "crm", "/notes 1"], Self.terminal(home)), "monica")
    }

    /// `/ask` over a document holding the sequences shows its passages inert; so do `hark
    /// history` and `hark search` on a terminal, while in a pipe they give the text as kept.
    @Test func localAskHistoryAndSearch() async throws {
        let files = TemporaryDirectory()
        let document = files.write("policy.txt", "Travel policy. " + Self.hostile + " Expense claims within thirty days.\n")
        let home = TestHome(config: "[session notes]\nkind = local\n")
        #expect(try await HarkRun.run(["-s", "notes", "/docs add " + document], home.environment).status == 0)
        let ask = try await PtyRun.run(["-s", "notes", "/ask expense claims policy"], Self.terminal(home))
        Self.expectInert(ask, "local /ask")
        #expect(try await HarkRun.run(["-s", "notes", Self.hostile], home.environment).status == 0)
        Self.expectInert(try await PtyRun.run(["history", "-s", "notes"], Self.terminal(home)), "hark history")
        let search = try await PtyRun.run(["search", "END"], Self.terminal(home))
        #expect(search.foreignSequences.isEmpty && search.text.contains("END"), "\(search.text.debugDescription)")
        let piped = try await HarkRun.run(["history", "-s", "notes"], home.environment)
        #expect(piped.stdout.contains(Self.hostile), "a pipe gets the history as kept")
    }
}
