/// What Tab offers for one argument position.
public enum ArgumentCompletion: Sendable, Equatable {
    case none
    case sessions
    case threads
    case files
    case kinds
    case commands
    case choices([String])
    /// The names of the prompt library.
    case prompts
    /// Names only the session's backend knows (job names, form names…), by key.
    case dynamic(String)
}

/// One positional argument of a slash-command: its placeholder (shown in usage, and the name a
/// handler reads it by), how many words it takes, and what Tab offers for it.
public struct ArgumentSpec: Sendable, Equatable {
    public enum Count: Sendable, Equatable {
        case one, optional
        /// Every word left: at least one, or any number.
        case oneOrMore, any
        /// The rest of the line as typed, quotes and all (a title, a query, a shell command):
        /// required, or possibly empty.
        case text, optionalText
    }

    public var name: String
    public var count: Count
    public var completion: ArgumentCompletion
    /// Takes a word only when it is one of its `.choices` (in any case), so that
    /// `/export notes.md` leaves `[md|json]` out and gives FILE.
    public var onlyChoices: Bool

    public init(_ name: String, _ count: Count, _ completion: ArgumentCompletion = .none, onlyChoices: Bool = false) {
        self.name = name
        self.count = count
        self.completion = completion
        self.onlyChoices = onlyChoices
    }

    public static func one(_ name: String, _ completion: ArgumentCompletion = .none) -> Self { Self(name, .one, completion) }
    public static func optional(_ name: String, _ completion: ArgumentCompletion = .none) -> Self {
        Self(name, .optional, completion)
    }
    /// An optional word that is one of `choices`, or else left out.
    public static func optionalChoice(_ choices: [String]) -> Self {
        Self(choices.joined(separator: "|"), .optional, .choices(choices), onlyChoices: true)
    }
    public static func oneOrMore(_ name: String, _ completion: ArgumentCompletion = .none) -> Self {
        Self(name, .oneOrMore, completion)
    }
    public static func any(_ name: String, _ completion: ArgumentCompletion = .none) -> Self { Self(name, .any, completion) }
    public static func text(_ name: String, _ completion: ArgumentCompletion = .none) -> Self { Self(name, .text, completion) }
    public static func optionalText(_ name: String, _ completion: ArgumentCompletion = .none) -> Self {
        Self(name, .optionalText, completion)
    }

    var isRequired: Bool { count == .one || count == .oneOrMore || count == .text }
    /// Takes every word left.
    var isGreedy: Bool { count != .one && count != .optional }

    var usage: String {
        switch count {
        case .one, .text: return name
        case .optional, .optionalText: return "[\(name)]"
        case .oneOrMore: return name + "…"
        case .any: return "[\(name)…]"
        }
    }
}

/// What a command does when it runs. It never prints: it returns what the shell should show
/// or do (`CommandOutcome`).
public typealias CommandHandler = @Sendable (CommandContext) async throws -> CommandOutcome

/// One slash-command: the single description that dispatch, argument checks, usage errors,
/// `/help`, Tab completion and "did you mean" all read, so they cannot drift apart, and the
/// code that runs it. Core commands are listed in CoreCommands, a kind's in its
/// `BackendKind.commands`; adding a command is adding one of these.
public struct CommandSpec: Sendable {
    public var name: String
    public var arguments: [ArgumentSpec]
    public var summary: String
    public var group: String
    /// Options (`--send`) taken from among the words; a command with options has no text argument.
    public var options: [OptionSpec]
    /// Forms chosen by the first word (`/thread new|rename|rm`), each with its own arguments
    /// and handler. A first word that is none of them goes to this spec's own arguments.
    public var subcommands: [CommandSpec]
    /// Kinds this command applies to; nil for every kind. A kind's commands get their kind
    /// filled in by the table.
    public var kinds: [String]?
    /// Added to usage errors: where to look for the names the command takes.
    public var hint: String?
    /// What the command does when typed alone, where that is not its usage's form (`/thread`
    /// lists the threads, `/thread NAME` opens one).
    public var bare: CommandHandler?
    public var run: CommandHandler
    /// The command's arguments may hold a secret as typed (`/login USER PASSWORD`): a line
    /// that gives it any is never kept in the input history (InputRecording).
    public var secretArguments: Bool

