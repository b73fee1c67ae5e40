/// Every slash-command: the core ones and each kind's. Dispatch, `/help`, Tab completion,
/// "did you mean" and the completion scripts all read this one table.
public struct CommandTable: Sendable {
    public let specs: [CommandSpec]

    public init(_ specs: [CommandSpec]) { self.specs = specs }

    /// The core commands and each registered kind's, marked with their kind.
    public static let standard: CommandTable = {
        var specs = CoreCommands.all
        for kind in BackendRegistry.kinds {
            for var spec in kind.commands {
                spec.kinds = spec.kinds ?? [kind.name]
                specs.append(spec)
            }
        }
        return CommandTable(specs)
    }()

    public var names: [String] { specs.map(\.name) }

    /// The spec that applies to `name` in a session of `kind`: the kind's own first.
    public func lookup(_ name: String, kind: String) -> CommandSpec? {
        specs.first { $0.name == name && $0.kinds?.contains(kind) == true } ?? specs.first { $0.name == name && $0.kinds == nil }
    }

    /// The commands a session of `kind` has, a kind's own version of a core command in its place.
    public func applicable(to kind: String) -> [CommandSpec] {
        let applicable = specs.filter { $0.applies(to: kind) }
        return applicable.filter { spec in spec.kinds != nil || !applicable.contains { $0.name == spec.name && $0.kinds != nil } }
    }

    /// The form an invocation runs (a subcommand's, named with its parent's name), its handler
    /// and its checked arguments; a name this kind lacks is an error with a suggestion.
    func resolve(_ invocation: CommandInvocation, kind: String) throws -> (CommandSpec, CommandHandler, CommandArguments) {
        guard let spec = lookup(invocation.name, kind: kind) else {
            if specs.contains(where: { $0.name == invocation.name }) {
                throw HarkError.commandNotForKind(command: "/" + invocation.name, kind: kind)
            }
            let names = applicable(to: kind).map { "/" + $0.name }
            throw HarkError.unknownCommand("/" + invocation.name, suggestion: Suggest.closest(to: "/" + invocation.name, in: names))
        }
        if let word = invocation.arguments.first, var sub = spec.subcommand(word) {
            sub.name = spec.name + " " + sub.name
            return (sub, sub.run, try CommandArguments.parse(invocation, skipping: 1, for: sub))
        }
        if let bare = spec.bare, invocation.rawArguments.isEmpty {
            return (spec, bare, try CommandArguments.parse(invocation, skipping: 0, for: CommandSpec(spec.name, "", run: bare)))
        }
        return (spec, spec.run, try CommandArguments.parse(invocation, skipping: 0, for: spec))
    }
}
