import FoundationEssentials
import Glibc

extension Workspace {
    /// `/tools [SERVER]`: the `[mcp NAME]` servers with their state and, for those running
    /// (the session's own are started for this), their tools and whether each asks first.
    func listTools(_ context: CommandContext) async throws -> CommandOutcome {
        let session = context.session
        let used = OpenAIBackend.words(session["mcp"])
        let allows = OpenAIBackend.words(session["allow"])
        var configs = tools.configs
        if let name = context.arguments["SERVER"] {
            guard let config = configs.first(where: { $0.name == name }) else {
                let suggestion = Suggest.closest(to: name, in: configs.map(\.name))
                throw context.badArguments("no [mcp \(name)] in the config" + (suggestion.map { "; did you mean \($0)?" } ?? ""))
            }
            configs = [config]
        }
        guard !configs.isEmpty else {
            return .output([StyledLine("no MCP servers: add an [mcp NAME] section with command = … or url = … (docs/mcp.md)", .dim)])
        }
        var lines: Document = []
        for config in configs {
            guard let server = tools.server(named: config.name) else { continue }
            // Started when asked for by name, or when this session uses it: its tools are wanted.
            if context.arguments["SERVER"] != nil || used.contains(config.name) { _ = try? await server.tools() }
            let where_ = config["command"].map { "stdio: " + MessageLine.make($0, limit: 60) } ?? "http: " + Self.displayURL(config["url"] ?? "")
            var head = [Span(config.name, .bold), Span("  " + where_, .dim)]
            if used.contains(config.name) { head.append(Span("  · used by \(session.name)", .accent)) }
            lines.append(StyledLine(head))
            switch server.status {
            case .notStarted: lines.append(StyledLine("  not started (starts when a session that names it needs its tools)", .dim))
            case .starting: lines.append(StyledLine("  starting…", .dim))
            case .failed(let reason): lines.append(StyledLine("  failed: " + reason, .warning))
            case .running(let count, let info):
                lines.append(StyledLine("  running \(info), \(count) tool\(count == 1 ? "" : "s")", .dim))
            }
            var rows: [[Span]] = []
            for tool in server.knownTools ?? [] {
                let allowance = tools.allowance(server: config.name, tool: tool.name, sessionAllows: allows)
                rows.append([Span("  " + config.name + "." + tool.name, .accent), Span(tool.summary),
                             Span(allowance ?? "asks", allowance == nil ? .dim : .warning)])
            }
            lines += Table.render(rows)
        }
        return .output(lines)
    }
}
