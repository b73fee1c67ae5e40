import FoundationEssentials
import Glibc

/// `/threads` and `/thread`, for every kind. A kind whose threads live on its server
/// (`RemoteThreads`) is asked for its side: its list, its new, renamed and deleted threads, a
/// thread's messages when it is opened here the first time. Each server thread is mirrored by
/// a local thread holding its id, so history and search work offline.
extension Workspace {
    func remoteThreads(_ context: CommandContext) throws -> (any RemoteThreads)? {
        try context.backend() as? any RemoteThreads
    }

    /// The server's threads as last listed in a session, for Tab (no I/O); nil before a listing.
    func listedServerThreads(session: String) -> [RemoteThread]? { state.read { $0.serverThreads[session] } }

    /// Asks the server for its threads (nil when it cannot list them) and remembers them.
    func serverThreads(_ remote: (any RemoteThreads)?, _ context: CommandContext) async throws -> [RemoteThread]? {
        guard let remote, let listed = try await remote.listThreads(context) else { return nil }
        state.update { $0.serverThreads[context.session.name] = listed }
        return listed
    }

    func listThreads(_ context: CommandContext) async throws -> CommandOutcome {
        let history = context.history
        let currentThread = try history.currentThread()
        if let listed = try await serverThreads(try remoteThreads(context), context) {
            guard !listed.isEmpty else { return .output([Self.noThreads(context)]) }
            let rows: [[Span]] = listed.map { thread in
                [thread.id == currentThread?.backendID ? Span("›", .accent) : Span(" "), Span(thread.id, .dim),
                 Span(thread.title, .bold), Span(thread.updatedAt.map { TimeFormat.short($0) } ?? "", .dim)]
            }
            return .output(Table.render(rows, gap: 1))
        }
        let threads = try history.threads()
        guard !threads.isEmpty else { return .output([Self.noThreads(context)]) }
        let rows: [[Span]] = threads.map { thread in
            [thread.id == currentThread?.id ? Span("›", .accent) : Span(" "), Span("#\(thread.id)", .dim), Span(thread.title, .bold),
             Span("\(thread.messageCount) msg", .dim), Span(TimeFormat.short(thread.updatedAt), .dim)]
        }
        return .output(Table.render(rows, gap: 1))
    }

    static func noThreads(_ context: CommandContext) -> StyledLine {
        StyledLine("no threads yet in \(context.session.name); your next message starts one", .dim)
    }

    /// A thread named by the user, here and on the server: the server's by id, else the local
    /// one by id, title or server id, else the server's by name (whole, or a unique start).
    static func find(_ reference: String, listed: [RemoteThread]?,
                     in history: SessionHistory) throws -> (local: ChatThread?, server: RemoteThread?) {
        var server = listed?.first { $0.id == reference }
        var local = try server.flatMap { try history.thread(serverID: $0.id) }
        if server == nil, let found = try history.findThread(reference) {
            local = found
            server = listed?.first { $0.id == found.backendID }
        }
        if server == nil, local == nil, let listed {
            let lowered = reference.lowercased()
            let prefixed = listed.filter { $0.title.lowercased().hasPrefix(lowered) }
            server = listed.first { $0.title.lowercased() == lowered } ?? (prefixed.count == 1 ? prefixed[0] : nil)
            local = try server.flatMap { try history.thread(serverID: $0.id) }
        }
        return (local, server)
    }

    func newThread(_ context: CommandContext) async throws -> CommandOutcome {
        let history = context.history
        guard let title = context.arguments["TITLE"] else {
            try history.setCurrentThread(nil)
            return .output([StyledLine("your next message starts a new thread", .dim)])
        }
        guard let remote = try remoteThreads(context) else {
            let thread = try history.createThread(title: title)
            return .output([StyledLine("new thread #\(thread.id) \(thread.title)", .success)])
        }
        switch try await remote.createThread(title: title, context) {
        case .created(let server):
            let thread = try history.createThread(title: server.title, backendID: server.id)
            state.update { $0.serverThreads[context.session.name]?.insert(server, at: 0) }
            return .output([StyledLine("new thread #\(thread.id) \(thread.title) (\(server.id))", .success)])
        case .withFirstMessage(let note):
            let thread = try history.createThread(title: title, backendID: remote.newThreadID())
            return .output([StyledLine("new thread #\(thread.id) \(thread.title)" + (note.map { "; " + $0 } ?? ""), .success)])
        }
    }

