/// A command's arguments, checked against its spec before its handler runs: the handler reads
/// them by the names its spec gives them and never counts words itself.
public struct CommandArguments: Sendable {
    /// The words after the command (and subcommand), options taken out.
    public var words: [String]
    /// The line after the command (and subcommand), as typed.
    public var raw: String
    public var options: ParsedOptions
    private var bound: [(name: String, words: [String])]

    init(words: [String], raw: String, options: ParsedOptions, bound: [(name: String, words: [String])]) {
        self.words = words
        self.raw = raw
        self.options = options
        self.bound = bound
    }

    /// The argument the spec calls `name`: its word, or for a text argument the rest of the
    /// line as typed; nil when an optional one was not given.
    public subscript(_ name: String) -> String? {
        guard let words = bound.first(where: { $0.name == name })?.words, !words.isEmpty else { return nil }
        return words.count == 1 ? words[0] : words.joined(separator: " ")
    }

    /// Every word of a repeating argument (`KEY=VALUE…`).
    public func list(_ name: String) -> [String] { bound.first { $0.name == name }?.words ?? [] }

    public func flag(_ option: String) -> Bool { options.flag(option) }

    public var isEmpty: Bool { words.isEmpty && raw.isEmpty }

    /// Binds `invocation`'s words after the first `skipping` (a subcommand's name) to the spec's
    /// arguments: each one in turn, an optional one with choices only when the word is one of
    /// them, a repeating or text one taking the rest. Too few or too many words is a usage error
    /// rendered from the spec.
    static func parse(_ invocation: CommandInvocation, skipping: Int, for spec: CommandSpec) throws -> CommandArguments {
        let typed = Array(invocation.arguments.dropFirst(skipping))
        let raw = invocation.rawArguments(droppingFirst: skipping)
        var options = ParsedOptions()
        var words = typed
        if !spec.options.isEmpty {
            options = try OptionParser.parse(typed, options: spec.options, place: "/" + spec.name, help: "/help " + spec.name)
            words = options.words
        }
        var bound: [(name: String, words: [String])] = []
        var next = 0
        for argument in spec.arguments {
            let left = Array(words[next...])
            switch argument.count {
            case .one:
                guard let word = left.first else { throw spec.badArguments() }
                bound.append((argument.name, [word]))
                next += 1
            case .optional:
                guard let word = left.first else { continue }
                if argument.onlyChoices, case .choices(let choices) = argument.completion {
                    guard let choice = choices.first(where: { $0.lowercased() == word.lowercased() }) else { continue }
                    bound.append((argument.name, [choice]))
                } else {
                    bound.append((argument.name, [word]))
                }
                next += 1
            case .oneOrMore, .any:
                if argument.count == .oneOrMore, left.isEmpty { throw spec.badArguments() }
                bound.append((argument.name, left))
                next = words.count
            case .text, .optionalText:
                let text = invocation.rawArguments(droppingFirst: skipping + next)
                if argument.count == .text, text.isEmpty { throw spec.badArguments() }
                bound.append((argument.name, text.isEmpty ? [] : [text]))
                next = words.count
            }
        }
        guard next == words.count else { throw spec.badArguments() }
        return CommandArguments(words: words, raw: raw, options: options, bound: bound)
    }
}
