import FoundationEssentials
import Glibc

/// A tool as an MCP server lists it (`tools/list`, spec server/tools): its name, what it
/// does, and the JSON Schema of its arguments.
public struct MCPTool: Sendable, Equatable {
    public var name: String
    public var title: String?
    public var description: String
    public var inputSchema: JSON

    /// The first line of the description, for `/tools`.
    public var summary: String {
        let first = description.lineSlices(keepingEmpty: false).first.map { String($0).trimmingSpaces } ?? ""
        return MessageLine.clip(first.isEmpty ? (title ?? "") : first, 100)
    }
}

/// Where a configured server stands, for `/tools`.
public enum MCPServerState: Sendable, Equatable {
    case notStarted
    case starting
    case running(tools: Int, server: String)
    case failed(String)
}

/// One `[mcp NAME]` server while hark runs: started (or connected) the first time a session
/// that names it needs its tools, kept for the life of the process, started again if it
/// stopped. The `initialize` handshake (spec basic/lifecycle) offers protocol 2025-11-25 and
/// accepts the older revisions a server may answer with; `notifications/initialized` follows.
public final class MCPServer: @unchecked Sendable {
    public let config: MCPServerConfig
    private let http: HTTPClient
    private let environment: [String: String]
    private let state = Locked(Running())
    /// Who answers the server's questions (`elicitation/create`) for the calls under way, by a
    /// number of their own: the latest call's asks (stdio does not say which call a question
    /// belongs to, and calls of one reply run one at a time).
    private let askers = Locked<(next: Int, waiting: [Int: Asker])>((0, [:]))

    /// Answers one question a server asks during a call: the question, or why hark cannot ask it.
    public typealias Asker = @Sendable (Result<Question, QuestionSchema.Unsupported>) async -> QuestionOutcome

    private struct Running {
        var connection: MCPConnection?
        var starting: Task<Ready, Error>?
        var tools: [MCPTool]?
        var serverInfo = ""
        var failure: String?
    }

    private struct Ready: Sendable {
        var connection: MCPConnection
        var tools: [MCPTool]
    }