    func renameThread(_ context: CommandContext) async throws -> CommandOutcome {
        let title = context.arguments["TITLE"] ?? ""
        guard let thread = try context.history.currentThread() else {
            throw HarkError.usage("there is no thread to rename yet; send a message or /thread new TITLE")
        }
        var note: String?
        if let remote = try remoteThreads(context), let id = thread.backendID {
            note = try await remote.renameThread(id: id, to: title, context)
        }
        try context.history.renameThread(thread.id, to: title)
        return .output([StyledLine("renamed #\(thread.id) to \(title)", .success)] + (note.map { [StyledLine($0, .dim)] } ?? []))
    }

    /// Deletes a thread here and on the server. A reply streaming in it is stopped first.
    func removeThread(_ context: CommandContext) async throws -> CommandOutcome {
        let remote = try remoteThreads(context)
        var local: ChatThread?
        var server: RemoteThread?
        if let reference = context.arguments["ID"] {
            (local, server) = try Self.find(reference, listed: try await serverThreads(remote, context), in: context.history)
            guard local != nil || server != nil else { throw HarkError.unknownThread(reference) }
        } else {
            guard let current = try context.history.currentThread() else { throw context.badArguments("no thread is open here") }
            local = current
        }
        if let local {
            let streaming = runningJobs(session: context.session.name).filter { $0.thread.id == local.id }
            for job in streaming { job.stop() }
            for job in streaming { _ = await job.wait() }
        }
        var onServer = false
        if let remote, let id = server?.id ?? local?.backendID {
            onServer = try await remote.deleteThread(id: id, context)
            state.update { $0.serverThreads[context.session.name]?.removeAll { $0.id == id } }
        }
        if let local { try context.history.deleteThread(local.id) }
        if onServer {
            let name = server?.title ?? local?.title ?? ""
            return .output([StyledLine("deleted thread \(name) on \(remote!.threadServer)" + (local == nil ? "" : " and here"), .success)])
        }
        guard let local else { return .none }
        return .output([StyledLine("deleted thread #\(local.id) \(local.title) and its \(local.messageCount) messages", .success)])
    }

    /// Switches to a thread by id, title or server id. A server thread opened here the first
    /// time gets a local thread and its messages; where the server cannot list its threads
    /// (n8n), an unknown id is taken as the server's and adopted.
    func openThread(_ context: CommandContext) async throws -> CommandOutcome {
        let reference = context.arguments["NAME|ID"] ?? ""
        let history = context.history
        let remote = try remoteThreads(context)
        let listed = try await serverThreads(remote, context)
        var (local, server) = try Self.find(reference, listed: listed, in: history)
        var lines: Document = []
        if local == nil, let server {
            local = try history.createThread(title: server.title, backendID: server.id)
        } else if local == nil, remote != nil, listed == nil, !reference.contains(" ") {
            local = try history.createThread(title: "server session \(reference.prefix(12))", backendID: reference)
            lines.append(StyledLine("adopted server session \(reference) as thread #\(local!.id)", .dim))
        }
        guard let thread = local else { throw HarkError.unknownThread(reference) }
        try history.setCurrentThread(thread.id)
        if let remote, let id = thread.backendID, thread.messageCount == 0, listed == nil || server != nil {
            do {
                let messages = try await remote.loadThread(id: id, context)
                try history.importMessages(messages, into: thread.id)
                if !messages.isEmpty {
                    lines.append(StyledLine("loaded \(messages.count) message\(messages.count == 1 ? "" : "s") from \(remote.threadServer)",
                                            .dim))
                }
            } catch {
                lines.append(StyledLine("could not load the history from \(remote.threadServer): \(error.userMessage)", .warning))
            }
        }
        lines.append(StyledLine("thread #\(thread.id) \(thread.title)" + (server.map { " (\($0.id))" } ?? ""), .success))
        lines += MessageFormatting.document(try history.messages(threadID: thread.id, limit: 6), session: context.session)
        return .output(lines)
    }
}