    public init(_ name: String, _ arguments: [ArgumentSpec], _ summary: String, group: String = "",
                options: [OptionSpec] = [], subcommands: [CommandSpec] = [], kinds: [String]? = nil, hint: String? = nil,
                secretArguments: Bool = false, bare: CommandHandler? = nil, run: @escaping CommandHandler) {
        self.name = name
        self.secretArguments = secretArguments
        self.arguments = arguments
        self.summary = summary
        self.group = group
        self.options = options
        self.subcommands = subcommands
        self.kinds = kinds
        self.hint = hint
        self.bare = bare
        self.run = run
    }

    /// A command that takes no arguments.
    public init(_ name: String, _ summary: String, group: String = "", subcommands: [CommandSpec] = [],
                kinds: [String]? = nil, run: @escaping CommandHandler) {
        self.init(name, [], summary, group: group, subcommands: subcommands, kinds: kinds, run: run)
    }

    public func applies(to kind: String) -> Bool { kinds?.contains(kind) ?? true }

    /// The subcommand named `word`, if this command has one.
    public func subcommand(_ word: String) -> CommandSpec? { subcommands.first { $0.name == word } }

    // MARK: Usage, rendered from the arguments

    /// This form's arguments and options: `NAME [KEY=VALUE…] [--send]`.
    public var argumentUsage: String {
        let options = self.options.map { option in
            let form = option.names[0] + (option.value.map { " " + $0 } ?? "")
            return option.isRequired ? form : "[\(form)]" + (option.repeats ? "…" : "")
        }
        return (arguments.map(\.usage) + options).joined(separator: " ")
    }

    /// One form, as typed: `/history [N]`; a resolved subcommand's name includes its parent's
    /// (`/thread rename TITLE`).
    public var usage: String { "/" + name + (argumentUsage.isEmpty ? "" : " " + argumentUsage) }

    /// The usage error of this form: its usage, the reason, its hint.
    public func badArguments(_ reason: String? = nil) -> HarkError {
        .badArguments(usage: usage, hint: hint, reason: reason)
    }

    /// Every form: `/thread NAME|ID | new [TITLE] | rename TITLE | rm [ID]`.
    public var fullUsage: String {
        guard !subcommands.isEmpty else { return usage }
        let forms = subcommands.map { sub in sub.name + (sub.argumentUsage.isEmpty ? "" : " " + sub.argumentUsage) }
        return usage + " | " + forms.joined(separator: " | ")
    }

    /// The usage for a list: subcommands named, their arguments left to `/help NAME`.
    public var shortUsage: String {
        guard !subcommands.isEmpty else { return usage }
        let lead = arguments.isEmpty ? [] : ["NAME"]
        return "/" + name + " [" + (lead + subcommands.map(\.name).sorted()).joined(separator: "|") + "]"
    }

    // MARK: Completion

    /// What completes the argument at `position` (0-based), following subcommands:
    /// `/thread <Tab>` offers `new rename rm` and the thread names; after an option that takes
    /// a value, that value's completion.
    public func completion(for words: [String], position: Int) -> [ArgumentCompletion] {
        if !subcommands.isEmpty {
            if position == 0 {
                return [.choices(subcommands.map(\.name).sorted())] + arguments.prefix(1).map(\.completion)
            }
            if let sub = subcommand(words[0]) { return sub.completion(for: Array(words.dropFirst()), position: position - 1) }
        }
        if let previous = words.last, position == words.count,
           let option = options.first(where: { $0.names.contains(previous) }), option.value != nil {
            return [option.completion]
        }
        var offered: [ArgumentCompletion] = []
        if !arguments.isEmpty { offered.append(arguments[min(position, arguments.count - 1)].completion) }
        if !options.isEmpty, position >= arguments.filter(\.isRequired).count {
            offered.append(.choices(options.flatMap(\.names).filter { $0.hasPrefix("--") }))
        }
        return offered
    }
}
