import Foundation
import HarkCore

/// The A2A test agents (`Tests/Fixtures/a2a/agent.py`), served by the official Python SDK
/// (`a2a-sdk`, which `scripts/setup.sh --test` installs into `.local/venv`) on a free loopback
/// port. Started once per test run, as importing the SDK takes a second or more; stopped by its
/// PID when the test process exits (and it leaves by itself if that exit is abrupt).
public final class TestA2AAgent: @unchecked Sendable {
    public let process: ChildProcess
    public let port: Int

    public static let bearerToken = "s3cret-token"
    public static let apiKey = "k3y"

    public var baseURL: String { "http://127.0.0.1:\(port)" }
    /// The base URL of one of the agents: echo, plain, secure, keyed, querykey, legacy, grpc.
    public func url(_ agent: String) -> String { baseURL + "/" + agent }

    public enum Failure: Error, CustomStringConvertible {
        case missing(String)
        case start(String)
        public var description: String {
            switch self {
            case .missing(let what): return "\(what) is missing; run scripts/setup.sh --test"
            case .start(let why): return "the A2A test agent did not start: \(why)"
            }
        }
    }

    public static var python: String { VoiceTestAssets.root + "/.local/venv/bin/python" }
    public static var script: String { VoiceTestAssets.root + "/Tests/Fixtures/a2a/agent.py" }

    private static let starting = Task { try await TestA2AAgent.start() }

    /// The agent every test shares.
    public static func shared() async throws -> TestA2AAgent { try await starting.value }

    private init(process: ChildProcess, port: Int) {
        self.process = process
        self.port = port
    }

    private static func start() async throws -> TestA2AAgent {
        guard FileManager.default.isExecutableFile(atPath: python) else { throw Failure.missing(".local/venv") }
        let process = try ChildProcess([python, script], environment: ProcessInfo.processInfo.environment)
        runningPID = process.pid
        atexit { if runningPID > 0 { kill(runningPID, SIGTERM) } }
        // It prints its port once the socket listens; a request made then waits in the backlog
        // until the server takes it, so the card's first fetch is the readiness check.
        try await process.waitFor(stdout: "\n")
        guard let line = process.stdout.split(separator: "\n").first, line.hasPrefix("port "),
              let port = Int(line.dropFirst(5)) else {
            throw Failure.start("stdout \(process.stdout), stderr \(process.stderr)")
        }
        let agent = TestA2AAgent(process: process, port: port)
        let card = try await HTTPClient().fetch(HTTPRequest(url: agent.url("echo") + "/.well-known/agent-card.json"))
        guard card.status == 200 else { throw Failure.start("the card answered HTTP \(card.status): \(card.text)") }
        return agent
    }

    /// A JSON-RPC 1.0 call to an agent, to look at a task as the server sees it.
    public func call(_ agent: String, method: String, params: JSON) async throws -> JSON {
        let body: JSON = ["jsonrpc": "2.0", "id": 1, "method": .string(method), "params": params]
        let response = try await HTTPClient().fetch(.json(url: url(agent) + "/", body: body,
                                                          headers: [("A2A-Version", "1.0")]))
        return try response.json()
    }

    /// The state the server holds for a task (`TASK_STATE_CANCELED`…).
    public func taskState(_ agent: String, id: String) async throws -> String? {
        try await call(agent, method: "GetTask", params: ["id": .string(id)])["result"]?["status"]?["state"]?.string
    }
}

private nonisolated(unsafe) var runningPID: pid_t = 0
