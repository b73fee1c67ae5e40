import FoundationEssentials
import Glibc

/// HTTP with one Jenkins server: Basic auth sent up front, the session cookie kept, a crumb
/// fetched when Jenkins asks for one (password logins; API tokens are exempt), and error
/// statuses turned into one-line errors. Callers get only successful responses, except for
/// the statuses they say they handle themselves.
final class JenkinsClient: @unchecked Sendable {
    enum CrumbMode: String { case auto, on, off }

    let root: String
    let http: HTTPClient
    let auth: AuthHeaderCache
    let timeouts: HTTPTimeouts
    let tls: TLSOptions
    let crumbMode: CrumbMode

    private let lock = Lock()
    private var cookies: [(name: String, value: String)] = []
    private var crumb: (field: String, value: String)?
    private var serverVersion: String?

    init(root: String, http: HTTPClient, auth: AuthHeaderCache, timeouts: HTTPTimeouts, tls: TLSOptions, crumbMode: CrumbMode) {
        var trimmed = root
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        self.root = trimmed
        self.http = http
        self.auth = auth
        self.timeouts = timeouts
        self.tls = tls
        self.crumbMode = crumbMode
    }

    var host: String { HTTPRequest.displayHost(of: root) }

    /// The version from the `X-Jenkins` header of the last answer.
    var version: String? { lock.withLock { serverVersion } }

    // MARK: Requests

    /// A GET; `handling` lists the error statuses the caller deals with (404 for "no such job").
    func get(_ path: String, handling: Set<Int> = []) async throws -> HTTPResponse {
        let response = try await send(request("GET", path))
        try check(response, handling: handling)
        return response
    }

    func getJSON(_ path: String, handling: Set<Int> = []) async throws -> (status: Int, json: JSON) {
        let response = try await get(path, handling: handling)
        guard response.head.isSuccess else { return (response.status, .null) }
        return (response.status, try response.json())
    }

    /// A POST of form fields (build parameters go in the body, where they stay out of access
    /// logs). A redirect is an answer here, not something to follow: Jenkins answers a stop
    /// with one, and a trigger's queue item is in the Location header.
    func post(_ path: String, form: [(String, String)] = [], handling: Set<Int> = []) async throws -> HTTPResponse {
        if crumbMode == .on, lock.withLock({ crumb == nil }) { try await fetchCrumb() }
        var response = try await send(request("POST", path, form: form))
        if response.status == 403, crumbMode != .off, Self.isCrumbRefusal(response) {
            try await fetchCrumb()
            response = try await send(request("POST", path, form: form))
        }
        try check(response, handling: handling)
        return response
    }

    /// A GET whose body is read as it arrives (an artifact may be large). Error statuses the
    /// caller does not handle are read (bounded) and thrown.
    func open(_ path: String, handling: Set<Int> = []) async throws -> HTTPOpenResponse {
        var response = try await http.open(try request("GET", path, accept: "*/*"))
        let head = response.head
        remember(head)
        if (200..<400).contains(head.status) || handling.contains(head.status) { return response }
        defer { response.stream.cancel() }
        let bytes = try await response.body.collect(upTo: 65536).bytes
        try check(HTTPResponse(head: head, body: bytes), handling: handling)
        throw failure(HTTPResponse(head: head, body: bytes))
    }

    private func request(_ method: String, _ path: String, form: [(String, String)] = [], accept: String? = nil) throws -> HTTPRequest {
        var headers = try auth.headers()
        headers.append(("Accept", accept ?? (method == "GET" ? "application/json, text/plain" : "*/*")))
        let (jar, token) = lock.withLock { (cookies, crumb) }
        if !jar.isEmpty { headers.append(("Cookie", jar.map { "\($0.name)=\($0.value)" }.joined(separator: "; "))) }
        var body = HTTPRequest.Body.none
        if method == "POST" {
            if let token { headers.append((token.field, token.value)) }
            if !form.isEmpty {
                headers.append(("Content-Type", "application/x-www-form-urlencoded"))
                body = .bytes(Array(Self.formEncode(form).utf8))
            }
        }
        return HTTPRequest(method: method, url: root + path, headers: headers, body: body, timeouts: timeouts,
                           tls: tls, followRedirects: method == "GET")
    }

