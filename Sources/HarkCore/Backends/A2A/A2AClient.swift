import FoundationEssentials
import Glibc

/// The HTTP side of an A2A session: the agent card (fetched from the well-known path or the
/// older one, cached), the endpoint and credentials it implies, and JSON-RPC requests to it.
final class A2AClient: @unchecked Sendable {
    /// Where and how to send: the card's chosen JSON-RPC interface with the credentials.
    struct Endpoint: Sendable {
        var card: A2ACard
        var url: String
        var version: A2AWire.Version
        var tenant: String?
        var headers: [(name: String, value: String)]
    }

    let session: SessionConfig
    let http: HTTPClient
    let auth: A2AAuth
    let state: A2ASessionState
    let clock: HarkClock
    let timeouts: HTTPTimeouts
    /// The session's ca, pin and insecure: how the agent's certificate is checked.
    let tls: TLSOptions
    /// How long a card is trusted when its response does not say (Cache-Control max-age).
    static let cardLifetime: Double = 300
    private let lock = Lock()
    private var nextID = 1

    init(session: SessionConfig, environment: BackendEnvironment) throws {
        self.session = session
        http = environment.http
        clock = environment.clock
        timeouts = try session.timeouts()
        tls = try session.tls()
        auth = A2AAuth(session: session.name, auth: try session.auth(),
                       apiKey: session["api_key"].map(SecretReference.init), environment: environment.environment)
        state = A2ASessionState.shared(paths: environment.paths, session: session.name)
    }

    var url: String { session.url ?? "" }
    var host: String { HTTPRequest.displayHost(of: url) }

    // MARK: The card

    /// The agent card: from the cache while it is fresh, else fetched (the well-known path,
    /// then the older one when the first is not there).
    func card(refresh: Bool = false) async throws -> A2ACard {
        let candidates = A2ACard.cardURLs(for: url)
        let now = clock.now().timeIntervalSince1970
        if !refresh, let cached = state.cachedCard(url: url, now: now), let card = try? A2ACard(json: cached) {
            return card
        }
        var lastStatus = 404
        for candidate in candidates {
            var request = HTTPRequest(url: candidate, headers: [("Accept", "application/json")], timeouts: timeouts)
            request.tls = tls
            let response = try await http.fetch(request, maxBytes: 4 << 20)
            guard response.head.isSuccess else {
                lastStatus = response.status
                if response.status == 404 { continue }
                throw ServerMessage.error(status: response.status, host: host, body: response.body,
                                          contentType: response.head.header("content-type"))
            }
            let json: JSON
            do { json = try response.json() } catch {
                throw HarkError.protocolViolation("the agent card at \(candidate.prefix(120)) is not JSON")
            }
            let card = try A2ACard(json: json)
            state.storeCard(json, url: url, fetched: now, maxAge: Self.maxAge(response.head.header("cache-control")))
            return card
        }
        throw HarkError.http(status: lastStatus, host: host, serverMessage: candidates.count > 1
            ? "no agent card at \(A2ACard.wellKnownPath) or \(A2ACard.olderWellKnownPath); check the session's url"
            : "no agent card there; check the session's url")
    }

    /// `max-age=N` from a Cache-Control header; `no-store`/`no-cache` keep the card one request.
    static func maxAge(_ header: String?) -> Double {
        guard let header = header?.lowercased() else { return cardLifetime }
        for directive in header.split(separator: ",").map({ $0.trimmingSpaces }) {
            if directive == "no-store" || directive == "no-cache" { return 0 }
            if directive.hasPrefix("max-age="), let seconds = Double(directive.dropFirst("max-age=".count)) {
                return max(0, seconds)
            }
        }
        return cardLifetime
    }

    func endpoint(refresh: Bool = false) async throws -> Endpoint {
        let card = try await card(refresh: refresh)
        let (interface, version) = try card.endpoint()
        let credentials = try auth.credentials(for: card)
        var url = interface.url
        if !credentials.query.isEmpty {
            url += (url.contains("?") ? "&" : "?") + credentials.query.map {
                $0.name.percentEncoded(keeping: "-._~") + "=" + $0.value.percentEncoded(keeping: "-._~")
            }.joined(separator: "&")
        }
        return Endpoint(card: card, url: url, version: version, tenant: interface.tenant, headers: credentials.headers)
    }

    // MARK: Requests

    func request(_ method: A2AWire.Method, params: JSON, to endpoint: Endpoint,
                 timeouts: HTTPTimeouts? = nil) -> HTTPRequest {
        let id = lock.withLock { () -> Int in
            defer { nextID += 1 }
            return nextID
        }
        let streams = method == .stream || method == .subscribe
        var request = HTTPRequest.json(url: endpoint.url, body: A2AWire.request(method, endpoint.version, id: id, params: params),
                                       headers: [("Accept", streams ? "text/event-stream" : "application/json"),
                                                 ("A2A-Version", endpoint.version.rawValue)] + endpoint.headers,
                                       timeouts: timeouts ?? self.timeouts)
        request.tls = tls
        return request
    }

    /// A call that answers with one JSON-RPC response.
    func call(_ method: A2AWire.Method, params: JSON, to endpoint: Endpoint,
              timeouts: HTTPTimeouts? = nil) async throws -> A2AWire.Event {
        let request = self.request(method, params: params, to: endpoint, timeouts: timeouts)
        let response = try await http.fetch(request, retry: .never)
        guard response.head.isSuccess else { throw failure(response.head, body: response.body) }
        let json: JSON
        do { json = try response.json() } catch {
            throw HarkError.protocolViolation("\(host) answered \(method.name(endpoint.version)) with something that is not JSON")
        }
        return try A2AWire.event(fromResponse: json)
    }

    /// A non-2xx answer as the error to show; the card is fetched again next time when the
    /// endpoint seems to have moved, and secrets read again after a refusal.
    func failure(_ head: HTTPResponseHead, body: [UInt8]) -> HarkError {
        if [404, 405, 410].contains(head.status) { state.forgetCard() }
        if head.status == 401 || head.status == 403 { auth.reset() }
        return ServerMessage.error(status: head.status, host: host, body: body, contentType: head.header("content-type"))
    }
}
