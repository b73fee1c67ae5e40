import FoundationEssentials
import Glibc

/// Lines a call wants the user to see besides its result ("logged in to …"): collected for a
/// command's output, or passed on at once as status lines of a reply. A warning (a retried
/// rate limit) is worth a line in a pipe too: a reply passes it on as a notice, which a
/// one-shot run writes to stderr.
final class NylaNotes: @unchecked Sendable {
    private let lock = Lock()
    private var collected: [String] = []
    private let forward: (@Sendable (String) async throws -> Void)?
    private let forwardWarning: (@Sendable (String) async throws -> Void)?

    /// A reply's forwarding waits while the reply's buffer is full, and throws once its
    /// consumer has gone.
    init(forward: (@Sendable (String) async throws -> Void)? = nil, warnings: (@Sendable (String) async throws -> Void)? = nil) {
        self.forward = forward
        forwardWarning = warnings
    }

    func add(_ note: String) async throws {
        if let forward { try await forward(note) } else { lock.withLock { collected.append(note) } }
    }

    func warn(_ note: String) async throws {
        if let forwardWarning { try await forwardWarning(note) } else { try await add(note) }
    }

    var lines: Document { lock.withLock { collected.map { StyledLine($0, .dim) } } }
}

/// HTTP to one gateway, as its web app does it: the login's cookies (or a bearer token) on
/// every request, `X-CSRF-Token` on every mutating one, the mandate and instance headers on
/// feature requests. New cookies are kept; 401 ends the login; 429 waits and retries; other
/// errors carry the gateway's FastAPI `detail`.
final class NylaClient: @unchecked Sendable {
    let gateway: String
    let host: String
    let http: HTTPClient
    /// The waits of a rate limit, and the time its Retry-After date is read against.
    let clock: HarkClock
    let state: NylaSessionState
    let loginFile: NylaLoginFile
    let auth: AuthHeaderCache
    let usesToken: Bool
    let timeouts: HTTPTimeouts
    let tls: TLSOptions
    /// Secure cookies go over https only (and to loopback, as browsers allow).
    let secureChannel: Bool
    /// A rate limit is waited out (the gateway's Retry-After, else 1s, 2s, 4s) up to three
    /// times, for any request: a 429 was not acted on.
    static let retry = RetryPolicy(tries: 4, firstDelay: 1, growth: 2, maxWait: 30, serverErrors: [], rateLimits: true,
                                   transport: .none)

    init(session: SessionConfig, environment: BackendEnvironment, state: NylaSessionState) throws {
        var base = session.url ?? ""
        while base.hasSuffix("/") { base.removeLast() }
        gateway = base
        host = HTTPRequest.displayHost(of: base)
        http = environment.http
        clock = environment.clock
        self.state = state
        loginFile = NylaLoginFile(paths: environment.paths, session: session.name)
        let authSpec = try session.auth()
        auth = try session.authHeaders()
        usesToken = authSpec != nil
        timeouts = try session.timeouts()
        tls = try session.tls()
        let displayHost = host
        secureChannel = base.lowercased().hasPrefix("https://")
            || ["127.0.0.1", "localhost", "[::1]"].contains { displayHost.hasPrefix($0) }
        let file = loginFile
        state.update { values in
            if values.login == nil { values.login = file.load(gateway: base) }
        }
    }

    var isLoggedIn: Bool { usesToken || state.read { $0.login?.established == true && $0.login?.jar.hasLiveCookie(now: clock.now()) == true } }

    /// A saved login whose cookies have all expired.
    var loginExpired: Bool { state.read { $0.login?.established == true && $0.login?.jar.hasLiveCookie(now: clock.now()) == false } }

    /// Logs in again with the session's stored password; false when it has none. Set by the
    /// backend, which knows the settings; used once when the gateway ends a login mid-run.
    var reauthenticate: (@Sendable (NylaNotes?) async throws -> Bool)?
    var userName: String? { state.read { $0.login?.user } }

    // MARK: Requests

