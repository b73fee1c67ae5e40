import FoundationEssentials
import Glibc

/// Resolves a session's auth header once (a `cmd:` secret may run a password manager) and
/// keeps it in memory only. Errors name the session as well as the secret's reference.
public final class AuthHeaderCache: @unchecked Sendable {
    private let spec: AuthSpec?
    private let session: String?
    private let commandTimeout: Double
    private let environment: [String: String]?
    private let lock = Lock()
    private var resolved: (name: String, value: String)?

    public init(_ spec: AuthSpec?, session: String? = nil, commandTimeout: Double = SecretReference.defaultCommandTimeout,
                environment: [String: String]? = nil) {
        self.spec = spec
        self.session = session
        self.commandTimeout = commandTimeout
        self.environment = environment
    }

    public func headers() throws -> [(name: String, value: String)] {
        guard let spec else { return [] }
        if let resolved = lock.withLock({ resolved }) { return [resolved] }
        let header: (name: String, value: String)
        do {
            header = try spec.header(environment: environment ?? ProcessInfo.processInfo.environment,
                                     commandTimeout: commandTimeout)
        } catch HarkError.secret(let reference, let reason) where session != nil {
            throw HarkError.secret(reference: "\(reference) of session \(session!)", reason: reason)
        } catch HarkError.usage(let text) where session != nil {
            throw HarkError.badSetting(session: session!, problem: text)
        }
        lock.withLock { resolved = header }
        return [header]
    }

    /// Forget the value (after a 401, the secret may have changed).
    public func reset() { lock.withLock { resolved = nil } }
}

extension SessionConfig {
    /// The session's auth, ready to resolve: its `auth` (or the password in its URL) and
    /// `secret_timeout`.
    public func authHeaders() throws -> AuthHeaderCache {
        AuthHeaderCache(try auth(), session: name,
                        commandTimeout: try double("secret_timeout") ?? SecretReference.defaultCommandTimeout)
    }
}
