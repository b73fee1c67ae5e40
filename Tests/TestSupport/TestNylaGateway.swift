import Foundation
import HarkCore

/// A loopback Nyla gateway that behaves like the real one as the seed describes it: local
/// form login setting httpOnly cookies (one scoped to a refresh path), bearer tokens, a CSRF
/// check on every mutating request (format and, for a cookie login, the login's own token),
/// mandate and instance headers checked on feature requests, FastAPI `detail` errors (strings
/// and `{loc,msg,type}` lists), 401 for an ended session, 429 with Retry-After on demand, SSE
/// chat streams over POST, stop, workflows and chatbot threads, folders and files (multipart
/// upload, download), pending edits whose accept/reject change the files, and a paginated
/// prompt library. Tests read back what it received and how its state changed.
public final class TestNylaGateway: @unchecked Sendable {
    /// One step of a scripted reply.
    public enum Step: Sendable {
        /// A text chunk; the chunks make the stored reply.
        case chunk(String)
        /// Any event, written as `data: JSON` (the type inside).
        case event(JSON)
        /// An event with its type in the SSE `event:` field.
        case typed(String, JSON)
        /// Bytes exactly as given.
        case raw(String)
        case wait(Gate)
        /// Runs this on the server's thread once the steps before it are written: a test's probe
        /// of how far the gateway got.
        case probe(@Sendable () -> Void)
        /// The agent proposes new content for a file (no event; /edits shows it).
        case proposeEdit(fileID: String, content: String, description: String)
        /// The agent writes a file: stored, and announced with `fileCreated`.
        case createFile(name: String, content: String)
        case complete
        case stopped
        case error(String)
        /// Drop the connection here.
        case close
        /// As the first step: answer 200 with this JSON instead of an event stream, as a
        /// gateway (or a proxy before it) may for a request it does not stream.
        case json(JSON)
    }

    public struct StreamRequest: Sendable {
        public var feature: String
        public var instance: String
        public var workflowID: String
        public var prompt: String
        public var body: JSON
    }

    public typealias Script = @Sendable (StreamRequest) -> [Step]

    public let http: TestHTTPServer
    public var url: String { http.baseURL }
    let world = World()

    /// `awkward` cuts every write into 1–7 byte HTTP chunks with CRLF line ends, splitting
    /// UTF-8 characters and CR from LF.
    public init(awkward: Bool = false, script: Script? = nil) throws {
        let world = self.world
        let script = script ?? TestNylaGateway.echo
        http = try TestHTTPServer { request, response in
            TestNylaGateway.handle(request, response, world: world, awkward: awkward, script: script)
        }
    }

    /// The default reply: a status line, then "Echo: PROMPT" in two chunks.
    public static let echo: Script = { request in
        [.event(["type": "status", "message": "Thinking"]), .chunk("Echo: "), .chunk(request.prompt), .complete]
    }

    // MARK: What tests control and read

    /// Every cookie login ends (the next request with it gets 401).
    public func expireSessions() { world.locked { $0.sessions = [:] } }

    /// The next `count` authenticated requests get 429 with this Retry-After.
    public func throttle(next count: Int, retryAfter: String?) {
        world.locked {
            $0.throttled = count
            $0.retryAfter = retryAfter
        }
    }

    public var stops: [(instance: String, workflow: String)] { world.locked { $0.stops } }
    /// Opens when a reply stream finds its client gone (the connection closed) and stops.
    public var clientLeft: Gate { world.clientLeft }
    public var streamBodies: [JSON] { world.locked { $0.streamBodies } }
    /// Requests that carried the refresh cookie outside its path (a client bug).
    public var misplacedRefreshCookies: Int { world.locked { $0.misplacedRefreshCookies } }
    public var activeSessions: Int { world.locked { $0.sessions.count } }

    public func workflow(_ id: String) -> (name: String, messages: [(role: String, text: String)])? {
        world.locked { world in
            world.workflows[id].map { ($0.name, $0.messages.map { ($0.role, $0.text) }) }
        }
    }

