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

    /// How long a `cmd:` secret may run, or a `file:` secret take to read, unless the session
    /// says otherwise (`secret_timeout`): a password manager waiting for a locked keyring, or a
    /// FIFO nobody writes, must not hold hark for minutes.
    public static let defaultCommandTimeout = 10.0

    /// The value, remembered so that error lines never show it (see `SecretValues`). A file's
    /// or a command's value is its first line (blank lines before it skipped), as documented:
    /// what follows must not reach a request as extra header lines. Read at most
    /// `SecretSource.limit` bytes of either, within `commandTimeout`.
    public func resolve(environment: [String: String] = ProcessInfo.processInfo.environment,
                        commandTimeout: Double = defaultCommandTimeout) throws -> String {
        let value = try resolveValue(environment: environment, commandTimeout: commandTimeout)
        SecretValues.remember(value)
        return value
    }

    private func resolveValue(environment: [String: String], commandTimeout: Double) throws -> String {
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
            do {
                return try SecretSource.firstLine(ofFile: expanded, timeout: commandTimeout)
            } catch let problem as SecretSource.Problem {
                throw HarkError.secret(reference: description, reason: reason(problem, path: expanded, timeout: commandTimeout))
            }
        case .command(let command):
            do {
                return try SecretSource.firstLine(ofCommand: command, timeout: commandTimeout)
            } catch let problem as SecretSource.Problem {
                throw HarkError.secret(reference: description, reason: reason(problem, path: nil, timeout: commandTimeout))
            }
        }
    }

    /// What went wrong reading a file's or a command's secret, and what to do.
    private func reason(_ problem: SecretSource.Problem, path: String?, timeout: Double) -> String {
        let limit = "\(SecretSource.limit >> 10) KB"
        let raise = "raise the session's secret_timeout if it needs longer"
        switch problem {
        case .cannotRead(let why): return "cannot read \(path ?? "it"): \(why)"
        case .empty: return "\(path ?? "it") is empty"
        case .noLine:
            return path.map { "\($0) has no line within its first \(limit); the secret is the file's first line" }
                ?? "the command printed more than \(limit) and was stopped; have it print only the secret, on one line"
        case .timedOut:
            return path.map { "no line came from \($0) within \(Self.seconds(timeout)) s (a pipe nobody writes?); \(raise)" }
                ?? "the command did not finish within \(Self.seconds(timeout)) s and was stopped; \(raise)"
        case .commandFailed(let status): return "the command exited with status \(status)"
        case .printedNothing: return "the command printed nothing"
        }
    }

    static func seconds(_ value: Double) -> String {
        value.rounded() == value ? String(Int(value)) : String(value)
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
            let inner = rest.split(separator: separator, maxSplits: 1, omittingEmptySubsequences: false).map { $0.trimmingSpaces }
            guard inner.count == 2, !inner[0].isEmpty, !inner[1].isEmpty else { throw Self.invalid(text) }
            if parts[0].lowercased() == "header" {
                guard HTTPRequest.isHeaderName(inner[0]) else {
                    throw HarkError.usage("auth's header name \"\(MessageLine.name(inner[0]))\" is not a valid HTTP header name "
                        + "(letters, digits and - as in X-N8N-Key)")
                }
                self = .header(name: inner[0], value: SecretReference(inner[1]))
            } else {
                self = .basic(user: inner[0], password: SecretReference(inner[1]))
            }
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

    /// The header to send. Resolves the secret (which may run a command) each call; callers
    /// cache. A value holding CR, LF or NUL is refused, naming the reference and never the
    /// value: sent, it would end the header line and start others of the secret's choosing.
    public func header(environment: [String: String] = ProcessInfo.processInfo.environment,
                       commandTimeout: Double = SecretReference.defaultCommandTimeout) throws -> (name: String, value: String) {
        let value = try secret.resolve(environment: environment, commandTimeout: commandTimeout)
        if let problem = HTTPRequest.headerValueProblem(value) {
            throw HarkError.secret(reference: secret.description,
                                   reason: "its value holds \(problem), which cannot go in a header (a header is one line)")
        }
        switch self {
        case .basic(let user, _):
            if let problem = HTTPRequest.headerValueProblem(user) {
                throw HarkError.usage("auth's user name holds \(problem)")
            }
            let token = Data("\(user):\(value)".utf8).base64EncodedString()
            SecretValues.remember(token)
            return ("Authorization", "Basic \(token)")
        case .header(let name, _):
            guard HTTPRequest.isHeaderName(name) else {
                throw HarkError.usage("auth's header name \"\(MessageLine.name(name))\" is not a valid HTTP header name")
            }
            return (name, value)
        case .bearer:
            return ("Authorization", "Bearer \(value)")
        }
    }
}
