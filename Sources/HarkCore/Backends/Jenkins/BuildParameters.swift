import FoundationEssentials
import Glibc

/// The parameters of one build, checked against the job's definitions: choices must be one
/// of the choices, booleans yes or no, a password comes from a secret reference or is asked
/// without echo, and a parameter with no value to fall back on is asked for in the shell
/// (in a pipe, leaving it out is an error). A password, or free text whose default is empty,
/// is asked in the shell too, an empty answer keeping the default. Parameters left out are
/// not sent, so Jenkins uses its defaults; they are listed so the user sees what the build
/// will use.
struct BuildParameters: Sendable {
    /// Sent to `buildWithParameters`.
    var form: [(String, String)] = []
    /// The parameters as they may be shown and recorded: passwords masked.
    var shown: [String] = []
    /// `NAME=default` for each parameter left to Jenkins.
    var defaults: [String] = []

    static func resolve(_ words: [String], for job: JobDetails, interaction: Interaction) async throws -> BuildParameters {
        let definitions = job.parameters
        var given: [String: String] = [:]
        for word in words {
            guard let equals = word.firstIndex(of: "="), equals != word.startIndex else {
                throw HarkError.usage("expected KEY=VALUE after the job name, got \"\(word)\"")
            }
            guard !definitions.isEmpty else {
                throw HarkError.usage("\(job.path) takes no parameters; /build \(job.path) starts it")
            }
            let definition = try Self.definition(named: String(word[..<equals]), in: definitions, job: job.path)
            guard given[definition.name] == nil else { throw HarkError.usage("\(definition.name) is given twice") }
            given[definition.name] = String(word[word.index(after: equals)...])
        }
        // Every given value is checked before anything is asked.
        var checked: [String: String] = [:]
        for definition in definitions {
            if let value = given[definition.name] { checked[definition.name] = try Self.check(value, for: definition, typed: false) }
        }
        var result = BuildParameters()
        for definition in definitions {
            if let value = checked[definition.name] {
                result.add(definition, value, shownAs: definition.kind == .password ? given[definition.name]! : value)
            } else if definition.isRequired {
                let answer = try await Self.ask(definition, job: job.path, interaction: interaction, optional: false)
                result.add(definition, answer ?? "", shownAs: definition.kind == .password ? "***" : answer ?? "")
            } else if definition.isAskedInShell, interaction.isInteractive,
                      let answer = try await Self.ask(definition, job: job.path, interaction: interaction, optional: true) {
                result.add(definition, answer, shownAs: definition.kind == .password ? "***" : answer)
            } else if definition.kind != .file {
                // Left out, so Jenkins uses its own default: never sent as an empty value,
                // which would override a stored password.
                let fallback = definition.kind == .password ? "(default)" : (definition.defaultValue ?? "")
                result.defaults.append("\(definition.name)=\(fallback)")
            }
        }
        return result
    }

    private mutating func add(_ definition: ParameterDefinition, _ value: String, shownAs shown: String) {
        form.append((definition.name, value))
        self.shown.append("\(definition.name)=\(Self.quoted(shown))")
    }

    /// A value as it would be typed again: quoted when it holds spaces or quotes.
    static func quoted(_ value: String) -> String {
        guard value.isEmpty || value.contains(where: { $0.isWhitespace || $0 == "\"" || $0 == "'" || $0 == "\\" }) else {
            return value
        }
        return "\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// Parameter names are case-sensitive in Jenkins; a name typed in another case is taken
    /// when it matches exactly one.
    static func definition(named name: String, in definitions: [ParameterDefinition], job: JobPath) throws -> ParameterDefinition {
        if let exact = definitions.first(where: { $0.name == name }) { return exact }
        let folded = definitions.filter { $0.name.lowercased() == name.lowercased() }
        if folded.count == 1 { return folded[0] }
        let names = definitions.map(\.name)
        let suggestion = Suggest.closest(to: name, in: names)
        throw HarkError.usage("\(job) has no parameter \(name)"
            + (suggestion.map { "; did you mean \($0)?" } ?? "; its parameters are \(names.joined(separator: ", "))"))
    }

    /// The value to send, or a one-line error. `typed` is true for an answer typed at the
    /// prompt (a password may then be literal: it was not echoed and is not kept).
    static func check(_ value: String, for definition: ParameterDefinition, typed: Bool) throws -> String {
        switch definition.kind {
        case .boolean:
            switch value.lowercased() {
            case "true", "yes", "on", "1", "y": return "true"
            case "false", "no", "off", "0", "n": return "false"
            default: throw HarkError.usage("\(definition.name) is yes or no, not \"\(value)\"")
            }
        case .choice:
            if definition.choices.contains(value) { return value }
            let folded = definition.choices.filter { $0.lowercased() == value.lowercased() }
            if folded.count == 1 { return folded[0] }
            let suggestion = Suggest.closest(to: value, in: definition.choices)
            throw HarkError.usage("\(definition.name) must be one of \(definition.choices.joined(separator: ", ")), not \"\(value)\""
                + (suggestion.map { "; did you mean \($0)?" } ?? ""))
        case .password:
            if typed { return value }
            let reference = SecretReference(value)
            guard !reference.isLiteral else {
                throw HarkError.usage("\(definition.name) is a password: leave it out and hark asks for it without echo, "
                    + "or give \(definition.name)=env:VAR, file:PATH or cmd:COMMAND")
            }
            return try reference.resolve()
        case .file:
            throw HarkError.usage("\(definition.name) is a file parameter, which hark cannot upload; start this build in Jenkins")
        case .string, .text, .run, .other:
            return value
        }
    }

    /// Asks for a value. `optional`: an empty answer (or nobody to ask) is nil, and Jenkins'
    /// default applies; otherwise nobody to ask is an error naming what to add.
    static func ask(_ definition: ParameterDefinition, job: JobPath, interaction: Interaction, optional: Bool) async throws -> String? {
        var prompt = "\(definition.name) (\(definition.typeLabel)"
        if let description = definition.description { prompt += ": " + JenkinsText.plain(description) }
        if optional { prompt += "; Enter keeps the default" }
        prompt += "): "
        guard let answer = await interaction.ask(prompt, secret: definition.kind == .password) else {
            if optional { return nil }
            throw HarkError.usage("\(job) needs \(definition.name) (\(definition.typeLabel)); add \(definition.name)=VALUE")
        }
        if optional && answer.isEmpty { return nil }
        return try check(answer, for: definition, typed: true)
    }
}
