import FoundationEssentials
import Glibc

/// One `[session NAME]` block of the config.
public struct SessionConfig: Sendable, Equatable {
    public var name: String
    public var kind: String
    /// Every key as written, except `kind`.
    public var values: [String: String]
    /// Where the block starts in the file, for error messages.
    public var line: Int?

    public init(name: String, kind: String, values: [String: String] = [:], line: Int? = nil) {
        self.name = name
        self.kind = kind
        self.values = values
        self.line = line
    }

    public subscript(key: String) -> String? {
        get { values[key].flatMap { $0.isEmpty ? nil : $0 } }
        set { values[key] = newValue }
    }

    public var url: String? { self["url"] }
    public var model: String? { self["model"] }

    public func auth() throws -> AuthSpec? {
        guard let text = self["auth"] else { return nil }
        do { return try AuthSpec(parsing: text) } catch {
            throw HarkError.usage("session \(name): \(error.userMessage)")
        }
    }

    public func double(_ key: String) throws -> Double? {
        guard let text = self[key] else { return nil }
        guard let value = Double(text) else {
            throw HarkError.usage("session \(name): \(key) must be a number, not \"\(text)\"")
        }
        return value
    }

    public func int(_ key: String) throws -> Int? {
        guard let text = self[key] else { return nil }
        guard let value = Int(text) else {
            throw HarkError.usage("session \(name): \(key) must be a whole number, not \"\(text)\"")
        }
        return value
    }

    public func bool(_ key: String) throws -> Bool? {
        guard let text = self[key]?.lowercased() else { return nil }
        switch text {
        case "on", "yes", "true", "1": return true
        case "off", "no", "false", "0": return false
        default: throw HarkError.usage("session \(name): \(key) must be on or off, not \"\(text)\"")
        }
    }

    /// Keys whose values are credentials: they must be references unless the file is private.
    public static func holdsSecret(_ key: String) -> Bool {
        key == "auth" || key.hasSuffix("token") || key.hasSuffix("password") || key.hasSuffix("key")
    }
}

/// The whole config: global settings from `[hark]` and the sessions in file order. The
/// built-in `local` session exists even when the file does not mention it.
public struct Config: Sendable, Equatable {
    public var path: String
    public var global: [String: String]
    public var sessions: [SessionConfig]

    public init(path: String, global: [String: String] = [:], sessions: [SessionConfig] = []) {
        self.path = path
        self.global = global
        self.sessions = sessions
        if !sessions.contains(where: { $0.name == "local" }) {
            self.sessions.insert(SessionConfig(name: "local", kind: "local"), at: 0)
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
        return "local"
    }
}