    public func workflowIDs(instance: String) -> [String] {
        world.locked { $0.workflows.values.filter { $0.instance == instance }.sorted { $0.order < $1.order }.map(\.id) }
    }

    @discardableResult
    public func addWorkflow(instance: String, name: String, messages: [(role: String, text: String)]) -> String {
        world.locked { world in
            let id = world.nextID(instance.hasPrefix("cb") ? "th" : "wf")
            var workflow = World.Workflow(id: id, instance: instance, name: name, order: world.tick(), updatedAt: world.now)
            for message in messages {
                workflow.messages.append(World.Message(id: world.nextID("m"), role: message.role, text: message.text,
                                                       createdAt: world.now))
            }
            world.workflows[id] = workflow
            return id
        }
    }

    public func fileContent(_ id: String) -> String? {
        world.locked { $0.files[id].map { String(decoding: $0.bytes, as: UTF8.self) } }
    }

    public func fileIDs(named name: String) -> [String] {
        world.locked { $0.files.values.filter { $0.name == name }.map(\.id).sorted() }
    }

    public var editStatuses: [String: String] { world.locked { $0.edits.mapValues(\.status) } }

    @discardableResult
    public func addFile(instance: String = "ws1", name: String, content: [UInt8], mimeType: String, folder: String? = nil) -> String {
        world.locked { world in
            let id = world.nextID("file")
            world.files[id] = World.File(id: id, instance: instance, name: name, mimeType: mimeType, bytes: content,
                                         folder: folder, createdAt: world.now)
            return id
        }
    }

    @discardableResult
    public func addEdit(fileID: String, content: String, description: String) -> String {
        world.locked { $0.propose(fileID: fileID, content: content, description: description) }
    }

    /// The fixed date every gateway timestamp counts from, one minute per change.
    public static let epoch = Date(timeIntervalSince1970: 1_772_528_400)  // 2026-03-03T09:00:00Z

    public static func date(minute: Int) -> Date { epoch.addingTimeInterval(Double(minute) * 60) }
}

extension TestNylaGateway {
    static func json(_ response: ResponseWriter, status: Int = 200, _ value: JSON, headers: [(String, String)] = []) {
        response.send(status: status, json: value.encoded(), headers: headers)
    }

    static func detail(_ response: ResponseWriter, _ status: Int, _ text: String, headers: [(String, String)] = []) {
        json(response, status: status, ["detail": .string(text)], headers: headers)
    }

