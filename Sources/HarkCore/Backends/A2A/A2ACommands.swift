/// The a2a kind's slash-commands and their handlers, kept apart from the work they call
/// (A2AViews, A2ABackend+Files). Threads are the core `/threads` and `/thread` (A2A contexts,
/// through RemoteThreads).
extension A2ABackend {
    static let commandSpecs: [CommandSpec] = [
        CommandSpec("agent", "the agent's card: description, skills, capabilities, endpoint, auth (fetched anew)",
                    group: "a2a", run: handler(A2ABackend.agent)),
        CommandSpec("files", "list the files agents of this session sent", group: "files", run: handler(A2ABackend.files)),
        CommandSpec("download", [.one("N", .dynamic("files")), .optional("PATH", .files)],
                    "save a file the agent sent (the number /files and the reply show)", group: "files",
                    run: handler(A2ABackend.download)),
    ]

    func agent(_ context: CommandContext) async throws -> CommandOutcome { .output(try await agentCard()) }

    func files(_ context: CommandContext) async throws -> CommandOutcome { .output(fileList()) }

    func download(_ context: CommandContext) async throws -> CommandOutcome {
        guard let number = Int(context.arguments["N"] ?? "") else { throw context.badArguments("N is a number /files shows") }
        return .output(try await download(number, to: context.arguments["PATH"]))
    }
}

extension A2ABackend: RemoteThreads {
    /// Contexts are named by the agent with the first message, and cannot be listed, renamed or
    /// deleted there: those stay here. `/thread ID` adopts a context started elsewhere.
    public var threadServer: String { "the agent" }
}
