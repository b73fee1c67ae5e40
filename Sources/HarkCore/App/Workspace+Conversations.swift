import FoundationEssentials
import Glibc

/// Long conversations: `/thread fork`, `/edit last`, `/copy`.
extension Workspace {
    // MARK: Forks

    /// A new thread with `thread`'s first `count` messages (all when nil), made current. A
    /// thread whose server keeps it is forked here only: its server starts the fork as a new
    /// thread, without the earlier messages; the line says so.
    public func fork(_ thread: ChatThread, messages count: Int?) throws -> (thread: ChatThread, lines: Document) {
        let messages = thread.messageCount
        if let count {
            guard count >= 1 else { throw HarkError.usage("N is a message's place in the thread, 1 to \(messages)") }
            guard count <= messages else {
                throw HarkError.usage("thread #\(thread.id) has \(messages) message\(messages == 1 ? "" : "s"); /history numbers them")
            }
        }
        let remote = try backend(for: thread.session) as? any RemoteThreads
        let title = Self.title(from: thread.title + " (fork)")
        let (fork, copied) = try store.forkThread(thread, messages: count, title: title, backendID: remote?.newThreadID())
        var lines: Document = [StyledLine("forked #\(thread.id) \(thread.title) into #\(fork.id) \(fork.title) "
            + "with \(copied) message\(copied == 1 ? "" : "s")", .success)]
        if let remote {
            lines.append(StyledLine("forked here only: \(remote.threadServer) keeps its own threads, so it starts this one "
                + "without the earlier messages", .dim))
        }
        return (fork, lines)
    }

    func forkThread(_ context: CommandContext) async throws -> CommandOutcome {
        guard let thread = try context.history.currentThread() else {
            throw HarkError.usage("there is no thread to fork yet; send a message or open one with /thread NAME")
        }
        var count: Int?
        if let text = context.arguments["N"] {
            guard let number = Int(text) else { throw context.badArguments("N is a message's place in the thread, as /history shows") }
            count = number
        }
        return .output(try fork(thread, messages: count).lines)
    }

    // MARK: Editing the last message

    /// `/edit last`: your last message of this thread in the editor; what comes back replaces
    /// it and the reply after it (both kept, superseded) and is sent.
    func editLast(_ context: CommandContext) async throws -> CommandOutcome {
        let name = context.session.name
        guard let thread = try context.history.currentThread(), let last = try store.lastMessage(threadID: thread.id, role: .user) else {
            throw HarkError.usage("there is no message of yours in this thread to edit")
        }
        if runningJobs(session: name).contains(where: { $0.thread.id == thread.id }) {
            throw HarkError.usage("a reply is still streaming in this thread; /stop it first")
        }
        return .editMessage(last.text) { [weak self] edited in
            guard let self else { return .none }
            let text = edited.trimmingNewlines
            guard !text.trimmed.isEmpty else { return .output([StyledLine("empty message; nothing changed", .dim)]) }
            guard text != last.text else { return .output([StyledLine("unchanged; nothing sent (/retry asks again)", .dim)]) }
            let id = try store.replaceLastMessage(last, with: text)
            guard let replacement = try store.message(id: id) else { return .none }
            return .reply(try send(text, to: name, retrying: replacement))
        }
    }

    // MARK: Copying

    /// `/copy`: the last reply, whole, as it arrived.
    func copyReply(_ context: CommandContext) async throws -> CommandOutcome {
        .copy(try lastReply().text, what: "the last reply")
    }

    /// `/copy code [N]`: the Nth fenced code block of the last reply (the last block by
    /// default), without its fences, exactly as the model wrote it.
    func copyCode(_ context: CommandContext) async throws -> CommandOutcome {
        let blocks = CodeBlocks.extract(from: try lastReply().text)
        guard !blocks.isEmpty else { throw HarkError.usage("the last reply has no code block; /copy takes the whole reply") }
        var index = blocks.count
        if let text = context.arguments["N"] {
            guard let number = Int(text), number >= 1, number <= blocks.count else {
                throw context.badArguments("the last reply has \(blocks.count) code block\(blocks.count == 1 ? "" : "s")")
            }
            index = number
        }
        let block = blocks[index - 1]
        let language = block.language.isEmpty ? "" : " (\(block.language))"
        return .copy(block.code, what: "code block \(index) of \(blocks.count)\(language)")
    }
}
