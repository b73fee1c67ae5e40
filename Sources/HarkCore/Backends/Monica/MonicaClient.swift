import FoundationEssentials
import Glibc

extension RetryPolicy {
    /// Monica's: a rate limit (60 requests a minute) waits what its Retry-After asks; a server
    /// error (5xx) or a network failure waits `firstDelay`, then twice that, and so on. A 500
    /// that carries Monica's error code (40, invalid query) is its considered answer, not an
    /// outage. The session's `tries`, `retry_delay` and `max_wait` change it.
    static let monica = RetryPolicy(tries: 3, firstDelay: 1, growth: 2, maxWait: 60, serverErrors: Set(500...599),
                                    rateLimits: true, transport: .all, server: "Monica")
}

/// Monica's REST API, read-only: every request is a GET with the bearer token and
/// `Accept: application/json` (without it Monica treats the call as a browser's and
/// redirects to its login page). Answers come from the cache while fresh; failures are
/// retried as `RetryPolicy.monica` says, each wait announced through `progress`.
final class MonicaClient: Sendable {
    /// Monica's address with `/api`, without a trailing slash.
    let apiBase: String
    let host: String
    let http: HTTPClient
    let auth: AuthHeaderCache
    let timeouts: HTTPTimeouts
    let tls: TLSOptions
    let policy: RetryPolicy
    let clock: HarkClock
    let cache: MonicaCache

    init(url: String, http: HTTPClient, auth: AuthHeaderCache, timeouts: HTTPTimeouts, tls: TLSOptions,
         policy: RetryPolicy, clock: HarkClock, cacheLifetime: Double) {
        apiBase = Self.apiBase(for: url)
        host = HTTPRequest.displayHost(of: url)
        self.http = http
        self.auth = auth
        self.timeouts = timeouts
        self.tls = tls
        self.policy = policy
        self.clock = clock
        cache = MonicaCache(lifetime: cacheLifetime, now: clock.now)
    }

    /// `https://host` and `https://host/api/` both give `https://host/api`.
    static func apiBase(for url: String) -> String {
        var base = url
        while base.hasSuffix("/") { base.removeLast() }
        return base.hasSuffix("/api") ? base : base + "/api"
    }

    /// The URL of `path` (below /api) with its query, values percent-encoded so that `+`,
    /// `&` and `:` in a search reach Monica as typed.
    func url(_ path: String, _ query: [(String, String)]) -> String {
        let encoded = query.map { "\($0.0)=\(Self.encode($0.1))" }.joined(separator: "&")
        return apiBase + "/" + path + (encoded.isEmpty ? "" : "?" + encoded)
    }

    static func encode(_ value: String) -> String {
        value.percentEncoded(keeping: "-._~")
    }


    /// GETs `path` and returns the JSON. `cached: false` neither reads nor keeps the answer
    /// and `retrying: false` makes one attempt: for `/info`, which checks the token now.
    func get(_ path: String, _ query: [(String, String)] = [], cached: Bool = true, retrying: Bool = true,
             progress: @Sendable (String) async throws -> Void = { _ in }) async throws -> JSON {
        let target = url(path, query)
        if cached, let kept = cache.value(for: target) { return kept }
        // Monica's own policy (it tells the user about each wait), in the client's one loop.
        let json = try await http.retrying(retrying ? policy : .never, host: host,
                                           onWait: { status, _ in try await progress(status) }) { _ -> TryResult<JSON> in
            let response: HTTPResponse
            do {
                response = try await http.fetch(try request(target), maxBytes: 16 << 20, retry: .never)
            } catch let error as HarkError {
                return .transport(error, giveUp: { note in throw Self.noting(error, note) })
            }
            guard response.head.isSuccess else {
                let envelope = try? JSON.parse(response.body)
                return .status(response.status, retryAfter: response.head.header("retry-after"),
                               considered: envelope?["error"]?["error_code"]?.int != nil,
                               giveUp: { note in throw self.failure(response, envelope: envelope, note: note) })
            }
            return .success(try decode(response))
        }
        if cached { cache.store(json, for: target) }
        return json
    }

    func request(_ url: String) throws -> HTTPRequest {
        HTTPRequest(method: "GET", url: url, headers: [("Accept", "application/json")] + (try auth.headers()),
                    timeouts: timeouts, tls: tls, followRedirects: false)
    }

    func decode(_ response: HTTPResponse) throws -> JSON {
        if let json = try? JSON.parse(response.body) { return json }
        let what = ServerMessage.extract(from: response.body, contentType: response.head.header("content-type"))
            .map { "(\($0))" } ?? "(not JSON)"
        throw HarkError.protocolViolation("\(host) did not answer like Monica's API \(what); "
            + "the session's url should be Monica's address, e.g. https://monica.example.com")
    }

    /// The one-line error for a final non-success response, in Monica's words where it gave
    /// some (`{"error":{"message":…,"error_code":N}}`, `message` a list for a 422).
    func failure(_ response: HTTPResponse, envelope: JSON?, note: String?) -> HarkError {
        let status = response.status
        if (300...399).contains(status) { return redirected(to: response.head.header("location")) }
        var message = (Self.monicaMessage(envelope)
            ?? ServerMessage.extract(from: response.body, contentType: response.head.header("content-type")))
            .map { ServerMessage.clip(ServerMessage.sanitize($0)) }
        if status == 401 {
            // Laravel's auth guard answers `{"message":"Unauthenticated."}` (not Monica's
            // envelope): whatever the body, what the user can do is fix the token.
            // A cached `cmd:` secret may have been rotated since: resolve it afresh next time.
            auth.reset()
            return .unauthorized(status: status, host: host, serverMessage: "the API token is wrong or has expired")
        }
        if status == 403 { return .unauthorized(status: status, host: host, serverMessage: message) }
        if let code = envelope?["error"]?["error_code"]?.int { message = (message ?? "error") + " (Monica error \(code))" }
        if let note { message = message.map { $0 + "; " + note } ?? note }
        return .http(status: status, host: host, serverMessage: message)
    }

    /// `error.message` of Monica's envelope: a sentence, or a list of them for a 422.
    static func monicaMessage(_ envelope: JSON?) -> String? {
        guard let message = envelope?["error"]?["message"] else { return nil }
        if let text = message.string, !text.isEmpty { return text }
        let sentences = message.array?.compactMap(\.string).filter { !$0.isEmpty } ?? []
        guard !sentences.isEmpty else { return nil }
        return sentences.map { ".!?".contains($0.last!) ? $0 : $0 + "." }.joined(separator: " ")
    }

    /// Monica answers a request it takes for a browser's with a redirect to its login page;
    /// a proxy in front may redirect to https or to a sign-on page.
    func redirected(to location: String?) -> HarkError {
        guard let location, !location.isEmpty else {
            return .protocolViolation("\(host) redirected without saying where; check the session's url")
        }
        let shown = Workspace.displayURL(location)
        if location.lowercased().contains("/login") {
            return .protocolViolation("\(host) redirected to its login page (\(shown)) instead of answering the API; "
                + "check that the session's url is Monica's address and that nothing in front of it asks for a login")
        }
        return .protocolViolation("\(host) redirected to \(shown); set the session's url to that address")
    }

    static func noting(_ error: HarkError, _ note: String?) -> HarkError {
        guard let note else { return error }
        if case .network(let host, let reason) = error { return .network(host: host, reason: reason + "; " + note) }
        return error
    }
}
