import FoundationEssentials
import Glibc

/// A secret as written in the config: a reference to where it lives, never the value itself
/// (a literal is tolerated only in a file nobody else can read).
public enum SecretReference: Sendable, Equatable, CustomStringConvertible {
    case environment(String)
    case file(String)
    case command(String)
    case literal(String)

    public init(_ text: String) {
        if text.hasPrefix("env:") { self = .environment(String(text.dropFirst(4))) }
        else if text.hasPrefix("file:") { self = .file(String(text.dropFirst(5))) }
        else if text.hasPrefix("cmd:") { self = .command(String(text.dropFirst(4))) }
        else { self = .literal(text) }
    }

    public var isLiteral: Bool {
        if case .literal = self { return true }
        return false
    }

    /// Safe to show: names where the secret lives, never the secret.
    public var description: String {
        switch self {
        case .environment(let name): return "env:\(name)"
        case .file(let path): return "file:\(path)"
        case .command(let command): return "cmd:\(command.split(separator: " ").first.map(String.init) ?? "")"
        case .literal: return "(literal)"
        }
    }

    /// The value, remembered so that error lines never show it (see `SecretValues`).
    public func resolve(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String {
        let value = try resolveValue(environment: environment)
        SecretValues.remember(value)
        return value
    }

    private func resolveValue(environment: [String: String]) throws -> String {
        switch self {
        case .literal(let value):
            return value
        case .environment(let name):
            guard let value = environment[name], !value.isEmpty else {
                throw HarkError.secret(reference: description, reason: "the variable \(name) is not set; export it first")
            }
            return value
        case .file(let path):
            let expanded = path.expandingTildeInPath
            guard let data = FileManager.default.contents(atPath: expanded) else {
                throw HarkError.secret(reference: description, reason: "cannot read \(expanded)")
            }
            return String(decoding: data, as: UTF8.self).trimmingNewlines
        case .command(let command):
            let output = try ShellCommand.run(command, input: nil)
            guard output.status == 0 else {
                throw HarkError.secret(reference: description, reason: "the command exited with status \(output.status)")
            }
            let value = String(decoding: output.stdout, as: UTF8.self).trimmingNewlines
            guard !value.isEmpty else {
                throw HarkError.secret(reference: description, reason: "the command printed nothing")
            }
            return value
        }
    }
}

/// How a session authenticates: `basic:USER:SECRET`, `header:NAME:SECRET`, `bearer:SECRET`
/// (spaces may stand for the colons, as in `header X-N8N-Key env:N8N_KEY`).
public enum AuthSpec: Sendable, Equatable, CustomStringConvertible {
    case basic(user: String, password: SecretReference)
    case header(name: String, value: SecretReference)
    case bearer(SecretReference)

    public init(parsing text: String) throws {
        let trimmed = text.trimmingSpaces
        let lowered = trimmed.lowercased()
        let colonForm = ["basic:", "header:", "bearer:"].contains { lowered.hasPrefix($0) }
        let separator: Character = colonForm ? ":" : " "
        let parts = trimmed.split(separator: separator, maxSplits: 1, omittingEmptySubsequences: true).map(String.init)
        guard parts.count == 2 else { throw Self.invalid(text) }
        let rest = parts[1].trimmingSpaces
        switch parts[0].lowercased() {
        case "bearer":
            guard !rest.isEmpty else { throw Self.invalid(text) }
            self = .bearer(SecretReference(rest))
        case "basic", "header":
            let inner = rest.split(separator: separator, maxSplits: 1).map { $0.trimmingSpaces }
            guard inner.count == 2, !inner[0].isEmpty, !inner[1].isEmpty else { throw Self.invalid(text) }
            self = parts[0].lowercased() == "basic"
                ? .basic(user: inner[0], password: SecretReference(inner[1]))
                : .header(name: inner[0], value: SecretReference(inner[1]))
        default:
            throw Self.invalid(text)
        }
    }

    private static func invalid(_ text: String) -> HarkError {
        .usage("auth must be basic:USER:SECRET, header:NAME:SECRET or bearer:SECRET (SECRET is env:VAR, file:PATH or cmd:COMMAND)")
    }

    public var secret: SecretReference {
        switch self {
        case .basic(_, let password): return password
        case .header(_, let value): return value
        case .bearer(let token): return token
        }
    }

    public var description: String {
        switch self {
        case .basic(let user, let password): return "basic:\(user):\(password)"
        case .header(let name, let value): return "header:\(name):\(value)"
        case .bearer(let token): return "bearer:\(token)"
        }
    }

    /// The header to send. Resolves the secret (which may run a command) each call; callers cache.
    public func header() throws -> (name: String, value: String) {
        switch self {
        case .basic(let user, let password):
            let token = Data("\(user):\(try password.resolve())".utf8).base64EncodedString()
            SecretValues.remember(token)
            return ("Authorization", "Basic \(token)")
        case .header(let name, let value):
            return (name, try value.resolve())
        case .bearer(let token):
            return ("Authorization", "Bearer \(try token.resolve())")
        }
    }
}
