import FoundationEssentials
import Glibc

extension Workspace {
    func retry(_ context: CommandContext) async throws -> CommandOutcome {
        guard let thread = try context.history.currentThread(), let last = try store.lastMessage(threadID: thread.id, role: .user) else {
            throw HarkError.usage("there is no message to retry in this thread")
        }
        if runningJobs(session: context.session.name).contains(where: { $0.thread.id == thread.id }) {
            throw HarkError.usage("a reply is still streaming in this thread; /stop it first")
        }
        let replaced = try store.lastMessageID(threadID: thread.id)
        let job = try send(last.text, to: context.session.name, retrying: last)
        // The old reply stays, marked as the one this retry replaces (as /edit last marks it).
        if let replaced, replaced > last.id { try store.supersedeReplies(to: last, through: replaced) }
        return .reply(job)
    }

    func stopReplies(_ context: CommandContext) async throws -> CommandOutcome {
        let jobs = runningJobs(session: context.session.name)
        guard !jobs.isEmpty else { return .output([StyledLine("no reply is streaming in \(context.session.name)", .dim)]) }
        for job in jobs { job.stop() }
        for job in jobs { _ = await job.wait() }
        return .output([StyledLine("stopped \(jobs.count) repl\(jobs.count == 1 ? "y" : "ies"); what arrived is kept", .dim)])
    }

    /// What `/continue` sends: hark's words, shown as a note rather than as the user's turn.
    public static let continueInstruction = "Continue exactly where your last reply stopped."

    func continueReply(_ context: CommandContext) async throws -> CommandOutcome {
        guard let thread = try context.history.currentThread(), try store.lastMessage(threadID: thread.id, role: .assistant) != nil else {
            throw HarkError.usage("there is no reply to continue in this thread")
        }
        return .reply(try send(Self.continueInstruction, to: context.session.name))
    }

    /// The last reply of the current thread, whole, from the history.
    func lastReply() throws -> Message {
        guard let thread = try currentThread(), let reply = try store.lastMessage(threadID: thread.id, role: .assistant),
              !reply.text.isEmpty else {
            throw HarkError.usage("there is no reply in this thread yet")
        }
        return reply
    }

    func pipe(_ context: CommandContext) async throws -> CommandOutcome {
        let command = context.arguments["COMMAND"] ?? ""
        let reply = try lastReply()
        let output = try await ShellCommand.output(command, input: Data(reply.text.utf8))
        var lines: Document = String(decoding: output.stdout, as: UTF8.self)
            .lineSlices().map { StyledLine(String($0)) }
        if lines.last?.plainText.isEmpty == true { lines.removeLast() }
        for line in String(decoding: output.stderr, as: UTF8.self).lineSlices(keepingEmpty: false) {
            lines.append(StyledLine(String(line), .warning))
        }
        if output.status != 0 { lines.append(StyledLine("\(command) exited with status \(output.status)", .error)) }
        return .output(lines)
    }

    func forward(_ context: CommandContext) async throws -> CommandOutcome {
        let target = context.arguments["SESSION"] ?? ""
        _ = try session(named: target)
        guard target != context.session.name else { throw HarkError.usage("that is this session; name another one") }
        return .reply(try send(try lastReply().text, to: target))
    }

    /// The last reply, whole, into a file (a reply's code, a draft) without copying from the screen.
    func saveReply(_ context: CommandContext) async throws -> CommandOutcome {
        let reply = try lastReply()
        let path = (context.arguments["FILE"] ?? "").expandingTildeInPath
        let text = reply.text.hasSuffix("\n") ? reply.text : reply.text + "\n"
        // Private when new, as an export is: the reply comes from the private history.
        do { try PosixFile.writePrivately(Array(text.utf8), to: path) } catch {
            throw HarkError.io("cannot write \(path); check that its folder exists and is writable")
        }
        return .output([StyledLine("wrote the last reply (\(text.utf8.count) bytes) to \(path)", .success)])
    }

    func attach(_ context: CommandContext) async throws -> CommandOutcome {
        guard let path = Self.attachedPath(context) else {
            let queued = try context.history.pendingAttachments()
            if queued.isEmpty { throw context.badArguments() }
            return .output(queued.map { StyledLine("attached: \($0.name) (\($0.size) bytes)", .dim) })
        }
        var isDirectory = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory else {
            throw HarkError.usage("no file at \(path)")
        }
        guard FileManager.default.isReadableFile(atPath: path), let content = FileContent.of(path: path) else {
            throw HarkError.io("cannot read \(path)")
        }
        var status = stat()
        let size = stat(path, &status) == 0 ? Int(status.st_size) : 0
        let name = path.lastPathComponent
        let backend = try backend(for: context.session.name)
        let form = try await backend.fileIntake(for: content).form(of: content, name: name, size: size, session: context.session)
        if form == .text, let room = await backend.messageRoom() {
            try checkRoom(room, path: path, name: name, content: content, session: context.session.name)
        }
        let attachment = Attachment(path: path, name: name, size: size, mimeType: content.mimeType)
        try context.history.attach(attachment)
        return .output([StyledLine("\(attachment.name) (\(size) bytes) goes with your next message", .dim)])
    }

    /// A file a model reads as text must fit its context with room for a message: said now,
    /// before anything is sent.
    func checkRoom(_ room: MessageRoom, path: String, name: String, content: FileContent, session: String) throws {
        let text = content == .pdf ? Array(try DocumentFormat.numberedPages(of: path).utf8)
            : PosixFile(readingAtPath: path)?.readToEnd() ?? []
        let (allowance, estimator) = try self.allowance(in: room, session: session)
        let raw = TokenEstimator.raw(message: String(decoding: text, as: UTF8.self))
        guard raw > allowance else { return }
        let what = content == .pdf ? "the text of \(name)" : name
        throw room.refusal("\(what) (\(ByteCount.format(text.count))) is", tokens: estimator.calibrated(raw),
                           session: session, advice: "it was not attached")
    }

    /// The PATH of /attach, tilde expanded: one word unquoted, or the text as typed (a path
    /// with spaces); nil when none is given.
    static func attachedPath(_ context: CommandContext) -> String? {
        guard let raw = context.arguments["PATH"] else { return nil }
        return (context.arguments.words.count == 1 ? context.arguments.words[0] : raw).expandingTildeInPath
    }
}