    /// The revision hark asks for, and those it accepts in answer (mcp_types/version.py of the
    /// Python SDK 2.3 lists these as the ones reached through `initialize`; 2026-07-28 drops
    /// the handshake and is not spoken here).
    public static let protocolVersion = "2025-11-25"
    public static let acceptedVersions: Set<String> = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]

    init(config: MCPServerConfig, http: HTTPClient, environment: [String: String]) {
        self.config = config
        self.http = http
        self.environment = environment
    }

    public var name: String { config.name }

    public var status: MCPServerState {
        state.read { state in
            if let failure = state.failure { return .failed(failure) }
            if let tools = state.tools, state.connection?.isClosed == false { return .running(tools: tools.count, server: state.serverInfo) }
            if state.starting != nil { return .starting }
            return .notStarted
        }
    }

    /// The stdio server's process while it runs (tests check it ends).
    var processID: pid_t? { (state.read { $0.connection } as? StdioConnection)?.pid }

    /// The tools as last listed, without starting anything (for Tab and `/tools`).
    public var knownTools: [MCPTool]? { state.read { $0.tools } }

    /// The server's tools, starting it first if needed; callers that come while it starts
    /// wait for the same start.
    public func tools() async throws -> [MCPTool] {
        try await ready().tools
    }

    private func ready() async throws -> Ready {
        let task: Task<Ready, Error> = state.update { state in
            if let starting = state.starting { return starting }
            if let connection = state.connection, !connection.isClosed {
                if let tools = state.tools { return Task { Ready(connection: connection, tools: tools) } }
                // The server said its tools changed: list them again on the same connection.
                let listing = Task { [self] in Ready(connection: connection, tools: try await listTools(connection)) }
                state.starting = listing
                return listing
            }
            state.connection = nil
            state.failure = nil
            let starting = Task { [self] in try await start() }
            state.starting = starting
            return starting
        }
        do {
            let ready = try await task.value
            state.update {
                $0.starting = nil
                $0.connection = ready.connection
                $0.tools = ready.tools
            }
            return ready
        } catch {
            let reason = Self.reason(error)
            state.update {
                $0.starting = nil
                $0.failure = reason
            }
            throw HarkError.backend("MCP server \(name) failed: \(reason)")
        }
    }

    static func reason(_ error: Error) -> String {
        if let error = error as? MCPError { return error.line }
        if let error = error as? HarkError, case .backend(let text) = error { return text }
        return error.userMessage
    }

    private func start() async throws -> Ready {
        let connection = try connect()
        do {
            let info = try await initialize(connection)
            state.update { $0.serverInfo = info }
            let tools = try await listTools(connection)
            return Ready(connection: connection, tools: tools)
        } catch {
            connection.close()
            if let words = connection.lastWords, !(error.userMessage.contains(words)) {
                throw HarkError.backend(Self.reason(error) + " (it said: \(words))")
            }
            throw error
        }
    }

    private func connect() throws -> MCPConnection {
        let onNotification: @Sendable (String) -> Void = { [weak self] method in
            // The tools changed (spec server/tools, list changed): read them again next time.
            if method == "notifications/tools/list_changed" { self?.state.update { $0.tools = nil } }
        }
        let onRequest: MCPRequestHandler = { [weak self] id, method, params in
            guard let self else { return JSONRPCMessage.answer(id: id, method: method) }
            return await answer(id: id, method: method, params: params)
        }
        if let url = config["url"] {
            let auth: AuthSpec?
            do { auth = try config["auth"].map(AuthSpec.init(parsing:)) } catch {
                throw HarkError.usage("[mcp \(name)] auth: \(error.userMessage)")
            }
            return StreamableHTTPConnection(name: name, url: url, http: http, auth: AuthHeaderCache(auth, session: "mcp " + name),
                                            insecure: false, onNotification: onNotification, onRequest: onRequest)
        }
        var environment = self.environment
        for (key, value) in try config.environment() { environment[key] = value }
        let arguments = try config.arguments()
        guard !arguments.isEmpty else { throw HarkError.usage("[mcp \(name)] command is empty") }
        return try StdioConnection(name: name, arguments: arguments, environment: environment,
                                   directory: config["cwd"]?.expandingTildeInPath, onNotification: onNotification,
                                   onRequest: onRequest)
    }

    /// The handshake: hark's offer, the server's answer checked, then `initialized`.
    private func initialize(_ connection: MCPConnection) async throws -> String {
        let params: JSON = ["protocolVersion": .string(Self.protocolVersion), "capabilities": ["elicitation": MCPElicitation.capability],
                            "clientInfo": ["name": "hark", "version": .string(HarkVersion.string)]]
        var result: JSON
        do {
            result = try await connection.request("initialize", params: params, timeout: 60)
        } catch is StreamableHTTPConnection.SessionExpired {
            result = try await connection.request("initialize", params: params, timeout: 60)
        }
        guard let version = result["protocolVersion"]?.string else {
            throw HarkError.protocolViolation("MCP server \(name) answered initialize without a protocolVersion")
        }
        guard Self.acceptedVersions.contains(version) else {
            // The spec: a client that does not support the server's version SHOULD disconnect.
            throw HarkError.protocolViolation("MCP server \(name) speaks protocol \(MessageLine.name(version)); hark speaks "
                + Self.acceptedVersions.sorted().joined(separator: ", "))
        }
        (connection as? StreamableHTTPConnection)?.negotiated(version)
        try await connection.notify("notifications/initialized", params: nil)
        let info = result["serverInfo"]
        let described = [info?["name"]?.string, info?["version"]?.string].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ")
        return described.isEmpty ? "protocol \(version)" : "\(described), protocol \(version)"
    }

    /// Every page of `tools/list`, following `nextCursor` (spec server/tools, pagination).
    private func listTools(_ connection: MCPConnection) async throws -> [MCPTool] {
        var tools: [MCPTool] = []
        var cursor: String?
        var seen = Set<String>()
        repeat {
            let params: JSON? = cursor.map { ["cursor": .string($0)] }
            let page = try await connection.request("tools/list", params: params, timeout: config.timeout)
            for tool in page["tools"]?.array ?? [] {
                guard let name = tool["name"]?.string, !name.isEmpty else { continue }
                tools.append(MCPTool(name: name, title: tool["title"]?.string, description: tool["description"]?.string ?? "",
                                     inputSchema: tool["inputSchema"] ?? ["type": "object"]))
            }
            cursor = page["nextCursor"]?.string
            if let next = cursor, !seen.insert(next).inserted {
                throw HarkError.protocolViolation("MCP server \(name) sent the same tools/list cursor twice")
            }
        } while cursor != nil
        return tools
    }

    /// A request of the server's: a question goes to the asker of the call under way (with
    /// none, it is declined: nobody asked for the server's work); others are not found.
    private func answer(id: JSON, method: String, params: JSON?) async -> JSONRPCMessage {
        guard method == MCPElicitation.method else { return JSONRPCMessage.answer(id: id, method: method) }
        let question = MCPElicitation.question(params, server: name)
        guard let asker = askers.read({ $0.waiting.max { $0.key < $1.key }?.value }) else {
            return .response(id: id, result: MCPElicitation.result(.decline, mode: .form([])))
        }
        let outcome = await asker(question)
        let mode = (try? question.get().kind) ?? .form([])
        return .response(id: id, result: MCPElicitation.result(outcome, mode: mode))
    }

    /// Runs one tool. The server's answer becomes text for the model: its content joined, an
    /// error marked as such (`isError`, or a JSON-RPC error such as an unknown tool). What the
    /// server asks meanwhile goes to `asker`.
    public func call(_ tool: String, arguments: JSON, asker: Asker? = nil) async throws -> (text: String, isError: Bool) {
        let number = askers.update { askers -> Int? in
            guard let asker else { return nil }
            askers.next += 1
            askers.waiting[askers.next] = asker
            return askers.next
        }
        defer { if let number { _ = askers.update { $0.waiting.removeValue(forKey: number) } } }
        let ready = try await ready()
        let params: JSON = ["name": .string(tool), "arguments": arguments]
        let result: JSON
        do {
            result = try await ready.connection.request("tools/call", params: params, timeout: config.timeout)
        } catch let error as MCPError {
            return (error.line, true)
        } catch is StreamableHTTPConnection.SessionExpired {
            state.update { $0.connection = nil; $0.tools = nil }
            return try await call(tool, arguments: arguments, asker: asker)
        }
        return (Self.text(of: result), result["isError"]?.bool == true)
    }

    /// A `CallToolResult` as text (spec server/tools, tool result): text content as is, other
    /// content named; `structuredContent` when there is no content.
    static func text(of result: JSON) -> String {
        var parts: [String] = []
        for item in result["content"]?.array ?? [] {
            switch item["type"]?.string {
            case "text": parts.append(item["text"]?.string ?? "")
            case "image", "audio":
                let size = (item["data"]?.string?.utf8.count ?? 0) * 3 / 4
                parts.append("[\(item["type"]?.string ?? "") \(item["mimeType"]?.string ?? ""), \(size) bytes, not shown]")
            case "resource_link":
                parts.append("[resource \(item["uri"]?.string ?? "")\(item["name"]?.string.map { " (\($0))" } ?? "")]")
            case "resource":
                let resource = item["resource"]
                parts.append(resource?["text"]?.string ?? "[resource \(resource?["uri"]?.string ?? "") \(resource?["mimeType"]?.string ?? "")]")
            default:
                parts.append(item.encoded())
            }
        }
        if parts.isEmpty, let structured = result["structuredContent"] { return structured.encoded() }
        return parts.joined(separator: "\n")
    }

    /// Stops the server (stdio) or ends its session (HTTP); returns what is still being said
    /// to it (see `MCPConnection.close`).
    @discardableResult
    public func stop() -> Task<Void, Never>? {
        let connection = state.update { state -> MCPConnection? in
            defer {
                state.connection = nil
                state.tools = nil
            }
            return state.connection
        }
        return connection?.close()
    }
}
