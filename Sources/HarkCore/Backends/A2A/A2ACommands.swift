/// The a2a kind's slash-commands: their specs and the dispatch, kept apart from the work they
/// call (A2AViews, A2ABackend+Files) so they move easily when the command table changes.
enum A2ACommands {
    static let specs: [CommandSpec] = [
        CommandSpec("agent", "", "the agent's card: description, skills, capabilities, endpoint, auth (fetched anew)",
                    group: "a2a"),
        CommandSpec("files", "", "list the files agents of this session sent", group: "files"),
        CommandSpec("download", "N [PATH]", "save a file the agent sent (the number /files and the reply show)",
                    group: "files", completions: [.dynamic("files"), .files]),
    ]

    static func run(_ command: String, arguments: [String], backend: A2ABackend,
                    context: CommandContext) async throws -> CommandOutcome {
        switch command {
        case "agent": return .output(try await backend.agentCommand(arguments))
        case "files": return .output(try backend.filesCommand(arguments))
        case "download": return .output(try await backend.downloadCommand(arguments))
        default: throw HarkError.unknownCommand("/" + command, suggestion: nil)
        }
    }
}
