import FoundationEssentials
import Glibc

/// One `[session NAME]` block of the config.
public struct SessionConfig: Sendable, Equatable {
    /// The session every config has (added when the file has no block for it): the offline
    /// one of kind `local` (LocalBackend), which `hark` opens on unless `default` names another.
    /// The config's default, so it stands here, where the config files are read.
    public static let builtIn = SessionConfig(name: "local", kind: "local")

    public var name: String
    public var kind: String
    /// Every key as written, except `kind`.
    public var values: [String: String]
    /// Where the block starts in the file, for error messages.
    public var line: Int?
    /// The line of each key in the file, for error messages about its value.
    public var keyLines: [String: Int] = [:]

    public init(name: String, kind: String, values: [String: String] = [:], line: Int? = nil) {
        self.name = name
        self.kind = kind
        self.values = values
        self.line = line
    }

    /// Equal when they say the same: where the keys sit in the file does not count.
    public static func == (a: SessionConfig, b: SessionConfig) -> Bool {
        a.name == b.name && a.kind == b.kind && a.values == b.values && a.line == b.line
    }

    public subscript(key: String) -> String? {
        get { values[key].flatMap { $0.isEmpty ? nil : $0 } }
        set { values[key] = newValue }
    }

    /// The URL to send to, without a password written into it (that goes as Basic auth).
    public var url: String? {
        guard let written = self["url"] else { return nil }
        return URLCredentials(in: written)?.url ?? written
    }

    public var model: String? { self["model"] }

    /// `auth`, or the user and password written into the URL as Basic auth.
    public func auth() throws -> AuthSpec? {
        let inURL = self["url"].flatMap { URLCredentials(in: $0) }
        guard let text = self["auth"] else {
            return inURL.map { .basic(user: $0.user, password: .literal($0.password)) }
        }
        guard inURL == nil else {
            throw HarkError.badSetting(session: name, problem: "the url holds a password and auth is set too; keep auth "
                + "and take user:password@ out of the url")
        }
        do { return try AuthSpec(parsing: text) } catch {
            throw HarkError.badSetting(session: name, problem: error.userMessage)
        }
    }

    // The kinds read their values through these. A value in the config file was checked
    // against its declared type when the file loaded (`BackendRegistry.checkValues`); these
    // catch what `/set` and tests put in later, in the same words.

    public func double(_ key: String) throws -> Double? {
        guard let text = self[key] else { return nil }
        guard let value = Double(text.trimmingSpaces), value.isFinite else { throw badValue(key, text, .number(-.greatestFiniteMagnitude ... .greatestFiniteMagnitude)) }
        return value
    }

    public func int(_ key: String) throws -> Int? {
        guard let text = self[key] else { return nil }
        guard let value = Int(text.trimmingSpaces) else { throw badValue(key, text, .whole(Int.min...Int.max)) }
        return value
    }

    public func bool(_ key: String) throws -> Bool? {
        guard let text = self[key] else { return nil }
        guard let value = SettingType.flag(text) else { throw badValue(key, text, .flag) }
        return value
    }

    private func badValue(_ key: String, _ text: String, _ type: SettingType) -> HarkError {
        .badSetting(session: name, problem: "\(key) " + (type.problem(with: text) ?? "is not valid"))
    }

    /// Keys whose values are credentials: they must be references unless the file is private.
    /// (The webhook's `input_key` and `session_key` name JSON keys; they are not secrets.)
    public static func holdsSecret(_ key: String) -> Bool {
        guard key != "input_key" && key != "session_key" else { return false }
        return key == "auth" || key == "proxy_auth" || key.hasSuffix("token") || key.hasSuffix("password") || key.hasSuffix("key")
    }

    /// Where the session holds a literal secret, by key: a credential key whose value is not
    /// an `env:`, `file:` or `cmd:` reference, or a URL with a password in it.
    public var literalSecretKeys: [String] {
        values.keys.sorted().filter { key in
            let value = values[key] ?? ""
            if key == "url" { return URLCredentials(in: value) != nil }
            guard Self.holdsSecret(key), !value.isEmpty else { return false }
            if key == "auth" || key == "proxy_auth" { return (try? AuthSpec(parsing: value))?.secret.isLiteral ?? false }
            return SecretReference(value).isLiteral
        }
    }
}

/// The whole config: global settings from `[hark]` and the sessions in file order. The
/// built-in `local` session exists even when the file does not mention it.
public struct Config: Sendable, Equatable {
    public var path: String
    public var global: [String: String]
    public var sessions: [SessionConfig]
    /// The `[mcp NAME]` sections: MCP servers whose tools model sessions may use.
    public var mcpServers: [MCPServerConfig]

    public init(path: String, global: [String: String] = [:], sessions: [SessionConfig] = [],
                mcpServers: [MCPServerConfig] = []) {
        self.path = path
        self.global = global
        self.sessions = sessions
        self.mcpServers = mcpServers
        if !sessions.contains(where: { $0.name == SessionConfig.builtIn.name }) {
            self.sessions.insert(SessionConfig.builtIn, at: 0)
        }
    }

    public func session(named name: String) -> SessionConfig? {
        sessions.first { $0.name == name }
    }

    public var sessionNames: [String] { sessions.map(\.name) }

    /// The session named so, or the error every command gives for a name that is not one
    /// (with the closest configured name as a suggestion).
    public func existingSession(named name: String) throws -> SessionConfig {
        guard let session = session(named: name) else {
            throw HarkError.unknownSession(name, suggestion: Suggest.closest(to: name, in: sessionNames))
        }
        return session
    }

    /// The session `hark` opens on: `default` in `[hark]`, else `local`.
    public var defaultSession: String {
        if let name = global["default"], session(named: name) != nil { return name }
        return SessionConfig.builtIn.name
    }
}
