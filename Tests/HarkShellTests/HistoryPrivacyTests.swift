import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// The history is private and kept honestly: no literal secret typed in the shell enters it,
/// its files are the user's alone whatever the umask, a newer hark's file is never written,
/// and a reply streaming in another PID namespace is not taken for dead.
@Suite struct HistoryPrivacyTests {
    static func mode(_ path: String) -> mode_t {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o777 : 0
    }

    // MARK: 2. A literal secret typed in the shell is not kept

    @Test func aLineWithALiteralSecretIsNotKeptInTheInputHistory() async throws {
        guard TerminalDriver.isAvailable else { return }
        let literal = "sk-live-typed-5e0c7a19"
        let home = TestHome(config: "[session local]\nkind = local\n")
        var environment = home.environment
        environment["EDITRC"] = home.directory.write("editrc", "")
        environment["TERM"] = "xterm-256color"
        let terminal = try TerminalDriver([BuiltProducts.hark], environment: environment)
        try await terminal.waitFor(text: "/help for commands")
        try terminal.type("/session add x --kind openai --url http://127.0.0.1:9/v1 --auth bearer:\(literal)")
        try terminal.press("Enter")
        let first = try await terminal.waitFor(text: "added session x")
        #expect(first.contains(InputRecording.note))
        try terminal.type("/session add y --kind openai --url http://127.0.0.1:9/v1 --auth bearer:\(literal)y")
        try terminal.press("Enter")
        let second = try await terminal.waitFor(text: "added session y")
        #expect(second.components(separatedBy: InputRecording.note).count == 2, "said once")
        try terminal.type("kept note")
        try terminal.press("Enter")
        try await terminal.waitFor(text: "kept note")
        // Up twice and Enter: with the secret lines not kept there is nothing before "kept
        // note", so it comes back and is sent again; kept, the second secret line would.
        try terminal.press("Up")
        try terminal.press("Up")
        try terminal.press("Enter")
        try terminal.type("/history 3")
        try terminal.press("Enter")
        let screen = try await terminal.waitFor("the history") { $0.components(separatedBy: "kept note").count >= 4 }
        #expect(screen.components(separatedBy: literal).count - 1 == 2, "only the two lines typed show it: \(screen)")
        #expect(!screen.contains("exists already"))
        try terminal.press("C-d")
        #expect(try await terminal.waitForExit() == 0)
        let store = try HistoryStore(path: home.paths.historyDatabase)
        #expect(try store.inputHistory(session: "local") == ["kept note", "kept note", "/history 3"])
        for file in SecretsTests.files(under: home.paths.dataDirectory) {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
            #expect(bytes.range(of: Data(literal.utf8)) == nil, "\(file) holds the typed secret")
        }
    }

    // MARK: 4. Private files whatever the umask

