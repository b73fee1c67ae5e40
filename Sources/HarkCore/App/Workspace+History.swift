import FoundationEssentials
import Glibc

extension Workspace {
    func showHistory(_ context: CommandContext) async throws -> CommandOutcome {
        var count = 20
        if let text = context.arguments["N"] {
            guard let number = Int(text), number > 0 else { throw context.badArguments("N is a positive number") }
            count = number
        }
        guard let thread = try context.history.currentThread() else {
            return .output([StyledLine("no messages in this thread yet", .dim)])
        }
        let all = context.arguments.flag("--all")
        let messages = try context.history.messages(threadID: thread.id, limit: count, superseded: all)
        guard !messages.isEmpty else { return .output([StyledLine("no messages in this thread yet", .dim)]) }
        var attachments: [Int64: [Attachment]] = [:]
        for message in messages where message.role == .user {
            let files = try store.attachments(messageID: message.id)
            if !files.isEmpty { attachments[message.id] = files }
        }
        // Numbered by place among the thread's messages (those /edit last replaced have none):
        // the N of /thread fork.
        let shown = messages.filter { $0.supersededBy == nil }.count
        return .output(MessageFormatting.document(messages, session: context.session, firstNumber: thread.messageCount - shown + 1,
                                                  attachments: attachments))
    }

    func searchCommand(_ context: CommandContext) async throws -> CommandOutcome {
        let query = context.arguments["TEXT"] ?? ""
        let hits = try store.search(query)
        guard !hits.isEmpty else { return .output([StyledLine("no messages match \(query)", .dim)]) }
        return .output(MessageFormatting.searchDocument(hits))
    }

    func exportCommand(_ context: CommandContext) async throws -> CommandOutcome {
        guard let thread = try context.history.currentThread() else { throw HarkError.usage("there is no thread to export yet") }
        let messages = try context.history.messages(threadID: thread.id)
        let additions = exportAdditions(session: context.session.name, threads: [thread])
        let text = context.arguments["md|json"] == "json"
            ? Export.json(threads: [(thread, messages)], additions: additions)
            : Export.markdown(threads: [(thread, messages)], session: context.session, additions: additions)
        guard let file = context.arguments["FILE"] else {
            var lines = text.lineSlices().map { StyledLine(String($0)) }
            if lines.last?.plainText.isEmpty == true { lines.removeLast() }
            return .output(lines)
        }
        let path = file.expandingTildeInPath
        try PosixFile.writePrivately(Array(text.utf8), to: path)
        return .output([StyledLine("wrote \(messages.count) messages to \(path)", .success)])
    }
}


extension Workspace {
    /// What the sessions' kinds add to an export of these threads (forms, documents).
    public func exportAdditions(session name: String, threads: [ChatThread]) -> ExportAdditions {
        (try? backend(for: name))?.exportAdditions(threads: threads) ?? ExportAdditions()
    }

    /// The same without a workspace, for `hark export`, which only reads the history: the
    /// session's backend is made on that history (it sends nothing while exporting).
    public static func exportAdditions(session: SessionConfig, paths: Paths, store: HistoryStore,
                                       threads: [ChatThread]) -> ExportAdditions {
        guard let kind = BackendRegistry.kind(named: session.kind),
              let backend = try? kind.make(session: session, environment: BackendEnvironment(
                  http: HTTPClient(), paths: paths, store: store))
        else { return ExportAdditions() }
        return backend.exportAdditions(threads: threads)
    }
}
