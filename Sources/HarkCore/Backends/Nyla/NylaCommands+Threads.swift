import FoundationEssentials
import Glibc

/// /threads and /thread: the gateway's threads (workspace workflows, chatbot threads), each
/// mirrored by a local thread that holds the server id, so history and search work offline.
extension NylaBackend {
    func serverThreads(_ instance: NylaInstance, _ feature: NylaFeature, notes: NylaNotes) async throws -> [NylaThread] {
        let json = try await client.json("GET", NylaWire.threads(instance, feature), query: NylaWire.pageQuery,
                                         instance: instance, notes: notes)
        let threads = NylaWire.items(json, key: feature == .workspace ? "workflows" : "threads").compactMap(NylaWire.thread)
        state.update { $0.threads = threads }
        return threads
    }

    func threadsCommand(context: CommandContext, notes: NylaNotes) async throws -> Document {
        let (instance, feature) = try await prepare(context, notes: notes)
        let threads = try await serverThreads(instance, feature, notes: notes)
        guard !threads.isEmpty else {
            return [StyledLine("no threads in \(instance.label) yet; your next message starts one", .dim)]
        }
        let current = try context.store.currentThread(session: session.name)?.backendID
        let rows: [[Span]] = threads.map { thread in
            [thread.id == current ? Span("›", .accent) : Span(" "), Span(thread.id, .dim), Span(thread.name, .bold),
             Span(thread.updatedAt.map { TimeFormat.short($0) } ?? "", .dim)]
        }
        return Table.render(rows, gap: 1)
    }

    func threadCommand(_ arguments: [String], context: CommandContext, notes: NylaNotes) async throws -> Document {
        guard let first = arguments.first else { return try await threadsCommand(context: context, notes: notes) }
        let rest = context.invocation.rawArguments(droppingFirst: 1)
        switch first {
        case "new": return try await newThread(title: rest, context: context, notes: notes)
        case "rename": return try await renameThread(title: rest, context: context, notes: notes)
        case "rm": return try await removeThread(rest.isEmpty ? nil : rest, context: context, notes: notes)
        default: return try await openThread(context.invocation.rawArguments, context: context, notes: notes)
        }
    }

    private func newThread(title: String, context: CommandContext, notes: NylaNotes) async throws -> Document {
        guard !title.isEmpty else {
            try context.store.setCurrentThread(session: session.name, threadID: nil)
            return [StyledLine("your next message starts a new thread", .dim)]
        }
        let (instance, feature) = try await prepare(context, notes: notes)
        guard feature == .workspace else {
            // A chatbot creates its thread with the first message.
            let thread = try context.store.createThread(session: session.name, title: title)
            return [StyledLine("new thread #\(thread.id) \(title); the chatbot creates it with your first message", .success)]
        }
        let json = try await client.json("POST", NylaWire.threads(instance, feature), json: NylaWire.threadBody(name: title),
                                         instance: instance, notes: notes)
        guard let created = NylaWire.thread(json) else {
            throw HarkError.protocolViolation("\(client.host) created the thread but did not say its id")
        }
        let thread = try context.store.createThread(session: session.name, title: created.name, backendID: created.id)
        state.update { $0.threads.insert(created, at: 0) }
        return [StyledLine("new thread #\(thread.id) \(created.name) (\(created.id))", .success)]
    }

    private func renameThread(title: String, context: CommandContext, notes: NylaNotes) async throws -> Document {
        guard !title.isEmpty else { throw HarkError.usage("usage: /thread rename TITLE") }
        guard let thread = try context.store.currentThread(session: session.name) else {
            throw HarkError.usage("there is no thread to rename yet; send a message or /thread new TITLE")
        }
        var note: StyledLine?
        if let workflow = thread.backendID {
            let (instance, feature) = try await prepare(context, notes: notes)
            if feature == .workspace {
                _ = try await client.json("PATCH", NylaWire.thread(instance, feature, workflow),
                                          json: NylaWire.threadBody(name: title), instance: instance, notes: notes)
            } else {
                note = StyledLine("a chatbot's threads keep their name on the gateway; renamed here only", .dim)
            }
        }
        try context.store.renameThread(id: thread.id, title: title)
        return [StyledLine("renamed #\(thread.id) to \(title)", .success)] + (note.map { [$0] } ?? [])
    }