    @Test func theHistoryAndExportsArePrivateWhateverTheUmask() async throws {
        let home = TestHome()
        let umask000 = ["/bin/sh", "-c", "umask 000; exec \"$0\" \"$@\"", BuiltProducts.hark]
        func run(_ arguments: [String]) async throws -> Subprocess.Result {
            try await offThePool {
                try Subprocess.run(umask000 + arguments, environment: home.environment, streams: .captured(input: Data()))
            }
        }
        let note = try await run(["-s", "local", "a private note"])
        #expect(note.status == 0)
        #expect(note.stderr.isEmpty, "nothing to tighten in a folder hark made")
        let path = home.paths.historyDatabase
        #expect(Self.mode(home.paths.dataDirectory) == 0o700)
        for file in [path, path + "-wal", path + "-shm"] {
            #expect(Self.mode(file) == 0o600, "\(file) is \(String(Self.mode(file), radix: 8))")
        }
        let export = home.directory.file("export.json")
        #expect(try await run(["export", "--format", "json", "--output", export]).status == 0)
        #expect(Self.mode(export) == 0o600)
        // A file the user named that exists keeps its own mode.
        let shared = home.directory.write("shared.md", "", mode: 0o644)
        chmod(shared, 0o644)
        #expect(try await run(["export", "--output", shared]).status == 0)
        #expect(Self.mode(shared) == 0o644)
        #expect(try String(contentsOfFile: shared, encoding: .utf8).contains("a private note"))
        // A folder an older hark left open is tightened, with one note, once.
        chmod(home.paths.dataDirectory, 0o755)
        chmod(path, 0o644)
        let tightened = try await run(["-s", "local", "another"])
        #expect(String(decoding: tightened.stderr, as: UTF8.self)
            == "hark: note: made \(home.paths.dataDirectory) private (0700): it held the history and others could open it\n")
        #expect(Self.mode(home.paths.dataDirectory) == 0o700)
        #expect(Self.mode(path) == 0o600)
        #expect(try await run(["-s", "local", "again"]).stderr.isEmpty)
    }

    // MARK: A read-only history

    /// A history its owner made read-only (0444) stays read-only: start-up's tightening takes
    /// only the group's and others' bits away (0400, never giving write back), a message is
    /// refused in one line (exit 7) before anything is sent, and history and search still read
    /// it, the text not yet indexed too. As an unprivileged user: root writes whatever the mode.
    @Test(.enabled(if: UnprivilegedUser.isAvailable, "needs root and setpriv (util-linux) to run hark as an unprivileged user"))
    func aReadOnlyHistoryStaysReadOnly() async throws {
        let server = try TestHTTPServer { _, response in response.send(json: #"{"output":"heard the aardvark"}"#) }
        let home = TestHome(config: "[hark]\ndefault = hook\n\n[session hook]\nkind = webhook\nurl = \(server.baseURL)/hook\n")
        try UnprivilegedUser.give(home.directory.path)
        let first = try await UnprivilegedUser.hark(["remember the aardvark"], home.environment)
        #expect(first.status == 0, "\(first.output)")
        #expect(server.requests.count == 1)
        let path = home.paths.historyDatabase
        #expect(chmod(path, 0o444) == 0)
        let refused = try await UnprivilegedUser.hark(["and the anteater"], home.environment)
        #expect(refused.status == HarkError.ExitCode.storage.rawValue)
        #expect(refused.stderr == "hark: history database: \(path) is read-only (mode 0400); hark stores every message "
            + "before it sends it, so it sends nothing: make the file writable (chmod u+w) to send, or read it with hark "
            + "history, search or export\n")
        #expect(server.requests.count == 1, "a message was sent")
        #expect(Self.mode(path) == 0o400, "\(String(Self.mode(path), radix: 8))")
        let history = try await UnprivilegedUser.hark(["history"], home.environment)
        #expect(history.status == 0, "\(history.output)")
        #expect(history.stdout.contains("you: remember the aardvark") && history.stdout.contains("heard the aardvark"))
        #expect(!history.stdout.contains("anteater"))
        let search = try await UnprivilegedUser.hark(["search", "aardvark"], home.environment)
        #expect(search.status == 0, "\(search.output)")
        #expect(search.stdout.contains("aardvark"))
        #expect(Self.mode(path) == 0o400)
    }

    // MARK: 7. A history from a newer hark

    @Test func aNewerHistoryIsNotWrittenButCanBeRead() async throws {
        let home = TestHome()
        #expect(try await HarkRun.run(["-s", "local", "remember the aardvark"], home.environment).status == 0)
        do {
            let store = try HistoryStore(path: home.paths.historyDatabase)
            try store.database.execute("INSERT INTO schema_migrations(name, applied_at) VALUES ('900-from-a-newer-hark', 0)")
            try store.database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        let bytes = { try Data(contentsOf: URL(fileURLWithPath: home.paths.historyDatabase)) }
        let before = try bytes()
        let refused = try await HarkRun.run(["-s", "local", "another note"], home.environment)
        #expect(refused.status == HarkError.ExitCode.storage.rawValue)
        #expect(refused.stderr.split(separator: "\n").count == 1)
        #expect(refused.stderr.contains("was made by a newer hark (it records the step 900-from-a-newer-hark, which this hark "
            + "does not know); upgrade hark, or read it with hark history, search or export"), "\(refused.stderr)")
        for arguments in [["history"], ["search", "aardvark"], ["export"], ["export", "--format", "json"]] {
            let run = try await HarkRun.run(arguments, home.environment)
            #expect(run.status == 0, "\(arguments): \(run.output)")
            #expect(run.stdout.contains("aardvark"), "\(arguments)")
        }
        #expect(try bytes() == before, "the file was written")
        let wal = home.paths.historyDatabase + "-wal"
        #expect((try? Data(contentsOf: URL(fileURLWithPath: wal)))?.isEmpty ?? true, "the WAL was written")
    }

    // MARK: 11. A writer in another PID namespace

    /// Two containers sharing the data folder, each hark PID 1 of its own namespace: one
    /// streams a reply while the other opens the history. Judged by PID, the reply was "ours,
    /// so dead" and folded as partial mid-stream; by the writer's lock it is left alone.
    @Test func aReplyStreamingInAnotherPIDNamespaceIsNotFolded() async throws {
        guard Self.canUnsharePIDs else { return }  // needs root (CAP_SYS_ADMIN), as CI has
        let gate = Gate()
        let server = try Self.heldReply(first: "streaming ", gate: gate, rest: "on")
        defer { gate.open() }
        // The reply is held silent for as long as the other run takes: on a loaded suite that
        // passed the default 120 s of silence, and the writer gave up (exit 4, folded partial).
        let home = TestHome(config: "[session bot]\nkind = openai\nurl = \(server.baseURL)/v1\nidle_timeout = 900\n")
        let container = ["/usr/bin/unshare", "--pid", "--fork", BuiltProducts.hark]
        let writer = try RunningProcess(container + ["-s", "bot", "hi"], environment: home.environment)
        let printed = try await offThePool { writer.readStdout(atLeast: "streaming ".utf8.count) }
        #expect(printed)
        let other = try await offThePool {
            try Subprocess.run(container + ["-s", "local", "a note from the other container"], environment: home.environment,
                               streams: .captured(input: Data()))
        }
        #expect(other.status == 0, "\(String(decoding: other.stderr, as: UTF8.self))")
        let store = try #require(HistoryStore.openForReading(path: home.paths.historyDatabase))
        let open = try store.database.scalar("SELECT writer_pid FROM messages WHERE role = 'assistant'")
        #expect(open == .integer(1), "the streaming reply was folded by the other namespace's hark")
        gate.open()
        let status = try await offThePool { writer.wait() }
        #expect(status == 0)
        let reply = try #require(try HistoryStore(path: home.paths.historyDatabase).lastMessage(session: "bot", role: .assistant))
        #expect(reply.status == .complete)
        #expect(reply.text == "streaming on")
    }

    /// An OpenAI-compatible streamed reply (as TestOpenAIServer writes it) that holds after
    /// `first` until the test opens the gate: held for minutes, not TestOpenAIServer's 30 s,
    /// since on a loaded machine starting two harks can take longer than that.
    static func heldReply(first: String, gate: Gate, rest: String) throws -> TestHTTPServer {
        try TestHTTPServer { _, response in
            response.startChunked(headers: [("Content-Type", "text/event-stream")])
            response.write(TestOpenAIServer.chunk(["content": .string(first)]))
            gate.wait(seconds: 600)
            response.write(TestOpenAIServer.chunk(["content": .string(rest)]))
            response.write("data: [DONE]\n\n")
        }
    }

    static let canUnsharePIDs: Bool = {
        (try? Subprocess.run(["/usr/bin/unshare", "--pid", "--fork", "/bin/true"], streams: .discarded))?.status == 0
    }()
}
