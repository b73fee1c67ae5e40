import FoundationEssentials
import Glibc

/// What the session sends to satisfy the card's security: headers and query items. Chosen from
/// the card's requirements (any one alternative, all of its schemes) and what the session has:
/// `auth` (bearer, basic, header) and `api_key` (placed where the card's API key scheme says).
/// Secrets are resolved once and kept in memory only.
final class A2AAuth: @unchecked Sendable {
    struct Credentials: Sendable {
        var headers: [(name: String, value: String)] = []
        var query: [(name: String, value: String)] = []
    }

    private let session: String
    private let auth: AuthSpec?
    private let apiKey: SecretReference?
    private let environment: [String: String]
    private let lock = Lock()
    private var resolvedAuth: (name: String, value: String)?
    private var resolvedKey: String?

    init(session: String, auth: AuthSpec?, apiKey: SecretReference?, environment: [String: String]) {
        self.session = session
        self.auth = auth
        self.apiKey = apiKey
        self.environment = environment
    }

    /// What to send to this agent; throws, naming the scheme, when the session has nothing that
    /// satisfies the card.
    func credentials(for card: A2ACard) throws -> Credentials {
        let requirements = card.requirements.filter { !$0.isEmpty }
        guard !requirements.isEmpty else {
            // The card asks for nothing; an `auth` the user set still goes along.
            return Credentials(headers: auth == nil ? [] : [try authHeader()])
        }
        for requirement in requirements {
            if let credentials = try satisfy(requirement, card: card) { return credentials }
        }
        let first = requirements[0].first { card.schemes[$0].map { !canSatisfy($0) } ?? true } ?? requirements[0][0]
        throw HarkError.authentication("\(card.name) requires \(Self.describe(first, card.schemes[first])); "
                                       + Self.hint(card.schemes[first], session: session))
    }

    private func canSatisfy(_ scheme: A2ACard.Scheme) -> Bool {
        switch scheme {
        case .http(let name):
            switch (name.lowercased(), auth) {
            case ("bearer", .bearer?), ("basic", .basic?): return true
            default: return false
            }
        case .apiKey(_, let name):
            if apiKey != nil { return true }
            if case .header(let header, _)? = auth { return header.lowercased() == name.lowercased() }
            return false
        case .oauth2, .openIDConnect:
            if case .bearer? = auth { return true }
            return false
        case .mutualTLS, .unknown:
            return false
        }
    }

    private func satisfy(_ requirement: [String], card: A2ACard) throws -> Credentials? {
        var credentials = Credentials()
        for name in requirement {
            guard let scheme = card.schemes[name], canSatisfy(scheme) else { return nil }
            switch scheme {
            case .apiKey(let location, let keyName) where apiKey != nil:
                let value = try key()
                if location.lowercased() != "query", let problem = HTTPRequest.headerValueProblem(value) {
                    // Sent, it would end the header line and start others of the secret's choosing.
                    throw HarkError.secret(reference: apiKey!.description,
                                           reason: "its value holds \(problem), which cannot go in a header (a header is one line)")
                }
                switch location.lowercased() {
                case "query": credentials.query.append((keyName, value))
                case "cookie": credentials.headers.append(("Cookie", "\(keyName)=\(value)"))
                default: credentials.headers.append((keyName, value))
                }
            default:
                let header = try authHeader()
                if !credentials.headers.contains(where: { $0.name == header.name }) { credentials.headers.append(header) }
            }
        }
        return credentials
    }

    private func authHeader() throws -> (name: String, value: String) {
        if let cached = lock.withLock({ resolvedAuth }) { return cached }
        guard let auth else { throw HarkError.usage("session \(session) has no auth") }
        let header = try auth.header(environment: environment)
        lock.withLock { resolvedAuth = header }
        return header
    }

    private func key() throws -> String {
        if let cached = lock.withLock({ resolvedKey }) { return cached }
        guard let apiKey else { throw HarkError.usage("session \(session) has no api_key") }
        let value = try apiKey.resolve(environment: environment)
        lock.withLock { resolvedKey = value }
        return value
    }

    /// Forget resolved secrets (after a 401, the secret may have changed).
    func reset() { lock.withLock { resolvedAuth = nil; resolvedKey = nil } }

    static func describe(_ name: String, _ scheme: A2ACard.Scheme?) -> String {
        let what: String
        switch scheme {
        case .http(let kind)?: what = kind.lowercased() == "basic" ? "HTTP basic auth" : "an HTTP \(kind) token"
        case .apiKey(let location, let key)?:
            what = location.lowercased() == "query" ? "an API key in the query parameter \(key)"
                : location.lowercased() == "cookie" ? "an API key in the cookie \(key)" : "an API key in the header \(key)"
        case .oauth2?: what = "an OAuth 2 token"
        case .openIDConnect?: what = "an OpenID Connect token"
        case .mutualTLS?: what = "mutual TLS"
        case .unknown?, nil: what = "a security scheme hark does not know"
        }
        return "\(what) (scheme \"\(name)\")"
    }

    static func hint(_ scheme: A2ACard.Scheme?, session: String) -> String {
        switch scheme {
        case .http(let kind)? where kind.lowercased() == "basic":
            return "set auth = basic:USER:SECRET for session \(session)"
        case .http?, .oauth2?, .openIDConnect?:
            return "set auth = bearer:SECRET for session \(session) (SECRET is env:VAR, file:PATH or cmd:COMMAND)"
        case .apiKey?:
            return "set api_key = SECRET for session \(session) (env:VAR, file:PATH or cmd:COMMAND)"
        case .mutualTLS?, .unknown?, nil:
            return "hark cannot provide it"
        }
    }
}
