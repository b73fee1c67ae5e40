/// Every session kind hark knows. This list is the one place a new kind is registered.
public enum BackendRegistry {
    public nonisolated(unsafe) static let kinds: [any BackendKind.Type] = [
        LocalBackend.self,
        WebhookBackend.self,
        OpenAIBackend.self,
        NylaBackend.self,
        JenkinsBackend.self,
        MonicaBackend.self,
        A2ABackend.self,
    ]

    public static func kind(named name: String) -> (any BackendKind.Type)? {
        kinds.first { $0.name == name }
    }

    public static var names: [String] { kinds.map { $0.name } }

    /// Whether a kind's replies are rendered as Markdown on a colour terminal.
    public static func repliesAreMarkdown(kind name: String) -> Bool { kind(named: name)?.replyIsMarkdown ?? true }

    /// Checks a session's kind, required keys and known keys. Unknown keys are reported, with a
    /// suggestion, but do not stop hark (a newer config may be read by an older hark).
    public static func validate(_ session: SessionConfig) throws -> [String] {
        guard let kind = kind(named: session.kind) else {
            let suggestion = Suggest.closest(to: session.kind, in: names)
            throw HarkError.badSetting(session: session.name, problem: "unknown kind \"\(session.kind)\""
                + (suggestion.map { "; did you mean \($0)?" } ?? "; kinds are " + names.joined(separator: ", ")))
        }
        for setting in kind.settings where setting.required && session[setting.key] == nil {
            throw HarkError.missingSetting(session: session.name, what: "\(setting.key) (\(setting.summary))")
        }
        let known = Set((kind.settings + CommonSettings.all).map(\.key))
        let unknown = session.values.keys.sorted().filter { !known.contains($0) }.map { key in
            let suggestion = Suggest.closest(to: key, in: Array(known))
            return "session \(session.name): unknown setting \"\(key)\"" + (suggestion.map { "; did you mean \($0)?" } ?? "")
        }
        return badValues(session).map { "session \(session.name): \($0.key) \($0.reason)" } + unknown
    }

    /// The settings whose values are not of their declared type, in the order of the keys.
    public static func badValues(_ session: SessionConfig) -> [(key: String, reason: String)] {
        guard let kind = kind(named: session.kind) else { return [] }
        var types: [String: SettingType] = [:]
        for setting in CommonSettings.all + kind.settings { types[setting.key] = setting.type }
        return session.values.keys.sorted().compactMap { key in
            guard let value = session[key], let problem = types[key]?.problem(with: value) else { return nil }
            return (key, problem)
        }
    }

    /// Refuses a config with a value of the wrong type, naming the first one's line: a typo is
    /// found when the config loads (exit 3), not at the first message to that session.
    public static func checkValues(_ config: Config) throws {
        for session in config.sessions {
            guard let bad = badValues(session).first else { continue }
            throw HarkError.config(path: config.path, line: session.keyLines[bad.key] ?? session.line,
                                   reason: "session \(session.name): \(bad.key) \(bad.reason)")
        }
    }
}
