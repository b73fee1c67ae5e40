import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// hark's MCP client against the official reference servers, over stdio and over Streamable
/// HTTP (mcp-proxy). What they answer, read from the servers themselves (modelcontextprotocol/
/// servers, src/time and src/git, 2026.10.19, spoken to by hand over stdio): `initialize`
/// answers protocolVersion "2025-11-25" with serverInfo `mcp-time` / `mcp-git`; tools/list
/// has no nextCursor; a tool's own failure is a result with `isError: true` ("Error executing
/// tool get_current_time: Invalid timezone: …"); an unknown tool is the JSON-RPC error -32602
/// "Unknown tool: NAME" (which mcp-proxy 0.13 answers as an `isError` result with that text);
/// the server exits 0 when its stdin closes.
@Suite(.serialized) struct MCPServerTests {
    static func server(_ name: String, _ values: [String: String]) -> MCPServer {
        MCPServer(config: MCPServerConfig(name: name, values: values), http: HTTPClient(),
                  environment: ProcessInfo.processInfo.environment)
    }

    static func checkTimeServer(_ server: MCPServer) async throws {
        let tools = try await server.tools()
        #expect(tools.map(\.name) == ["get_current_time", "convert_time"])
        let schema = try #require(tools.first?.inputSchema)
        #expect(schema["properties"]?["timezone"]?["type"]?.string == "string")
        guard case .running(2, let info) = server.status else {
            Issue.record("status \(server.status)")
            return
        }
        // Over HTTP hark asked `server/discover` first: mcp-proxy (MCP SDK 1.30) answered 400
        // with a JSON-RPC error ("Bad Request: Missing session ID"), and hark fell back.
        #expect(info == "mcp-time 2026.10.19, protocol 2025-11-25 (session)")

        let (text, isError) = try await server.call("get_current_time", arguments: ["timezone": "Europe/Paris"])
        #expect(!isError)
        #expect(try JSON.parse(text)["timezone"]?.string == "Europe/Paris")

        let (failure, failed) = try await server.call("get_current_time", arguments: ["timezone": "Mars/Olympus"])
        #expect(failed)
        #expect(failure.contains("Invalid timezone"))

        let (unknown, unknownFailed) = try await server.call("nope", arguments: [:])
        #expect(unknownFailed)
        // Over stdio the server's JSON-RPC error; mcp-proxy (MCP SDK 1.x) passes it on as a
        // result with isError: either way the model reads it as the tool's error.
        #expect(unknown == "MCP error -32602: Unknown tool: nope" || unknown == "Unknown tool: nope")
    }

    @Test func theTimeServerOverStdio() async throws {
        let server = Self.server("time", ["command": try TestMCPServers.requireTime()])
        defer { server.stop() }
        try await Self.checkTimeServer(server)
    }

    @Test func theTimeServerOverStreamableHTTPThroughMCPProxy() async throws {
        let server = Self.server("time", ["url": try await TestMCPServers.proxiedTimeURL()])
        defer { server.stop() }
        try await Self.checkTimeServer(server)
    }

    /// The SDK's own HTTP server, held to the handshake (`protocol = 2025-11-25`), answers
    /// every request as an SSE stream and requires the session id it gave with `initialize` on
    /// every later request (400 without it).
    @Test func theSDKsStreamableHTTPServerAnswersWithEventStreams() async throws {
        let server = Self.server("sdk", ["url": try await TestMCPServers.sdkServerURL(), "protocol": "2025-11-25"])
        defer { server.stop() }
        let tools = try await server.tools()
        #expect(tools.map(\.name) == ["add", "forecast"])
        guard case .running(2, let info) = server.status else {
            Issue.record("status \(server.status)")
            return
        }
        #expect(info == "hark-fixture, protocol 2025-11-25 (session)")
        let (text, isError) = try await server.call("add", arguments: ["a": 2, "b": 3])
        #expect(!isError)
        #expect(text == "5")
    }

    @Test func theGitServerReadsTheRepositoryItWasGiven() async throws {
        let directory = TemporaryDirectory()
        let repository = directory.path + "/repo"
        let made = try ChildProcess(["/usr/bin/git", "init", "-q", repository], environment: ProcessInfo.processInfo.environment)
        #expect(try await made.waitForExit() == 0)
        let server = Self.server("git", ["command": TestMCPServers.git + " --repository " + repository])
        defer { server.stop() }
        let tools = try await server.tools()
        #expect(tools.count == 12)
        #expect(tools.map(\.name).contains("git_status"))
        let (text, isError) = try await server.call("git_status", arguments: ["repo_path": .string(repository)])
        #expect(!isError)
        #expect(text.hasPrefix("Repository status:\nOn branch"))
    }

    /// Stopped by hark: its stdin closed, it leaves (exit 0), and is reaped: no process left.
    @Test func stoppingEndsTheServerProcess() async throws {
        let server = Self.server("time", ["command": try TestMCPServers.requireTime()])
        _ = try await server.tools()
        let pid = try #require(server.processID)
        #expect(!ProcessEnd.hasEnded(pid))
        server.stop()
        #expect(StdioServers.exited(pid, within: 10))
        #expect(server.status == .notStarted)
    }