    private func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let response = try await http.fetch(request)
        remember(response.head)
        return response
    }

    /// Keeps the session cookie (a crumb is only valid with the session it was issued to)
    /// and the server's version.
    private func remember(_ head: HTTPResponseHead) {
        lock.withLock {
            if let version = head.header("x-jenkins") { serverVersion = version }
            for line in (head.header("set-cookie") ?? "").split(separator: "\n") {
                guard let pair = line.split(separator: ";").first, let equals = pair.firstIndex(of: "=") else { continue }
                let name = pair[..<equals].trimmingSpaces
                let value = pair[pair.index(after: equals)...].trimmingSpaces
                cookies.removeAll { $0.name == name }
                cookies.append((name, value))
            }
        }
    }

    // MARK: Crumbs

    static func isCrumbRefusal(_ response: HTTPResponse) -> Bool {
        response.text.localizedCaseInsensitiveContains("No valid crumb")
    }

    private func fetchCrumb() async throws {
        let response = try await send(request("GET", JenkinsAPI.crumbIssuer))
        if response.status == 404 {
            throw HarkError.backend("\(host) asked for a crumb but has no crumb issuer; set crumb = off for this session")
        }
        try check(response, handling: [])
        let json = try response.json()
        guard let field = json["crumbRequestField"]?.string, let value = json["crumb"]?.string else {
            throw HarkError.protocolViolation("\(host) sent a crumb without crumbRequestField and crumb")
        }
        lock.withLock { crumb = (field, value) }
    }

    // MARK: Errors

    /// Throws the one-line error for a status nobody handles: 2xx and 3xx pass.
    private func check(_ response: HTTPResponse, handling: Set<Int>) throws {
        if (200..<400).contains(response.status) || handling.contains(response.status) { return }
        if response.status == 401 { auth.reset() }
        throw failure(response)
    }

    func failure(_ response: HTTPResponse) -> HarkError {
        let message = Self.message(response)
        if response.status == 403, let permission = response.head.header("x-required-permission") {
            return Self.missingPermission(permission, user: response.head.header("x-you-are-authenticated-as"), host: host)
        }
        switch response.status {
        case 401, 403: return .unauthorized(status: response.status, host: host, serverMessage: message)
        default: return .http(status: response.status, host: host, serverMessage: message)
        }
    }

    /// A 403 from an AccessDeniedException3 names the permission that was missing in
    /// `X-Required-Permission` (its id, `hudson.model.Item.Build`), and the user in
    /// `X-You-Are-Authenticated-As`: the credentials were right, the rights are not.
    static func missingPermission(_ id: String, user: String?, host: String) -> HarkError {
        let parts = id.split(separator: ".")
        // The groups as Jenkins' security matrix titles them.
        let groups = ["Item": "Job", "Hudson": "Overall", "Jenkins": "Overall", "Computer": "Agent", "Run": "Run", "View": "View",
                      "SCM": "SCM", "Cloud": "Cloud"]
        var name = id
        if parts.count >= 2, let group = groups[String(parts[parts.count - 2])] { name = group + "/" + parts[parts.count - 1] }
        return .authentication("\(user ?? "you") may not do this on \(host): the \(name) permission is missing "
            + "(\(id)); ask a Jenkins admin to grant it")
    }

    /// The server's reason, without the "Error 403 " that Jetty's error pages put first.
    static func message(_ response: HTTPResponse) -> String? {
        guard var text = ServerMessage.extract(from: response.body, contentType: response.head.header("content-type")) else {
            return nil
        }
        let prefix = "Error \(response.status) "
        if text.hasPrefix(prefix) { text.removeFirst(prefix.count) }
        return ServerMessage.sanitize(text)
    }

    static func formEncode(_ fields: [(String, String)]) -> String {
        func encode(_ text: String) -> String {
            text.percentEncoded(keeping: "-._*").replacingOccurrences(of: "%20", with: "+")
        }
        return fields.map { encode($0.0) + "=" + encode($0.1) }.joined(separator: "&")
    }
}