    func request(_ method: String, _ path: String, query: [(String, String)] = [], json: JSON? = nil,
                 body: HTTPRequest.Body? = nil, contentType: String? = nil, instance: NylaInstance? = nil,
                 accept: String = "application/json", timeouts: HTTPTimeouts? = nil) throws -> HTTPRequest {
        var headers: [(name: String, value: String)] = [("Accept", accept)]
        var payload = body ?? .none
        if let json {
            headers.append(("Content-Type", "application/json"))
            payload = .bytes(Array(json.encoded().utf8))
        } else if let contentType {
            headers.append(("Content-Type", contentType))
        }
        headers += try auth.headers()
        let (cookie, csrf) = state.read { values in
            (values.login?.jar.header(path: path, secureChannel: secureChannel, now: clock.now()), values.login?.csrf ?? values.tokenCSRF)
        }
        if let cookie { headers.append(("Cookie", cookie)) }
        if !["GET", "HEAD", "OPTIONS"].contains(method) { headers.append((NylaWire.csrfHeader, csrf)) }
        if let instance {
            headers.append((NylaWire.mandateHeader, instance.mandateID))
            headers.append((NylaWire.instanceHeader, instance.id))
        }
        var url = gateway + path
        if !query.isEmpty {
            url += "?" + query.map { NylaWire.escape($0.0) + "=" + NylaWire.escape($0.1) }.joined(separator: "&")
        }
        return HTTPRequest(method: method, url: url, headers: headers, body: payload, timeouts: timeouts ?? self.timeouts,
                           tls: tls)
    }

    /// Sends a request and returns once its head is in, with the body still to read. Waits and
    /// retries on 429 (saying so through `notes`); any other failure is thrown as a HarkError.
    func open(_ path: String, notes: NylaNotes?, _ build: () throws -> HTTPRequest) async throws -> HTTPOpenResponse {
        var loggedInAgain = false
        let onWait: (String, Double) async throws -> Void = { [host] _, wait in
            try await notes?.warn("\(host) is rate limiting (HTTP 429); "
                + (wait > 0 ? "retrying in \(RetryPolicy.format(wait))" : "retrying"))
        }
        return try await http.retrying(Self.retry, host: host, onWait: onWait) { _ -> TryResult<HTTPOpenResponse> in
            let request = try build()
            var response = try await http.open(request)
            let head = response.head
            absorbCookies(head, path: path)
            if head.isSuccess { return .success(response) }
            let errorBody = try await response.body.collect(upTo: 65536).bytes
            response.stream.cancel()
            // The gateway ended the login (a restart, a session timeout): with a stored password,
            // log in once more and send the request again rather than fail the run.
            if head.status == 401, path != NylaWire.login, !usesToken, !loggedInAgain, let reauthenticate,
               try await reauthenticate(notes) {
                loggedInAgain = true
                return .again
            }
            guard head.status == 429 else { throw failure(head, body: errorBody, path: path) }
            let retryAfter = head.header("retry-after")
            return .status(429, retryAfter: retryAfter, giveUp: { [clock, host] _ in
                let asked = HTTPDate.retryAfter(retryAfter, now: clock.now()) ?? 0
                throw HarkError.http(status: 429, host: host, serverMessage: "rate limited; try again in "
                    + (asked > Self.retry.maxWait ? "\(Int(asked))s" : "a minute"))
            })
        }
    }

    /// The whole response, bounded.
    func fetch(_ method: String, _ path: String, query: [(String, String)] = [], json: JSON? = nil,
               body: HTTPRequest.Body? = nil, contentType: String? = nil, instance: NylaInstance? = nil,
               timeouts: HTTPTimeouts? = nil, notes: NylaNotes?, maxBytes: Int = 64 << 20) async throws -> HTTPResponse {
        let response = try await open(path, notes: notes) {
            try request(method, path, query: query, json: json, body: body, contentType: contentType, instance: instance,
                        timeouts: timeouts)
        }
        defer { response.stream.cancel() }
        var body = response.body
        let (bytes, whole) = try await body.collect(upTo: maxBytes)
        guard whole else { throw HarkError.protocolViolation("\(host) sent more than \(maxBytes >> 20) MB") }
        return HTTPResponse(head: response.head, body: bytes)
    }

