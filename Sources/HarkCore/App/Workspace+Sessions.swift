import FoundationEssentials
import Glibc

extension Workspace {
    func listSessions(_ context: CommandContext) async throws -> CommandOutcome {
        let unread = try store.unreadCounts()
        let rows: [[Span]] = config.sessions.map { session in
            let marker = session.name == currentSession ? Span("›", .accent) : Span(" ")
            var status: [String] = []
            if let count = unread[session.name], count > 0 { status.append("\(count) unread") }
            let running = runningJobs(session: session.name).count
            if running > 0 { status.append("\(running) running") }
            let where_ = session.url.map { HTTPRequest.displayHost(of: $0) } ?? (session.kind == LocalBackend.name ? "offline" : "")
            return [marker, Span(session.name, .bold), Span(session.kind, .dim), Span(where_, .dim),
                    Span(status.joined(separator: ", "), .accent)]
        }
        return .output(Table.render(rows, gap: 1))
    }

    func switchSession(_ context: CommandContext) async throws -> CommandOutcome {
        try switchTo(context.arguments["NAME"] ?? "")
    }

    func addSession(_ context: CommandContext) async throws -> CommandOutcome {
        let added = try SessionEditing.add(name: context.arguments["NAME"] ?? "", settings: context.arguments.list("KEY=VALUE"),
                                           options: context.arguments.options, paths: paths, config: config)
        try reloadConfig()
        return .output([StyledLine("added session \(added.name) (\(added.kind)); /session \(added.name) switches to it", .success)])
    }

    func removeSession(_ context: CommandContext) async throws -> CommandOutcome {
        let name = context.arguments["NAME"] ?? ""
        try SessionEditing.remove(name: name, paths: paths, config: config)
        try reloadConfig()
        return .output([StyledLine("removed session \(name) from the config (its history stays)", .success)])
    }

    func editSession(_ context: CommandContext) async throws -> CommandOutcome {
        let name = context.arguments["NAME"] ?? ""
        let session = try self.session(named: name)
        let assignments = SessionEditing.assignments(context.arguments.options, words: context.arguments.list("KEY=VALUE"))
        if assignments.isEmpty { return .editConfig }
        try SessionEditing.set(assignments, session: session, paths: paths)
        try reloadConfig()
        return .output([StyledLine("updated session \(name)", .success)])
    }

    /// Switches and shows what arrived there since the user last looked.
    func switchTo(_ name: String) throws -> CommandOutcome {
        try switchSession(to: name)
        let arrived = try store.unreadMessages(session: name)
        try store.markRead(session: name)
        var lines: Document = []
        if !arrived.isEmpty {
            lines.append(StyledLine("\(arrived.count) new repl\(arrived.count == 1 ? "y" : "ies") in \(name):", .dim))
            lines += MessageFormatting.document(arrived, session: currentConfig)
        }
        return .output(lines)
    }

    func nextUnread(_ context: CommandContext) async throws -> CommandOutcome {
        guard let name = try store.oldestUnreadSession(), config.session(named: name) != nil else {
            return .output([StyledLine("nothing unread", .dim)])
        }
        return try switchTo(name)
    }
}
