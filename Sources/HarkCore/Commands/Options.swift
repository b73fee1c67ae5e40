/// An option (`--session NAME`, `--json`), of the `hark` command line or of a slash-command.
public struct OptionSpec: Sendable, Equatable {
    public var names: [String]
    /// The value's placeholder, or nil for a flag.
    public var value: String?
    public var summary: String
    public var completion: ArgumentCompletion
    /// Must be given (`session add --kind`).
    public var isRequired: Bool
    /// May be given several times, each value kept (`--set K=V --set K2=V2`).
    public var repeats: Bool
    /// Its value is every word up to the next option (`--grammar yes no`).
    public var takesWords: Bool

    public init(_ names: [String], _ value: String? = nil, _ summary: String, completion: ArgumentCompletion = .none,
                isRequired: Bool = false, repeats: Bool = false, takesWords: Bool = false) {
        self.names = names
        self.value = value
        self.summary = summary
        self.completion = completion
        self.isRequired = isRequired
        self.repeats = repeats
        self.takesWords = takesWords
    }

    /// The name values are kept under: the long one.
    public var key: String { names[names.count - 1] }

    /// The same option with another summary (for a subcommand where it means more).
    public func with(summary: String) -> OptionSpec {
        var copy = self
        copy.summary = summary
        return copy
    }
}

/// Words with the options taken out, as the option table describes them.
public struct ParsedOptions: Sendable {
    /// The words that are not options, in order.
    public var words: [String] = []
    // Not a Dictionary: the first `Dictionary<String, …>` a process makes costs the Swift
    // runtime a scan of every protocol conformance in the binary, a measurable part of a 6 ms
    // `hark search`. A few entries searched in order do.
    private var given: [(key: String, values: [String])] = []

    public init() {}

    /// The last value given for the option named `key` (its long name).
    public func value(_ key: String) -> String? { values(key).last }

    /// Every value given, in order (a repeated option, or an option's words).
    public func values(_ key: String) -> [String] { given.first { $0.key == key }?.values ?? [] }

    public func flag(_ key: String) -> Bool { given.contains { $0.key == key } }

    /// A positive whole number, or `fallback` when the option is absent.
    public func int(_ key: String, default fallback: Int) throws -> Int {
        guard let text = value(key) else { return fallback }
        guard let number = Int(text), number > 0 else { throw HarkError.usage("\(key) needs a positive number") }
        return number
    }

    mutating func add(_ key: String, _ values: [String]) {
        if let index = given.firstIndex(where: { $0.key == key }) {
            given[index].values += values
        } else {
            given.append((key, values))
        }
    }
}

/// The one option parser, for the `hark` command line, its subcommands and slash-commands
/// with options. `--name VALUE` and `--name=VALUE`; `--` ends the options; `-` is a word.
public enum OptionParser {
    /// `place` names what is being parsed in errors (`hark history`, `/session add`; nil for
    /// hark itself); `help` is where the options are explained.
    public static func parse(_ arguments: [String], options: [OptionSpec], place: String? = nil,
                             help: String) throws -> ParsedOptions {
        var parsed = ParsedOptions()
        var index = 0
        var onlyWords = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyWords || !argument.hasPrefix("-") || argument == "-" {
                parsed.words.append(argument)
                continue
            }
            if argument == "--" {
                onlyWords = true
                continue
            }
            var name = argument
            var inline: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inline = String(argument[argument.index(after: equals)...])
            }
            guard let option = options.first(where: { $0.names.contains(name) }) else {
                let suggestion = Suggest.closest(to: name, in: options.flatMap(\.names))
                throw HarkError.usage("unknown option \(name)" + (place.map { " for " + $0 } ?? "")
                    + (suggestion.map { "; did you mean \($0)?" } ?? "; see \(help)"))
            }
            if option.value == nil {
                guard inline == nil else { throw HarkError.usage("\(name) takes no value; see \(help)") }
                parsed.add(option.key, [])
            } else if let inline {
                parsed.add(option.key, [inline])
            } else if option.takesWords {
                var words: [String] = []
                while index < arguments.count, !arguments[index].hasPrefix("-") {
                    words.append(arguments[index])
                    index += 1
                }
                guard !words.isEmpty else { throw HarkError.usage("\(name) needs at least one word") }
                parsed.add(option.key, words)
            } else {
                guard index < arguments.count else { throw HarkError.usage("\(name) needs a value; see \(help)") }
                parsed.add(option.key, [arguments[index]])
                index += 1
            }
        }
        for option in options where option.isRequired && !parsed.flag(option.key) {
            var choices = ""
            if option.completion == .kinds { choices = " (" + BackendRegistry.names.joined(separator: ", ") + ")" }
            throw HarkError.usage((place ?? "hark") + " needs " + option.names[0] + choices)
        }
        return parsed
    }
}