    static func handle(_ request: TestRequest, _ response: ResponseWriter, world: World, awkward: Bool, script: Script) {
        let path = request.path
        guard path.hasPrefix("/api/") else { return detail(response, 404, "Not Found") }
        let mutating = !["GET", "HEAD"].contains(request.method)
        let csrf = request.header("x-csrf-token")
        let csrfWellFormed = csrf.map { $0.count == 16 && $0.allSatisfy { "0123456789abcdef".contains($0) } } ?? false

        if path == "/api/local/login" && request.method == "POST" {
            guard csrfWellFormed else { return detail(response, 403, "CSRF token missing or invalid") }
            let form = Form.parse(request.text)
            guard let user = form["username"], let password = form["password"],
                  let account = World.accounts[user], account.password == password else {
                return detail(response, 401, "Invalid username or password")
            }
            let session = world.locked { $0.login(user: user, csrf: csrf!) }
            return json(response, ["type": "local_auth_success", "message": "Login successful"], headers: [
                ("Set-Cookie", "nyla_session=\(session); HttpOnly; Path=/; SameSite=Lax"),
                ("Set-Cookie", "nyla_refresh=r-\(session); HttpOnly; Path=/api/local/refresh; Max-Age=604800"),
            ])
        }

        let cookies = Form.cookies(request.header("cookie") ?? "")
        let identity: (user: String, csrf: String?)? = world.locked { world in
            if cookies["nyla_refresh"] != nil, !path.hasPrefix("/api/local/refresh") { world.misplacedRefreshCookies += 1 }
            if let bearer = request.header("authorization"), bearer.hasPrefix("Bearer "),
               let user = World.tokens[String(bearer.dropFirst(7))] {
                return (user, nil)
            }
            if let session = cookies["nyla_session"], let known = world.sessions[session] { return (known.user, known.csrf) }
            return nil
        }
        guard let identity else { return detail(response, 401, "Not authenticated") }
        if let retryAfter = world.locked({ world -> String?? in
            guard world.throttled > 0 else { return nil }
            world.throttled -= 1
            return .some(world.retryAfter)
        }) {
            return detail(response, 429, "Too many requests", headers: retryAfter.map { [("Retry-After", $0)] } ?? [])
        }
        if mutating {
            guard csrfWellFormed, identity.csrf == nil || identity.csrf == csrf else {
                return detail(response, 403, "CSRF token missing or invalid")
            }
        }

        switch (request.method, path) {
        case ("GET", "/api/local/me"):
            let account = World.accounts[identity.user]!
            return json(response, ["id": .string("u-" + identity.user), "username": .string(identity.user),
                                   "fullName": .string(account.fullName)])
        case ("POST", "/api/local/logout"):
            world.locked { world in world.sessions = world.sessions.filter { $0.value.user != identity.user } }
            return json(response, ["message": "Logged out"], headers: [("Set-Cookie", "nyla_session=; Max-Age=0; Path=/")])
        case ("GET", "/api/features/my"):
            let visible = World.mandatesOf[identity.user] ?? []
            return json(response, .array((World.mandates.array ?? []).filter { visible.contains($0["id"]?.string ?? "") }))
        case ("GET", "/api/prompts"):
            return prompts(request, response)
        default:
            break
        }
        let parts = path.split(separator: "/").map(String.init)
        guard parts.count >= 4, ["workspace", "chatbot"].contains(parts[1]) else { return detail(response, 404, "Not Found") }
        guard let instance = World.instances[parts[2]], instance.feature == parts[1] else {
            return detail(response, 404, "Instance not found")
        }
        guard request.header("x-instance-id") == parts[2], request.header("x-mandate-id") == instance.mandate else {
            return detail(response, 403, "X-Mandate-Id and X-Instance-Id must name this instance")
        }
        guard World.mandatesOf[identity.user]?.contains(instance.mandate) == true else {
            return detail(response, 403, "No access to this instance")
        }
        routeFeature(request, response, world: world, feature: parts[1], instance: parts[2], rest: Array(parts[3...]),
                     awkward: awkward, script: script)
    }

    /// The prompt library, paginated; the gateway serves at most two per page.
    static func prompts(_ request: TestRequest, _ response: ResponseWriter) {
        paged(request, response, World.prompts, largestPage: 2)
    }

    /// A list as the seed's gateway sends every list: a PaginatedResponse `{items, total, page,
    /// pageSize, totalPages}` for `page` (from 1) and `pageSize` (default 25, the seed's
    /// PaginationParams), serving at most `largestPage` items however many are asked for (a
    /// gateway's own limit; hark must follow totalPages). Recorded in docs/nyla-protocol.md.
    static func paged(_ request: TestRequest, _ response: ResponseWriter, _ all: [JSON], largestPage: Int = 25) {
        let page = max(1, Int(request.query["page"] ?? "1") ?? 1)
        let size = min(largestPage, max(1, Int(request.query["pageSize"] ?? "25") ?? 25))
        let items = Array(all.dropFirst((page - 1) * size).prefix(size))
        json(response, ["items": .array(items), "total": .number(Double(all.count)), "page": .number(Double(page)),
                        "pageSize": .number(Double(size)), "totalPages": .number(Double(max(1, (all.count + size - 1) / size)))])
    }
}

/// `application/x-www-form-urlencoded` and `Cookie` header parsing.
enum Form {
    static func parse(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                $0.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0)
            }
            fields[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        return fields
    }

    static func cookies(_ header: String) -> [String: String] {
        var cookies: [String: String] = [:]
        for pair in header.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2 { cookies[parts[0]] = parts[1] }
        }
        return cookies
    }
}
