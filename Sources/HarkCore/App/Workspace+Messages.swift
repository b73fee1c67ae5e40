import FoundationEssentials
import Glibc

extension Workspace {
    func retry(_ invocation: CommandInvocation) async throws -> CommandOutcome {
        guard let thread = try currentThread(), let last = try store.lastMessage(threadID: thread.id, role: .user) else {
            throw HarkError.usage("there is no message to retry in this thread")
        }
        if runningJobs(session: currentSession).contains(where: { $0.thread.id == thread.id }) {
            throw HarkError.usage("a reply is still streaming in this thread; /stop it first")
        }
        return .reply(try send(last.text, to: currentSession, retrying: last))
    }

    func stopReplies(_ invocation: CommandInvocation) async throws -> CommandOutcome {
        let jobs = runningJobs(session: currentSession)
        guard !jobs.isEmpty else { return .output([StyledLine("no reply is streaming in \(currentSession)", .dim)]) }
        for job in jobs { job.stop() }
        for job in jobs { _ = await job.wait() }
        return .output([StyledLine("stopped \(jobs.count) repl\(jobs.count == 1 ? "y" : "ies"); what arrived is kept", .dim)])
    }

    func continueReply(_ invocation: CommandInvocation) async throws -> CommandOutcome {
        guard let thread = try currentThread(), try store.lastMessage(threadID: thread.id, role: .assistant) != nil else {
            throw HarkError.usage("there is no reply to continue in this thread")
        }
        return .reply(try send("Continue exactly where your last reply stopped.", to: currentSession))
    }

    /// The last reply of the current thread, whole, from the history.
    func lastReply() throws -> Message {
        guard let thread = try currentThread(), let reply = try store.lastMessage(threadID: thread.id, role: .assistant),
              !reply.text.isEmpty else {
            throw HarkError.usage("there is no reply in this thread yet")
        }
        return reply
    }

    func pipe(_ invocation: CommandInvocation) async throws -> CommandOutcome {
        let command = invocation.rawArguments
        guard !command.isEmpty else { throw HarkError.usage("usage: /pipe COMMAND, e.g. /pipe wc -w") }
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

    func forward(_ invocation: CommandInvocation) async throws -> CommandOutcome {
        guard invocation.arguments.count == 1, let target = invocation.arguments.first else {
            throw HarkError.usage("usage: /forward SESSION")
        }
        _ = try session(named: target)
        guard target != currentSession else { throw HarkError.usage("that is this session; name another one") }
        return .reply(try send(try lastReply().text, to: target))
    }

    func attach(_ invocation: CommandInvocation) async throws -> CommandOutcome {
        let raw = invocation.rawArguments
        guard !raw.isEmpty else {
            let queued = lock.withLock { pendingAttachments[currentSession] ?? [] }
            if queued.isEmpty { throw HarkError.usage("usage: /attach PATH") }
            return .output(queued.map { StyledLine("attached: \($0.name) (\($0.size) bytes)", .dim) })
        }
        let path = ((invocation.arguments.count == 1 ? invocation.arguments[0] : raw)).expandingTildeInPath
        var isDirectory = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory else {
            throw HarkError.usage("no file at \(path)")
        }
        guard FileManager.default.isReadableFile(atPath: path) else { throw HarkError.io("cannot read \(path)") }
        var status = stat()
        let size = stat(path, &status) == 0 ? Int(status.st_size) : 0
        let attachment = Attachment(path: path, name: path.lastPathComponent, size: size,
                                    mimeType: MimeType.guess(path))
        lock.withLock { pendingAttachments[currentSession, default: []].append(attachment) }
        return .output([StyledLine("\(attachment.name) (\(size) bytes) goes with your next message", .dim)])
    }
}

public enum MimeType {
    static let byExtension: [String: String] = [
        "txt": "text/plain", "md": "text/markdown", "csv": "text/csv", "json": "application/json",
        "pdf": "application/pdf", "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif",
        "webp": "image/webp", "html": "text/html", "xml": "application/xml", "yaml": "application/yaml",
        "yml": "application/yaml", "swift": "text/x-swift", "py": "text/x-python", "js": "text/javascript",
        "log": "text/plain", "wav": "audio/wav", "mp3": "audio/mpeg", "zip": "application/zip",
        "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    ]

    public static func guess(_ path: String) -> String {
        byExtension[path.pathExtension.lowercased()] ?? "application/octet-stream"
    }

    public static func isText(_ type: String) -> Bool {
        type.hasPrefix("text/") || type == "application/json" || type == "application/xml" || type == "application/yaml"
    }
}
