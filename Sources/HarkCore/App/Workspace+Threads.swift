import FoundationEssentials
import Glibc

extension Workspace {
    func listThreads(_ invocation: CommandInvocation) async throws -> CommandOutcome {
        let threads = try store.threads(session: currentSession)
        guard !threads.isEmpty else {
            return .output([StyledLine("no threads yet in \(currentSession); your next message starts one", .dim)])
        }
        let currentID = try currentThread()?.id
        let rows: [[Span]] = threads.map { thread in
            [thread.id == currentID ? Span("›", .accent) : Span(" "), Span("#\(thread.id)", .dim), Span(thread.title, .bold),
             Span("\(thread.messageCount) msg", .dim), Span(TimeFormat.short(thread.updatedAt), .dim)]
        }
        return .output(Table.render(rows, gap: 1))
    }

    func threadCommand(_ invocation: CommandInvocation) async throws -> CommandOutcome {
        let session = currentSession
        guard let first = invocation.arguments.first else { return try await listThreads(invocation) }
        switch first {
        case "new":
            let title = invocation.rawArguments(droppingFirst: 1)
            if title.isEmpty {
                try store.setCurrentThread(session: session, threadID: nil)
                return .output([StyledLine("your next message starts a new thread", .dim)])
            }
            let thread = try store.createThread(session: session, title: title,
                                                backendID: try backend(for: session).newThreadBackendID())
            return .output([StyledLine("new thread #\(thread.id) \(thread.title)", .success)])
        case "rename":
            let title = invocation.rawArguments(droppingFirst: 1)
            guard !title.isEmpty else { throw HarkError.usage("usage: /thread rename TITLE") }
            guard let thread = try currentThread() else {
                throw HarkError.usage("there is no thread to rename yet; send a message or /thread new TITLE")
            }
            try store.renameThread(id: thread.id, title: title)
            return .output([StyledLine("renamed #\(thread.id) to \(title)", .success)])
        case "rm":
            let thread: ChatThread
            if invocation.arguments.count > 1 {
                let reference = invocation.rawArguments(droppingFirst: 1)
                guard let found = try store.findThread(session: session, reference) else { throw HarkError.unknownThread(reference) }
                thread = found
            } else {
                guard let found = try currentThread() else { throw HarkError.usage("usage: /thread rm ID (see /threads)") }
                thread = found
            }
            if let job = runningJobs(session: session).first(where: { $0.thread.id == thread.id }) { job.stop() }
            try store.deleteThread(id: thread.id)
            return .output([StyledLine("deleted thread #\(thread.id) \(thread.title) and its \(thread.messageCount) messages", .success)])
        default:
            return try await openThread(invocation.rawArguments)
        }
    }

    /// Switches to a thread by id, title or server id. For a webhook session an unknown id is
    /// taken as the server's session id: the thread is adopted and its history loaded.
    func openThread(_ reference: String) async throws -> CommandOutcome {
        let session = currentSession
        let backend = try self.backend(for: session)
        var lines: Document = []
        let thread: ChatThread
        if let found = try store.findThread(session: session, reference) {
            thread = found
            try store.setCurrentThread(session: session, threadID: found.id)
        } else if backend.newThreadBackendID() != nil, !reference.contains(" ") {
            thread = try store.createThread(session: session, title: "server session \(reference.prefix(12))", backendID: reference)
            lines.append(StyledLine("adopted server session \(reference) as thread #\(thread.id)", .dim))
        } else {
            throw HarkError.unknownThread(reference)
        }
        // Ask the server for its copy; import it when we hold nothing of this thread yet.
        if thread.backendID != nil, thread.messageCount == 0 {
            do {
                let turns = try await backend.loadThread(thread)
                for turn in turns {
                    try store.addMessage(threadID: thread.id, session: session, role: turn.role, text: turn.text)
                }
                if !turns.isEmpty { lines.append(StyledLine("loaded \(turns.count) messages from the server", .dim)) }
            } catch {
                lines.append(StyledLine("could not load the server's history: \(error.userMessage)", .warning))
            }
        }
        let recent = try store.messages(threadID: thread.id, limit: 6)
        lines.append(StyledLine("thread #\(thread.id) \(thread.title)", .success))
        lines += MessageFormatting.document(recent, session: currentConfig)
        return .output(lines)
    }
}