    /// A command that is no MCP server: one line saying why, with what it said on stderr.
    @Test func aServerThatDoesNotSpeakMCPFailsWithItsLastWords() async throws {
        let server = Self.server("broken", ["command": "/bin/sh -c 'echo \"no such module\" >&2; exit 3'"])
        await #expect(throws: HarkError.self) { try await server.tools() }
        guard case .failed(let reason) = server.status else {
            Issue.record("status \(server.status)")
            return
        }
        #expect(reason.contains("no such module"))
    }
}

extension MCPServerTests {
    /// The same SDK server left to choose (`protocol = auto`, the default): it answers
    /// `server/discover` naming 2026-07-28, so hark speaks that, statelessly, and the tools
    /// list and run the same.
    @Test func theSDKsServerIsSpokenTo20260728WhenItSaysSo() async throws {
        let server = Self.server("sdk", ["url": try await TestMCPServers.sdkServerURL()])
        defer { server.stop() }
        #expect(try await server.tools().map(\.name) == ["add", "forecast"])
        guard case .running(2, let info) = server.status else {
            Issue.record("status \(server.status)")
            return
        }
        #expect(info == "hark-fixture, protocol 2026-07-28 (stateless)")
        let (text, isError) = try await server.call("add", arguments: ["a": 2, "b": 3])
        #expect(!isError)
        #expect(text == "5")
        let (unknown, failed) = try await server.call("nope", arguments: [:])
        #expect(failed)
        #expect(unknown.contains("nope"), "\(unknown)")
        // An argument its schema marks `x-mcp-header` goes in `Mcp-Param-Region` too, as the
        // server checks: plain, and base64 when it is not ASCII.
        for region in ["Paris", "Zürich"] {
            let (weather, refused) = try await server.call("forecast", arguments: ["region": .string(region)])
            #expect(!refused, "\(weather)")
            #expect(weather == "sunny in \(region)")
        }
    }

    /// Header values as the SDK encodes them (mcp/shared/inbound.py `encode_header_value`,
    /// `mcp_param_headers`).
    @Test func headerValuesAndParameterHeaders() {
        #expect(MCPEnvelope.headerValue("get_weather") == "get_weather")
        #expect(MCPEnvelope.headerValue("Zürich") == "=?base64?WsO8cmljaA==?=")
        #expect(MCPEnvelope.headerValue(" padded") == "=?base64?IHBhZGRlZA==?=")
        let schema: JSON = ["type": "object", "properties": ["region": ["type": "string", "x-mcp-header": "Region"],
                                                             "n": ["type": "integer", "x-mcp-header": "N"],
                                                             "on": ["type": "boolean", "x-mcp-header": "On"],
                                                             "plain": ["type": "string"]]]
        let headers = MCPEnvelope.parameterHeaders(schema: schema, arguments: ["region": "Paris", "n": 3, "on": true, "plain": "x"])
        #expect(Dictionary(uniqueKeysWithValues: headers.map { ($0.name, $0.value) })
                == ["Mcp-Param-Region": "Paris", "Mcp-Param-N": "3", "Mcp-Param-On": "true"])
    }

    /// Pinned to 2026-07-28, a server of the handshake era (mcp-proxy on MCP SDK 1.30) is a
    /// failure said in one line, not a fallback.
    @Test func aServerPinnedTo20260728ThatDoesNotSpeakItFails() async throws {
        let server = Self.server("time", ["url": try await TestMCPServers.proxiedTimeURL(), "protocol": "2026-07-28"])
        defer { server.stop() }
        let error = await #expect(throws: HarkError.self) { try await server.tools() }
        let message = error?.userMessage ?? ""
        #expect(message.hasPrefix("MCP server time failed: MCP server time speaks protocol other than 2026-07-28"), "\(message)")
        #expect(!message.contains("\n"))
    }

    /// `protocol` takes auto, 2025-11-25 or 2026-07-28; anything else is the config's mistake.
    @Test func theProtocolSettingIsChecked() throws {
        let config = MCPServerConfig(name: "x", values: ["url": "http://127.0.0.1:1/mcp", "protocol": "2024"])
        #expect(throws: HarkError.config(path: "c", line: nil,
                                         reason: #"[mcp x] protocol must be auto, 2025-11-25, 2026-07-28, not "2024""#)) {
            try config.check(path: "c")
        }
        // A server hark starts may be pinned too (MCPElicitationTests speaks 2026-07-28 over stdio).
        #expect(MCPServerConfig(name: "x", values: ["command": "t", "protocol": "2026-07-28"]).protocolChoice == .stateless)
        #expect(MCPServerConfig(name: "x", values: ["command": "t"]).protocolChoice == .auto)
        #expect(MCPServerConfig(name: "x", values: ["url": "http://h/mcp"]).protocolChoice == .auto)
    }
}
