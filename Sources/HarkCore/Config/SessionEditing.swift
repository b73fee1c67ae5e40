import FoundationEssentials
import Glibc

/// Adding, editing and removing sessions in the config file; shared by `/session` and
/// `hark session`.
public enum SessionEditing {
    /// Parses `NAME --kind K [--url U] [--auth A] [--model M] [--system S] [--set K=V]…`.
    public static func add(arguments: [String], paths: Paths, config: Config) throws -> SessionConfig {
        guard let name = arguments.first, !name.hasPrefix("-") else {
            throw HarkError.usage("usage: session add NAME --kind KIND [--url URL] [--auth SPEC] [--set KEY=VALUE]…")
        }
        guard ConfigFile.isValidSessionName(name) else {
            throw HarkError.usage("session name \"\(name)\" may use letters, digits, _ . and - only")
        }
        guard config.session(named: name) == nil || (name == "local" && !sessionBlockExists("local", paths: paths)) else {
            throw HarkError.usage("session \(name) exists already; use session edit \(name) KEY=VALUE")
        }
        var session = SessionConfig(name: name, kind: "")
        var index = 1
        func value(_ option: String) throws -> String {
            index += 1
            guard index < arguments.count else { throw HarkError.usage("\(option) needs a value") }
            return arguments[index]
        }
        while index < arguments.count {
            let option = arguments[index]
            switch option {
            case "--kind": session.kind = try value(option).lowercased()
            case "--url": session["url"] = try value(option)
            case "--auth": session["auth"] = try value(option)
            case "--model": session["model"] = try value(option)
            case "--system": session["system"] = try value(option)
            case "--set":
                let (key, setting) = try assignment(try value(option))
                if key == "kind" { session.kind = setting } else { session[key] = setting }
            default:
                if option.contains("="), !option.hasPrefix("-") {
                    let (key, setting) = try assignment(option)
                    session[key] = setting
                } else {
                    throw HarkError.usage("unknown option \(option) for session add; options are --kind --url --auth --model --system --set")
                }
            }
            index += 1
        }
        guard !session.kind.isEmpty else {
            throw HarkError.usage("session add needs --kind (\(BackendRegistry.names.joined(separator: ", ")))")
        }
        if let auth = session["auth"] { _ = try AuthSpec(parsing: auth) }
        let problems = try BackendRegistry.validate(session)
        if let problem = problems.first { throw HarkError.usage(problem) }
        let text = currentText(paths)
        let updated = ConfigFile.adding(session, to: text)
        _ = try ConfigFile.parse(updated, path: paths.configFile)
        try ConfigFile.write(updated, to: paths.configFile)
        return session
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
        if let auth = edited["auth"] { _ = try AuthSpec(parsing: auth) }
        if let problem = try BackendRegistry.validate(edited).first { throw HarkError.usage(problem) }
        let updated = ConfigFile.setting(changes, session: session.name, kind: session.kind, in: currentText(paths))
        _ = try ConfigFile.parse(updated, path: paths.configFile)
        try ConfigFile.write(updated, to: paths.configFile)
    }
}
