import FoundationEssentials
import Glibc

/// Adding, editing and removing sessions in the config file; shared by `/session` and
/// `hark session`.
public enum SessionEditing {
    /// The options of `session add`, for `hark session add` and `/session add` alike.
    public static let addOptions: [OptionSpec] = [
        OptionSpec(["--kind"], "KIND", "webhook, openai, local…", completion: .kinds, isRequired: true),
        OptionSpec(["--url"], "URL", "the server's URL"),
        OptionSpec(["--auth"], "SPEC", "basic:USER:SECRET, header:NAME:SECRET or bearer:SECRET"),
        OptionSpec(["--model"], "MODEL", "the model (openai)"),
        OptionSpec(["--system"], "TEXT|@FILE", "the system prompt (openai)", completion: .files),
        OptionSpec(["--set"], "KEY=VALUE", "any other setting", repeats: true),
    ]

    /// The options of `session edit`: those of `add` but the kind, which cannot change.
    public static let editOptions: [OptionSpec] = addOptions.filter { !$0.names.contains("--kind") }

    /// What `session edit` was given (`--url U`, `--set K=V`, bare `K=V`) as `KEY=VALUE`s, in that order.
    public static func assignments(_ options: ParsedOptions, words: [String]) -> [String] {
        ["url", "auth", "model", "system"].compactMap { key in options.value("--" + key).map { key + "=" + $0 } }
            + options.values("--set") + words
    }

    /// Adds the session `name` with the parsed `addOptions` and bare `KEY=VALUE` settings.
    public static func add(name: String, settings: [String], options: ParsedOptions, paths: Paths,
                           config: Config) throws -> SessionConfig {
        guard !name.hasPrefix("-") else { throw HarkError.usage("session add needs a NAME first, then --kind KIND") }
        guard ConfigFile.isValidSessionName(name) else {
            throw HarkError.usage("session name \"\(MessageLine.name(name))\" may use letters, digits, _ . and - only")
        }
        guard config.session(named: name) == nil || (name == SessionConfig.builtIn.name && !sessionBlockExists(name, paths: paths)) else {
            throw HarkError.usage("session \(name) exists already; use session edit \(name) KEY=VALUE")
        }
        var session = SessionConfig(name: name, kind: (options.value("--kind") ?? "").lowercased())
        for key in ["url", "auth", "model", "system"] {
            if let value = options.value("--" + key) { session[key] = value }
        }
        for text in options.values("--set") + settings {
            let (key, setting) = try assignment(text)
            if key == "kind" { session.kind = setting } else { session[key] = setting }
        }
        let problems = try asTyped {
            _ = try session.auth()
            return try BackendRegistry.validate(session)
        }
        if let problem = problems.first { throw HarkError.usage(problem) }
        let text = currentText(paths)
        let updated = ConfigFile.adding(session, to: text)
        try ConfigFile.checkBeforeWriting(try ConfigFile.parse(updated, path: paths.configFile), path: paths.configFile)
        try ConfigFile.write(updated, to: paths.configFile)
        return session
    }

    /// Settings given on the command line: what is wrong with them is the command's fault
    /// (exit 2), not a fault of the config file (exit 3), though the words are the same.
    static func asTyped<T>(_ check: () throws -> T) throws -> T {
        do { return try check() } catch let error as HarkError {
            switch error {
            case .badSetting, .missingSetting: throw HarkError.usage(error.message)
            default: throw error
            }
        }
    }

    static func sessionBlockExists(_ name: String, paths: Paths) -> Bool {
        ConfigFile.blockRange(of: name, in: currentText(paths).lineSlices()) != nil
    }

    static func currentText(_ paths: Paths) -> String {
        FileManager.default.contents(atPath: paths.configFile).map { String(decoding: $0, as: UTF8.self) }
            ?? ConfigFile.defaultText
    }

    static func assignment(_ text: String) throws -> (String, String) {
        guard let equals = text.firstIndex(of: "=") else {
            throw HarkError.usage("expected KEY=VALUE, got \"\(text)\"")
        }
        let key = text[..<equals].trimmingSpaces.lowercased()
        guard !key.isEmpty else { throw HarkError.usage("expected KEY=VALUE, got \"\(text)\"") }
        return (key, String(text[text.index(after: equals)...]))
    }

    public static func remove(name: String, paths: Paths, config: Config) throws {
        _ = try config.existingSession(named: name)
        guard let updated = ConfigFile.removing(session: name, from: currentText(paths)) else {
            throw HarkError.usage("session \(name) is built in and has no block in the config to remove")
        }
        try ConfigFile.write(updated, to: paths.configFile)
    }

    /// Applies `KEY=VALUE` (an empty value removes the key).
    public static func set(_ assignments: [String], session: SessionConfig, paths: Paths) throws {
        var changes: [(key: String, value: String?)] = []
        var edited = session
        for text in assignments {
            let (key, value) = try assignment(text)
            guard key != "kind" else { throw HarkError.usage("a session's kind cannot change; remove it and add it again") }
            changes.append((key, value.isEmpty ? nil : value))
            edited[key] = value.isEmpty ? nil : value
        }
        let problems = try asTyped {
            _ = try edited.auth()
            return try BackendRegistry.validate(edited)
        }
        if let problem = problems.first { throw HarkError.usage(problem) }
        let updated = ConfigFile.setting(changes, session: session.name, kind: session.kind, in: currentText(paths))
        try ConfigFile.checkBeforeWriting(try ConfigFile.parse(updated, path: paths.configFile), path: paths.configFile)
        try ConfigFile.write(updated, to: paths.configFile)
    }
}
