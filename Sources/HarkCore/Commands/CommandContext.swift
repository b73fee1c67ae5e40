/// What a command's handler gets: its arguments, already checked against its spec, and the
/// parts of the running hark it may use. A kind's command reaches its own backend through
/// `backend(as:)` (done once, by `BackendKind.handler`); the core commands reach the workspace.
public struct CommandContext: Sendable {
    /// The session the command runs in.
    public let session: SessionConfig
    public let invocation: CommandInvocation
    /// The form that runs (a subcommand's name includes its parent's: `thread rename`).
    public let spec: CommandSpec
    public let arguments: CommandArguments
    public let interaction: Interaction
    /// This session's threads and messages.
    public let history: SessionHistory
    /// Lines shown above the command's output: what happened on the way (a login).
    public let notes: CommandNotes
    /// For the core commands only; a kind's commands have their backend and the above.
    let workspace: Workspace

    init(workspace: Workspace, session: SessionConfig, invocation: CommandInvocation, spec: CommandSpec,
         arguments: CommandArguments, interaction: Interaction) {
        self.workspace = workspace
        self.session = session
        self.invocation = invocation
        self.spec = spec
        self.arguments = arguments
        self.interaction = interaction
        self.history = SessionHistory(store: workspace.store, session: session.name)
        self.notes = CommandNotes()
    }

    /// The command line as typed, to record a command's reply under (`/contact 12`).
    public var line: String {
        "/" + invocation.name + (invocation.rawArguments.isEmpty ? "" : " " + invocation.rawArguments)
    }

    /// A usage error of this command: its usage, the reason, its hint.
    public func badArguments(_ reason: String? = nil) -> HarkError { spec.badArguments(reason) }

    /// This session's backend, built on first use.
    public func backend() throws -> any Backend { try workspace.backend(for: session.name) }

    /// This session's backend as the kind that declared the command.
    public func backend<B: Backend>(as type: B.Type) throws -> B {
        guard let backend = try backend() as? B else {
            throw HarkError.commandNotForKind(command: "/" + invocation.name, kind: session.kind)
        }
        return backend
    }

    /// Writes settings of this session to the config file (nil removes a key) and reloads it;
    /// the backend is rebuilt before the next use.
    public func updateSettings(_ changes: [String: String?]) throws {
        try workspace.updateSettings(of: session.name, changes)
    }
}

/// Notes gathered while a command runs, shown above its output.
public final class CommandNotes: @unchecked Sendable {
    private let collected = Locked<[String]>([])

    public init() {}

    public func add(_ note: String) { collected.update { $0.append(note) } }

    public var lines: Document {
        collected.read { notes in
            notes.map { note in
                var line = StyledLine(note, .dim)
                line.isNote = true
                return line
            }
        }
    }
}

extension BackendKind where Self: Backend {
    /// A command handler that runs `method` on the session's backend of this kind:
    /// `run: handler(Self.listJobs)`. The one place a kind's command finds its backend.
    public static func handler(_ method: @escaping @Sendable (Self) -> (CommandContext) async throws -> CommandOutcome)
        -> CommandHandler {
        { context in try await method(try context.backend(as: Self.self))(context) }
    }
}
