/// Whether a line typed in the shell may be kept in the input history (the database's
/// `input_history`, and libedit's Up/Ctrl-R): never when it carries a literal secret, which
/// must not enter the database nor come back on the screen. A secret given as a reference
/// (`env:`, `file:`, `cmd:`) is fine: the line holds where it lives, not the value.
///
/// Pure: it decides from the text and the command table alone, so the shell calls it wherever
/// it records a line.
public enum InputRecording {
    /// Said (once) when a line was not kept.
    public static let note = "not kept in the input history: the line holds a literal secret"

    /// `commands`: a command whose spec says its arguments hold secrets (`/login USER
    /// PASSWORD`) is kept only when typed without any.
    public static func mayRecord(_ line: String, commands: CommandTable = .standard) -> Bool {
        // A URL with a password, anywhere in any line.
        let words = line.split(whereSeparator: { $0.isWhitespace }).map(String.init)
        if words.contains(where: { URLCredentials(in: $0) != nil }) { return false }
        guard line.hasPrefix("/"), !line.hasPrefix("//") else { return true }
        // A command: its words as the command will read them (quotes removed), or, when they
        // do not split (an unterminated quote), as typed.
        let invocation = try? CommandInvocation.parse(line)
        let name = invocation?.name ?? String(words.first?.dropFirst() ?? "")
        if commands.specs.contains(where: { $0.name == name && $0.secretArguments }) {
            return words.count <= 1
        }
        let arguments = invocation?.arguments ?? Array(words.dropFirst())
        if arguments.contains(where: { URLCredentials(in: $0) != nil }) { return false }
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument.hasPrefix("-") {
                // `--auth VALUE`, `--password VALUE`; `--set KEY=VALUE` is read as KEY=VALUE.
                let option = String(argument.drop(while: { $0 == "-" }))
                if let equals = option.firstIndex(of: "=") {
                    if isLiteralSecret(key: String(option[..<equals]), value: String(option[option.index(after: equals)...])) {
                        return false
                    }
                } else if index < arguments.count, option != "set", SessionConfig.holdsSecret(option.lowercased()) {
                    if isLiteralSecret(key: option.lowercased(), value: arguments[index]) { return false }
                    index += 1
                }
            } else if let equals = argument.firstIndex(of: "=") {
                // `auth=bearer:…`, `password=…` (/session edit, /build JOB password=…).
                let key = String(argument[..<equals]).trimmingSpaces.lowercased()
                if isLiteralSecret(key: key, value: String(argument[argument.index(after: equals)...])) { return false }
            }
        }
        return true
    }

    /// A value of a credential key that is the secret itself rather than where it lives. An
    /// `auth` value that does not parse counts as literal: it may be a bare token.
    static func isLiteralSecret(key: String, value: String) -> Bool {
        let key = key.lowercased()
        guard SessionConfig.holdsSecret(key), !value.isEmpty else { return false }
        if key == "auth" {
            guard let spec = try? AuthSpec(parsing: value) else { return true }
            return spec.secret.isLiteral
        }
        return SecretReference(value).isLiteral
    }
}