    private func removeThread(_ reference: String?, context: CommandContext, notes: NylaNotes) async throws -> Document {
        let (instance, feature) = try await prepare(context, notes: notes)
        var local: ChatThread?
        var serverID: String?
        var name: String
        if let reference {
            let threads = try await serverThreads(instance, feature, notes: notes)
            if let server = threads.first(where: { $0.id == reference }) {
                serverID = server.id
                name = server.name
                local = try context.store.threads(session: session.name).first { $0.backendID == server.id }
            } else if let found = try context.store.findThread(session: session.name, reference) {
                local = found
                serverID = found.backendID
                name = found.title
            } else {
                throw HarkError.unknownThread(reference)
            }
        } else {
            guard let current = try context.store.currentThread(session: session.name) else {
                throw HarkError.usage("usage: /thread rm ID (see /threads)")
            }
            local = current
            serverID = current.backendID
            name = current.title
        }
        if let local, state.read({ $0.streaming.contains(local.id) }) {
            throw HarkError.usage("a reply is still streaming in \(name); /stop it first")
        }
        if let serverID {
            _ = try await client.json("DELETE", NylaWire.thread(instance, feature, serverID), instance: instance, notes: notes)
            state.update { $0.threads.removeAll { $0.id == serverID } }
        }
        if let local { try context.store.deleteThread(id: local.id) }
        let place = serverID == nil ? "here" : (local == nil ? "on the gateway" : "on the gateway and here")
        return [StyledLine("deleted thread \(name) \(place)", .success)]
    }

    /// Opens a thread by server id, local id or title, or server name; a server thread seen for
    /// the first time gets a local thread and its messages are loaded into the history.
    private func openThread(_ reference: String, context: CommandContext, notes: NylaNotes) async throws -> Document {
        let (instance, feature) = try await prepare(context, notes: notes)
        let threads = try await serverThreads(instance, feature, notes: notes)
        let store = context.store
        var server = threads.first { $0.id == reference }
        var local: ChatThread?
        if server == nil, let found = try store.findThread(session: session.name, reference) {
            local = found
            server = threads.first { $0.id == found.backendID }
        }
        if server == nil, local == nil {
            let lowered = reference.lowercased()
            let named = threads.filter { $0.name.lowercased() == lowered }
            let prefixed = threads.filter { $0.name.lowercased().hasPrefix(lowered) }
            server = named.first ?? (prefixed.count == 1 ? prefixed[0] : nil)
        }
        guard server != nil || local != nil else { throw HarkError.unknownThread(reference) }
        if let server, local == nil {
            local = try store.threads(session: session.name).first { $0.backendID == server.id }
        }
        var lines: Document = []
        let thread: ChatThread
        if let local {
            thread = local
            try store.setCurrentThread(session: session.name, threadID: local.id)
        } else {
            thread = try store.createThread(session: session.name, title: server!.name, backendID: server!.id)
        }
        if let server, thread.messageCount == 0 {
            let json = try await client.json("GET", NylaWire.threadMessages(instance, feature, server.id),
                                             instance: instance, notes: notes)
            let messages = NylaWire.items(json, key: "messages").compactMap(NylaWire.message)
            var lastID: Int64?
            for message in messages {
                lastID = try store.addMessage(threadID: thread.id, session: session.name, role: message.role,
                                              text: message.text, createdAt: message.createdAt)
            }
            // Shown now, so not news: they must not count as unread replies.
            if let lastID { try store.markRead(session: session.name, upTo: lastID) }
            if !messages.isEmpty {
                lines.append(StyledLine("loaded \(messages.count) message\(messages.count == 1 ? "" : "s") from the gateway", .dim))
            }
        }
        lines.append(StyledLine("thread #\(thread.id) \(thread.title)" + (server.map { " (\($0.id))" } ?? ""), .success))
        lines += MessageFormatting.document(try store.messages(threadID: thread.id, limit: 6), session: context.session)
        return lines
    }
}
