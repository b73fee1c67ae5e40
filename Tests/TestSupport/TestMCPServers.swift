import Foundation
import HarkCore

/// The official MCP reference servers the tests speak to, as `scripts/setup.sh --test`
/// installs them: `mcp-server-time` and `mcp-server-git` (PyPI, in .local/venv) run over
/// stdio by hark itself, and `mcp-proxy` (PyPI, in .local/mcp-proxy) serving mcp-server-time
/// over Streamable HTTP at `/mcp`, started once per test run.
public enum TestMCPServers {
    public enum Failure: Error, CustomStringConvertible {
        case missing(String)
        case start(String)

        public var description: String {
            switch self {
            case .missing(let what): return "\(what) is missing; run scripts/setup.sh --test"
            case .start(let why): return "mcp-proxy did not start: \(why)"
            }
        }
    }

    static var root: String { VoiceTestAssets.root }
    public static var time: String { root + "/.local/venv/bin/mcp-server-time" }
    public static var git: String { root + "/.local/venv/bin/mcp-server-git" }
    static var proxy: String { root + "/.local/mcp-proxy/bin/mcp-proxy" }

    /// `[mcp NAME]` sections for the config of a test home.
    public static func section(_ name: String, _ lines: String...) -> String {
        "[mcp \(name)]\n" + lines.joined(separator: "\n") + "\n"
    }

    public static func requireTime() throws -> String {
        guard FileManager.default.isExecutableFile(atPath: time) else { throw Failure.missing(time) }
        return time
    }

    private static let sdkStart = Task { try await startSDKServer(root + "/Tests/Fixtures/mcp/sse_server.py") { sdkPID = $0 } }

    /// The Streamable HTTP endpoint of the MCP Python SDK's own server, answering with SSE
    /// (Tests/Fixtures/mcp/sse_server.py: one tool, `add`).
    public static func sdkServerURL() async throws -> String { try await sdkStart.value }

    private static func startSDKServer(_ script: String, arguments: [String] = [],
                                        started: (pid_t) -> Void) async throws -> String {
        guard FileManager.default.isExecutableFile(atPath: python) else { throw Failure.missing(python) }
        let process = try ChildProcess([python, script] + arguments, environment: ProcessInfo.processInfo.environment)
        started(process.pid)
        atexit {
            if sdkPID > 0 { kill(sdkPID, SIGTERM) }
            if elicitPID > 0 { kill(elicitPID, SIGTERM) }
        }
        try await process.waitFor(stdout: "\n")
        guard let line = process.stdout.split(separator: "\n").first, line.hasPrefix("port "), let port = Int(line.dropFirst(5)) else {
            throw Failure.start("stdout \(process.stdout), stderr \(process.stderr)")
        }
        return "http://127.0.0.1:\(port)/mcp"
    }

    public static var python: String { root + "/.local/venv/bin/python" }
    /// The server whose tools ask the user (MCP elicitation): stdio by default, `http` for Streamable HTTP.
    public static var elicitFixture: String { root + "/Tests/Fixtures/mcp/elicit_server.py" }

    private static let elicitStart = Task { try await startSDKServer(elicitFixture, arguments: ["http"]) { elicitPID = $0 } }

    /// The Streamable HTTP endpoint of Tests/Fixtures/mcp/elicit_server.py.
    public static func elicitServerURL() async throws -> String { try await elicitStart.value }

    private static let proxyStart = Task { try await startProxy() }

    /// The Streamable HTTP endpoint of mcp-proxy in front of mcp-server-time.
    public static func proxiedTimeURL() async throws -> String { try await proxyStart.value }

    private static func startProxy() async throws -> String {
        guard FileManager.default.isExecutableFile(atPath: proxy) else { throw Failure.missing(proxy) }
        let time = try requireTime()
        // No --port: mcp-proxy picks a free one and uvicorn logs it
        // ("Uvicorn running on http://127.0.0.1:PORT (Press CTRL+C to quit)").
        let process = try ChildProcess([proxy, "--host", "127.0.0.1", "--", time], environment: ProcessInfo.processInfo.environment)
        proxyPID = process.pid
        atexit { if proxyPID > 0 { kill(proxyPID, SIGTERM) } }
        try await process.waitFor(stderr: "Uvicorn running on")
        // Not the first URL it logs: "Serving MCP Servers via SSE: http://127.0.0.1:0/sse" comes before.
        let log = process.stderr
        guard let line = log.range(of: "Uvicorn running on "),
              let range = log.range(of: #"http://127\.0\.0\.1:[0-9]+"#, options: .regularExpression, range: line.upperBound..<log.endIndex) else {
            throw Failure.start(log)
        }
        return String(log[range]) + "/mcp"
    }
}

private nonisolated(unsafe) var proxyPID: pid_t = 0
private nonisolated(unsafe) var sdkPID: pid_t = 0
private nonisolated(unsafe) var elicitPID: pid_t = 0
