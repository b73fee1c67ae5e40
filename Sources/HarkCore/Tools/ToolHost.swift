import FoundationEssentials
import Glibc
import Dispatch

/// The MCP servers of the config and what this run allows, shared by every session: a server
/// is started once, by the first session that uses it, and stopped when hark exits.
public final class ToolHost: @unchecked Sendable {
    private let http: HTTPClient
    private let environment: [String: String]
    private let state = Locked(State())
    /// Where the servers' questions are answered (`--answer`, the terminal, or declined).
    public let questions: QuestionDesk

    private struct State {
        var configs: [MCPServerConfig] = []
        var servers: [String: MCPServer] = [:]
        /// `--yes-tools`: SERVER, SERVER.TOOL, SERVER.* or *.
        var allowedByCommandLine: Set<String> = []
        /// Tools answered "always" this run.
        var allowedThisRun: Set<String> = []
        var interaction: @Sendable () -> Interaction = { NonInteractive() }
    }

    public init(http: HTTPClient, environment: [String: String], config: [MCPServerConfig]) {
        self.http = http
        self.environment = environment
        questions = QuestionDesk(environment: environment)
        state.update { $0.configs = config }
    }

    /// Who is asked before a call: the shell's terminal, or nobody (a pipe).
    public func setInteraction(_ provider: @escaping @Sendable () -> Interaction) {
        state.update { $0.interaction = provider }
    }

    /// `--yes-tools NAME…`: these run without asking, this run.
    public func allow(_ names: [String]) {
        state.update { $0.allowedByCommandLine.formUnion(names) }
    }

    /// A new config: a server whose section changed or went is stopped (started again by the
    /// next use); the others keep running.
    public func update(_ configs: [MCPServerConfig]) {
        let stopped: [MCPServer] = state.update { state in
            state.configs = configs
            let fresh = Dictionary(configs.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            let gone = state.servers.filter { fresh[$0.key] != $0.value.config }
            for name in gone.keys { state.servers[name] = nil }
            return Array(gone.values)
        }
        for server in stopped { server.stop() }
    }

    public var serverNames: [String] { state.read { $0.configs.map(\.name) } }

    /// The server of `[mcp NAME]`, made on first use (not started until its tools are needed).
    public func server(named name: String) -> MCPServer? {
        state.update { state in
            if let existing = state.servers[name] { return existing }
            guard let config = state.configs.first(where: { $0.name == name }) else { return nil }
            let server = MCPServer(config: config, http: http, environment: environment)
            state.servers[name] = server
            return server
        }
    }

    /// The tools of these servers, starting those not running. A server that cannot start
    /// is left out with one line saying why: the reply goes on without its tools.
    public func offer(_ names: [String]) async -> (ToolSet, notices: [String]) {
        var servers: [(name: String, tools: [MCPTool])] = []
        var notices: [String] = []
        for name in names {
            guard let server = server(named: name) else {
                notices.append("no [mcp \(name)] in the config; its tools are not offered")
                continue
            }
            do { servers.append((name, try await server.tools())) } catch {
                notices.append(error.userMessage + "; its tools are not offered")
            }
        }
        return (ToolSet(servers: servers), notices)
    }

    /// Ends what this run holds on its servers, for hark's exit: each stdio server is stopped
    /// (stdin closed, SIGTERM), each HTTP server's session ended (the cancellations of calls
    /// stopped just now sent first, then DELETE). Waits at most `seconds` in all: a server
    /// that does not answer does not hold hark. It blocks: call it from the thread that ends
    /// hark, not from a task.
    public func endAll(within seconds: Double = 2) {
        let all = state.update { state in
            defer { state.servers = [:] }
            return Array(state.servers.values)
        }
        let endings = all.compactMap { $0.stop() }
        guard !endings.isEmpty else { return }
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            for ending in endings { await ending.value }
            done.signal()
        }
        _ = done.wait(timeout: .now() + seconds)
    }

    /// Every configured server, in config order, as `/tools` lists them.
    public var configs: [MCPServerConfig] { state.read { $0.configs } }

    /// Why a tool runs without asking, or nil when it asks (`/tools`): the first rule that
    /// allows it, in the order `decide` reads them.
    public func allowance(server: String, tool: String, sessionAllows: [String]) -> String? {
        let (commandLine, thisRun, serverAllows) = state.read { state in
            (state.allowedByCommandLine, state.allowedThisRun, state.configs.first { $0.name == server }?.allowed ?? [])
        }
        if serverAllows.contains("*") || serverAllows.contains(tool) { return "allowed in [mcp \(server)]" }
        let names: Set<String> = ["*", server, server + ".*", server + "." + tool]
        if !commandLine.isDisjoint(with: names) { return "allowed by --yes-tools" }
        if !Set(sessionAllows).isDisjoint(with: names) { return "allowed by the session's allow" }
        if thisRun.contains(server + "." + tool) { return "always, this run" }
        return nil
    }

    /// A question a server asks during a call: what it comes to, and lines to tell the user.
    func answer(_ question: Question) async -> (QuestionOutcome, [String]) {
        let interaction = state.read { $0.interaction() }
        return await questions.answer(question, interaction: interaction, today: FormDate.local(http.clock.now()))
    }

    // MARK: Approval

    public enum Decision: Sendable, Equatable {
        case run
        /// Not run; `notice` tells the user why when they were not asked.
        case refuse(notice: String?)
    }

    /// Whether a call may run: allowed beforehand (`--yes-tools`, the session's or the
    /// server's `allow`, an earlier "always"), else the user's answer; with nobody to ask, no.
    func decide(_ call: ToolCall, sessionAllows: [String]) async -> Decision {
        guard let server = call.server, let tool = call.tool else { return .refuse(notice: nil) }
        let (byUser, serverAllows, interaction) = state.read { state in
            (state.allowedByCommandLine.union(sessionAllows).union(state.allowedThisRun),
             state.configs.first { $0.name == server }?.allowed ?? [], state.interaction())
        }
        if serverAllows.contains("*") || serverAllows.contains(tool) { return .run }
        if !byUser.isDisjoint(with: ["*", server, server + ".*", server + "." + tool]) { return .run }
        guard interaction.isInteractive else {
            return .refuse(notice: "\(call.displayName) was not run: nobody to ask here; allow it with "
                + "--yes-tools \(call.displayName), or allow = \(tool) in [mcp \(server)]")
        }
        let arguments = MessageLine.make(call.arguments, limit: 300)
        let answer = await interaction.choose("run \(call.displayName) \(arguments)? [y]es / [n]o / [a]lways for this tool ",
                                              options: ["y", "n", "a"])
        switch answer {
        case "y": return .run
        case "a":
            _ = state.update { $0.allowedThisRun.insert(call.displayName) }
            return .run
        default: return .refuse(notice: nil)
        }
    }
}