    /// The JSON of a response; an empty body (204) is null.
    func json(_ method: String, _ path: String, query: [(String, String)] = [], json body: JSON? = nil,
              instance: NylaInstance? = nil, notes: NylaNotes?) async throws -> JSON {
        let response = try await fetch(method, path, query: query, json: body, instance: instance, notes: notes)
        if response.body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D }) { return .null }
        do { return try JSON.parse(response.body) } catch {
            throw HarkError.protocolViolation("\(host) answered \(path) with something that is not JSON")
        }
    }

    /// Every item of a list the gateway pages (a FastAPI PaginatedResponse: `items`, `total`,
    /// `page`, `pageSize`, `totalPages`; the seed's page size is 25): pages are asked for until
    /// `totalPages`, which a gateway may make more than hark's page size implies, since it may
    /// serve fewer items than asked. A bare list is one page.
    func allItems(_ path: String, key: String, query: [(String, String)] = [], instance: NylaInstance? = nil,
                  notes: NylaNotes?) async throws -> [JSON] {
        var items: [JSON] = []
        var page = 1
        var pages = 1
        repeat {
            let json = try await json("GET", path, query: query + NylaWire.pageQuery(page), instance: instance, notes: notes)
            items += NylaWire.items(json, key: key)
            pages = min(NylaWire.pageCount(json), NylaWire.maxPages)
            page += 1
        } while page <= pages
        return items
    }

    // MARK: Login

    private func absorbCookies(_ head: HTTPResponseHead, path: String) {
        guard let header = head.header("set-cookie") else { return }
        let toSave: NylaLogin? = state.update { values in
            guard var login = values.login, login.jar.absorb(header, requestPath: path, now: clock.now()) else { return nil }
            values.login = login
            return login.established ? login : nil
        }
        if let toSave { try? loginFile.save(toSave) }
    }

    private func failure(_ head: HTTPResponseHead, body: [UInt8], path: String) -> HarkError {
        let message = ServerMessage.extract(from: body, contentType: head.header("content-type")).map(ServerMessage.sanitize)
        let detail = "HTTP \(head.status)" + (message.map { ": " + $0 } ?? "")
        switch head.status {
        case 401 where path == NylaWire.login:
            return .authentication("\(host) did not accept the login (\(detail))")
        case 401 where usesToken:
            auth.reset()
            return .authentication("\(host) refused the token (\(detail)); check the session's auth")
        case 401:
            let hadLogin = forgetLogin()
            return .authentication(hadLogin ? "\(host) ended the login (\(detail)); /login signs in again"
                                            : "not logged in to \(host); /login signs in")
        case 403:
            return .authentication("\(host) refused this (\(detail))")
        default:
            return .http(status: head.status, host: host, serverMessage: message)
        }
    }

    /// Logs in with the local form; returns the name the gateway knows the user by.
    func login(user: String, password: String, notes: NylaNotes?) async throws -> String {
        // A fresh CSRF token for the new login, sent with the login itself.
        state.update { $0.login = NylaLogin(gateway: gateway) }
        do {
            _ = try await fetch("POST", NylaWire.login, body: .bytes(NylaWire.loginForm(user: user, password: password)),
                                contentType: "application/x-www-form-urlencoded", notes: notes)
        } catch {
            state.update { $0.login = nil }
            throw error
        }
        let accepted = state.update { values -> Bool in
            guard var login = values.login, !login.jar.isEmpty else { return false }
            login.established = true
            values.login = login
            return true
        }
        guard accepted else {
            state.update { $0.login = nil }
            throw HarkError.protocolViolation("\(host) accepted the login but set no cookie; is this a Nyla gateway?")
        }
        let me = try? await json("GET", NylaWire.me, notes: notes)
        let name = me.flatMap(NylaWire.userName) ?? user
        let login: NylaLogin? = state.update { values in
            values.login?.user = name
            values.mandates = nil
            values.instance = nil
            return values.login
        }
        if let login { try loginFile.save(login) }
        return name
    }

    /// Tells the gateway (best effort) and forgets the cookies.
    func logout() async {
        if state.read({ $0.login?.established == true }) {
            _ = try? await fetch("POST", NylaWire.logout, notes: nil)
        }
        forgetLogin()
    }

    /// Drops the login and its file. Returns whether there was one.
    @discardableResult
    func forgetLogin() -> Bool {
        let had = state.update { values -> Bool in
            let had = values.login?.established == true
            values.login = nil
            values.mandates = nil
            values.instance = nil
            return had
        }
        loginFile.delete()
        return had
    }
}
