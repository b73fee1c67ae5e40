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
/// stopped. Over Streamable HTTP hark first asks `server/discover` and speaks the stateless
/// 2026-07-28 (`MCPEnvelope`) to a server that says it speaks it; to any other, the
/// `initialize` handshake (spec basic/lifecycle) offers protocol 2025-11-25 and accepts the
/// older revisions a server may answer with; `notifications/initialized` follows.
public final class MCPServer: @unchecked Sendable {
    public let config: MCPServerConfig
    private let http: HTTPClient
    private let environment: [String: String]
    let state = Locked(Running())
    /// Who answers the server's questions (`elicitation/create`) for the calls under way, by a
    /// number of their own: the latest call's asks (stdio does not say which call a question
    /// belongs to, and calls of one reply run one at a time).
    let askers = Locked<(next: Int, waiting: [Int: Asker])>((0, [:]))

    /// Answers one question a server asks during a call: the question, or why hark cannot ask it.
    public typealias Asker = @Sendable (Result<Question, QuestionSchema.Unsupported>) async -> QuestionOutcome

    struct Running {
        var connection: MCPConnection?
        var starting: Task<Ready, Error>?
        var tools: [MCPTool]?
        var serverInfo = ""
        var failure: String?
    }

    struct Ready: Sendable {
        var connection: MCPConnection
        var tools: [MCPTool]
    }

    /// The revision hark asks for in the handshake, and those it accepts in answer
    /// (mcp_types/version.py of the Python SDK 2.3: `HANDSHAKE_PROTOCOL_VERSIONS`); the
    /// stateless revisions, reached without it (`MODERN_PROTOCOL_VERSIONS`).
    public static let protocolVersion = "2025-11-25"
    public static let acceptedVersions: Set<String> = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]
    public static let statelessVersions: Set<String> = [MCPEnvelope.version]

    /// What hark says of itself, in the handshake or in every stateless request.
    static var clientInfo: JSON { ["name": "hark", "version": .string(HarkVersion.string)] }
    static let capabilities: JSON = ["elicitation": MCPElicitation.capability]

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

    func ready() async throws -> Ready {
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
            var info: String? = nil
            // Over HTTP the probe comes first, as the SDK's client does; over stdio the
            // handshake does (a server hark started is most likely of the handshake's era), and
            // an answer that names only 2026-07-28 (-32022) is the probe's answer.
            if config.protocolChoice == .stateless || (connection is StreamableHTTPConnection && config.protocolChoice == .auto) {
                info = try await discover(connection)
            }
            if info == nil {
                do {
                    info = try await initialize(connection)
                } catch let error as MCPError where config.protocolChoice == .auto && error.code == MCPEnvelope.unsupportedVersion
                                                    && MCPEnvelope.supported(error.data).contains(where: Self.statelessVersions.contains) {
                    info = try await discover(connection)
                    if info == nil { throw error }
                }
            }
            let described = info ?? ""
            state.update { $0.serverInfo = described }
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
        let params: JSON = ["protocolVersion": .string(Self.protocolVersion), "capabilities": Self.capabilities,
                            "clientInfo": Self.clientInfo]
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
        return (described.isEmpty ? "" : described + ", ") + "protocol \(version) (session)"
    }

    /// The probe: `server/discover` in the 2026-07-28 envelope. A server that answers it
    /// naming 2026-07-28 is spoken to so from now on, and its description returned; any other
    /// answer (a JSON-RPC error, an HTTP error, a result without 2026-07-28) is an older
    /// server's: nil, for the handshake. A network failure is no answer, and is thrown (the
    /// SDK's `negotiate_auto`, mcp/client/_probe.py).
    private func discover(_ connection: MCPConnection) async throws -> String? {
        let envelope = MCPEnvelope(version: MCPEnvelope.version, clientInfo: Self.clientInfo, capabilities: Self.capabilities)
        let pinned = config.protocolChoice == .stateless
        let result: JSON
        do {
            result = try await connection.discover(envelope, timeout: 60)
        } catch let error as MCPError {
            let supported = MCPEnvelope.supported(error.data)
            if pinned || (error.code == MCPEnvelope.unsupportedVersion && !supported.isEmpty
                          && !supported.contains(where: Self.acceptedVersions.contains)) {
                throw HarkError.protocolViolation("MCP server \(name) speaks protocol "
                    + (supported.isEmpty ? "other than 2026-07-28 (\(error.line))" : supported.map { MessageLine.name($0) }.joined(separator: ", "))
                    + "; hark speaks " + (Self.acceptedVersions.union(Self.statelessVersions)).sorted().joined(separator: ", "))
            }
            return nil
        } catch let error as HarkError where !pinned {
            if case .http = error { return nil }
            if case .protocolViolation = error { return nil }
            throw error
        }
        let supported = MCPEnvelope.supported(result)
        guard let version = supported.last(where: Self.statelessVersions.contains) else {
            if pinned {
                throw HarkError.protocolViolation("MCP server \(name) does not speak protocol 2026-07-28 (it names "
                    + supported.map { MessageLine.name($0) }.joined(separator: ", ") + ")")
            }
            return nil
        }
        connection.adopt(MCPEnvelope(version: version, clientInfo: Self.clientInfo, capabilities: Self.capabilities))
        let described = MCPEnvelope.serverInfo(result)
        return (described.isEmpty ? "" : described + ", ") + "protocol \(version) (stateless)"
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
        let asker = askers.read { $0.waiting.max { $0.key < $1.key }?.value }
        return .response(id: id, result: await ask(params, asker: asker))
    }

    /// An `elicitation/create` asked of `asker` (declined with none): the `ElicitResult`.
    func ask(_ params: JSON?, asker: Asker?) async -> JSON {
        let question = MCPElicitation.question(params, server: name)
        guard let asker else { return MCPElicitation.result(.decline, mode: .form([])) }
        let outcome = await asker(question)
        let mode = (try? question.get().kind) ?? .form([])
        return MCPElicitation.result(outcome, mode: mode)
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
