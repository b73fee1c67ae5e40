import FoundationEssentials
import Glibc

extension Workspace {
    func help(_ context: CommandContext) async throws -> CommandOutcome {
        let kind = context.session.kind
        if let name = context.arguments["COMMAND"].map({ $0.hasPrefix("/") ? String($0.dropFirst()) : $0 }) {
            guard let spec = commandTable.lookup(name, kind: kind) ?? commandTable.specs.first(where: { $0.name == name }) else {
                throw HarkError.unknownCommand("/" + name, suggestion: Suggest.closest(to: name, in: commandTable.names))
            }
            var lines: Document = [StyledLine(spec.fullUsage, .bold), StyledLine("  " + spec.summary)]
            if let kinds = spec.kinds { lines.append(StyledLine("  for \(kinds.joined(separator: ", ")) sessions", .dim)) }
            return .output(lines)
        }
        var rows: [[Span]] = []
        let shown = commandTable.applicable(to: kind)
        let groups = CoreCommands.groups + Array(Set(shown.map(\.group))).filter { !CoreCommands.groups.contains($0) }.sorted()
        for group in groups {
            let specs = shown.filter { $0.group == group }
            guard !specs.isEmpty else { continue }
            rows.append([Span(group, .heading)])
            rows += specs.map { [Span("  " + $0.shortUsage, .accent), Span($0.summary)] }
        }
        rows.append([Span("typing", .heading)])
        rows += [
            [Span("  TEXT", .accent), Span("send to this session (a trailing \\ continues on the next line)")],
            [Span("  @NAME TEXT", .accent), Span("send to another session without switching")],
            [Span("  !COMMAND", .accent), Span("send a shell command's output")],
            [Span("  //TEXT", .accent), Span("send text that starts with /")],
            [Span("  Ctrl-C", .accent), Span("stop a reply (keeps what arrived); clear the line")],
            [Span("  Ctrl-Z", .accent), Span("while a reply streams: let it finish in the background")],
            [Span("  Ctrl-G  F5", .accent), Span("dictate into the line (/listen); a pause or a key ends it")],
            [Span("  Ctrl-D", .accent), Span("quit, on an empty line")],
            [Span("  Tab  Up/Down  Ctrl-R", .accent), Span("complete; walk and search this session's input history")],
        ]
        return .output(Table.render(rows))
    }

    func info(_ context: CommandContext) async throws -> CommandOutcome {
        let session = context.session
        var rows: [[Span]] = [
            [Span("session", .dim), Span(session.name, .bold)],
            [Span("kind", .dim), Span(session.kind)],
        ]
        if let url = session.url { rows.append([Span("url", .dim), Span(Self.displayURL(url))]) }
        if let auth = try? session.auth() { rows.append([Span("auth", .dim), Span(auth.description)]) }
        if let model = session.model { rows.append([Span("model", .dim), Span(model)]) }
        if let tls = (try? session.tls())?.summary {
            rows.append([Span("tls", .dim), Span(tls, session.isInsecure ? .warning : .plain)])
        }
        if let url = session.url, let proxy = (try? session.tls())?.proxySummary(for: url) {
            rows.append([Span("proxy", .dim), Span(proxy)])
        }
        if let thread = try context.history.currentThread() {
            var text = "\(thread.title) (#\(thread.id), \(thread.messageCount) message\(thread.messageCount == 1 ? "" : "s"))"
            if let backendID = thread.backendID { text += " · server id \(backendID)" }
            rows.append([Span("thread", .dim), Span(text)])
        } else {
            rows.append([Span("thread", .dim), Span("new (starts with your next message)")])
        }
        let running = runningJobs(session: session.name).count
        if running > 0 { rows.append([Span("running", .dim), Span("\(running) repl\(running == 1 ? "y" : "ies")")]) }
        if let backend = try? backend(for: session.name) {
            for (label, value) in await backend.info() { rows.append([Span(label, .dim), Span(value)]) }
        }
        rows += try usageRows(session: session.name, thread: try context.history.currentThread())
        rows += voiceInfo(session)
        rows.append([Span("history", .dim), Span(store.database.path)])
        rows.append([Span("config", .dim), Span(config.path)])
        return .output(Table.render(rows))
    }

    /// What the session and its thread have cost and how fast the replies came, as recorded.
    func usageRows(session: String, thread: ChatThread?) throws -> [[Span]] {
        var rows: [[Span]] = []
        if let thread {
            let stats = try store.stats(threadID: thread.id)
            var text = stats.summary
            if let last = stats.lastPromptTokens { text += " · last prompt \(last) tokens" }
            rows.append([Span("this thread", .dim), Span(text)])
        }
        let stats = try store.stats(session: session)
        guard stats.messages > 0 else { return rows }
        rows.append([Span("this session", .dim), Span(stats.summary)])
        if let speed = stats.speed {
            rows.append([Span("last replies", .dim), Span(speed + " (median of the last \(UsageStats.recent))")])
        }
        return rows
    }

    /// A URL fit to show: no credentials, no query string (either may carry a secret).
    public static func displayURL(_ url: String) -> String {
        guard var components = URLComponents(string: url) else { return HTTPRequest.displayHost(of: url) }
        components.user = nil
        components.password = nil
        components.query = nil
        components.fragment = nil
        return components.string ?? HTTPRequest.displayHost(of: url)
    }
}
