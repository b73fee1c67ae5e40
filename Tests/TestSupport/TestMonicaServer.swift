import Foundation
import HarkCore

/// A loopback Monica 4 API (routes/api.php, app/Http/Controllers/Api): bearer tokens, the
/// `{"data","links","meta"}` envelope with Laravel's paging, `?with=contactfields`, search
/// with `field:value`, the error envelope `{"error":{"message","error_code"}}`, a redirect to
/// the login page for an unauthenticated request that does not ask for JSON, and the rate
/// limiter's headers. Faults a test wants (429 with Retry-After, 5xx, a 422) are queued
/// with `inject` and served to the next API requests, one each.
public final class TestMonicaServer: @unchecked Sendable {
    public enum Fault: Sendable {
        /// 429, Monica's error 34, with `Retry-After` when given.
        case rateLimited(retryAfter: String?)
        /// A bare 5xx, as a proxy or a crashed PHP worker sends it.
        case serverError(Int)
        /// 500 with Monica's error 40 (its answer to a query it cannot run).
        case invalidQuery
        /// 422 with Monica's error 32 and a list of messages.
        case validation([String])
    }

    public static let token = "monica-t0ken"
    public let http: TestHTTPServer
    /// Monica's address, as a user would configure it (hark adds `/api`).
    public var baseURL: String { http.baseURL }
    private let faults = FaultQueue()
    private let views = ViewCounter()

    /// The requests that reached the API (all of them, faults included).
    public var apiRequests: [TestRequest] { http.requests.filter { $0.path.hasPrefix("/api") } }

    public init(data: TestMonicaData = .standard) throws {
        let (queue, counter) = (faults, views)
        http = try TestHTTPServer { request, response in
            Self.handle(request, response, data: data, faults: queue, views: counter)
        }
    }

    public func inject(_ list: [Fault]) { faults.append(list) }

    /// How often each contact's card was opened (`number_of_views` on the server).
    public func views(of id: Int) -> Int { views.of(id) }

    final class ViewCounter: @unchecked Sendable {
        private let lock = NSLock()
        private var counts: [Int: Int] = [:]
        func count(_ id: Int) { lock.withLock { counts[id, default: 0] += 1 } }
        func of(_ id: Int) -> Int { lock.withLock { counts[id] ?? 0 } }
    }

    final class FaultQueue: @unchecked Sendable {
        private let lock = NSLock()
        private var pending: [Fault] = []
        func append(_ list: [Fault]) { lock.withLock { pending += list } }
        func next() -> Fault? { lock.withLock { pending.isEmpty ? nil : pending.removeFirst() } }
    }

    static func error(_ response: ResponseWriter, status: Int, code: Int, message: JSON, headers: [(String, String)] = []) {
        response.send(status: status, json: JSON.object(["error": ["message": message, "error_code": JSON(code)]]).encoded(),
                      headers: headers)
    }

    static func handle(_ request: TestRequest, _ response: ResponseWriter, data: TestMonicaData, faults: FaultQueue,
                       views: ViewCounter) {
        let host = "http://" + (request.header("host") ?? "127.0.0.1")
        guard request.path.hasPrefix("/api") else {
            response.send(status: 200, headers: [("Content-Type", "text/html; charset=UTF-8")],
                          text: "<html><head><title>Monica</title></head><body>Sign in</body></html>")
            return
        }
        let wantsJSON = request.header("accept")?.contains("application/json") == true
        guard request.header("authorization") == "Bearer " + token else {
            if wantsJSON {
                // Not Monica's error envelope: Laravel's own answer to a failed auth:api guard.
                // monicahq/monica 4.x, tests/Api/Authentication/ApiAuthenticateTest.php:
                //     $response = $this->json('GET', '/api/contacts');
                //     $response->assertStatus(401);
                //     $response->assertJsonFragment(['message' => 'Unauthenticated.']);
                response.send(status: 401, json: #"{"message":"Unauthenticated."}"#)
            } else {
                // Laravel's answer to a browser: off to the login page.
                let target = host + "/login"
                response.send(status: 302, headers: [("Location", target), ("Content-Type", "text/html; charset=UTF-8")],
                              text: "<!DOCTYPE html><html><head><meta charset=\"UTF-8\" /><meta http-equiv=\"refresh\" "
                                  + "content=\"0;url='\(target)'\" /><title>Redirecting to \(target)</title></head>"
                                  + "<body>Redirecting to <a href=\"\(target)\">\(target)</a>.</body></html>")
            }
            return
        }
        let limits = [("X-RateLimit-Limit", "60"), ("X-RateLimit-Remaining", "59")]
        if let fault = faults.next() {
            switch fault {
            case .rateLimited(let retryAfter):
                error(response, status: 429, code: 34, message: "Too many attempts, please slow down the request.",
                      headers: [("X-RateLimit-Limit", "60"), ("X-RateLimit-Remaining", "0")]
                          + (retryAfter.map { [("Retry-After", $0)] } ?? []))
            case .serverError(let status):
                response.send(status: status, headers: [("Content-Type", "text/html")],
                              text: "<html><head><title>\(status) Server Error</title></head><body></body></html>")
            case .invalidQuery:
                error(response, status: 500, code: 40, message: "Invalid query.")
            case .validation(let messages):
                error(response, status: 422, code: 32, message: .array(messages.map(JSON.string)))
            }
            return
        }
        guard request.method == "GET" || request.method == "HEAD" else {
            response.send(status: 405, json: #"{"message":"The \#(request.method) method is not supported for this route. Supported methods: GET, HEAD."}"#)
            return
        }
        let query = request.query
        let limit = Int(query["limit"] ?? "") ?? 15
        guard limit <= 100 else {
            error(response, status: 400, code: 30, message: "The limit parameter is too big.")
            return
        }
        let page = max(1, Int(query["page"] ?? "") ?? 1)
        let parts = request.path.split(separator: "/").map(String.init).dropFirst()  // after "api"
        let notFound = { error(response, status: 404, code: 31, message: "The resource has not been found.") }
        func ok(_ json: JSON) { response.send(json: json.encoded(), headers: limits) }
        func paged(_ items: [JSON], extra: [String: JSON] = [:]) {
            ok(paginate(items, page: page, limit: limit, url: host + request.path, extra: extra))
        }
        func sorted<T>(_ items: [T], created: (T) -> String) -> [T] {
            let descending = query["sort"] == "-created_at"
            return items.sorted { descending ? created($0) > created($1) : created($0) < created($1) }
        }
        switch Array(parts) {
        case []:
            ok(["success": ["message": "Welcome to Monica"]])
        case ["me"]:
            ok(["data": ["id": 1, "object": "user", "first_name": "Ann", "last_name": "Admin", "email": "ann@example.com",
                         "me_contact": nil, "timezone": "UTC", "locale": "en", "is_policy_compliant": true,
                         "account": ["id": 1], "created_at": "2024-01-01T00:00:00Z", "updated_at": "2024-01-01T00:00:00Z"]])
        case ["contacts"]:
            var contacts = data.contacts
            var extra: [String: JSON] = [:]
            var byName = false
            if let needle = query["query"], !needle.isEmpty {
                contacts = contacts.filter { matches($0, needle, data: data) }
                extra["query"] = .string(needle)
                byName = fieldSearch(needle) == nil
            }
            paged(sorted(contacts, created: \.created).map { data.contactJSON($0, withFields: false, baseURL: host, searched: byName) },
                  extra: extra)
        case let path where path.count >= 2 && path[0] == "contacts":
            guard let id = Int(path[1]), let contact = data.contact(id) else { return notFound() }
            switch path.count == 2 ? "" : path[2] {
            case "":
                // Opening a card counts a view. monicahq/monica 4.x, ApiContactController::show:
                //     UpdateLastConsultedDate::dispatch($contact);
                // and app/Jobs/UpdateLastConsultedDate.php:
                //     $this->contact->last_consulted_at = now();
                //     $this->contact->number_of_views = $this->contact->number_of_views + 1;
                views.count(id)
                ok(["data": data.contactJSON(contact, withFields: query["with"] == "contactfields", baseURL: host)])
            case "notes":
                paged(sorted(data.notes.filter { $0.contact == id }, created: \.created).map(data.noteJSON))
            case "activities":
                paged(sorted(data.activities.filter { $0.contact == id }, created: \.date).map { data.activityJSON($0, baseURL: host) })
            case "tasks":
                paged(data.tasks.filter { $0.contact == id }.map(data.taskJSON))
            case "gifts":
                paged(data.gifts.filter { $0.contact == id }.map(data.giftJSON))
            default:
                notFound()
            }
        case ["tags"]:
            paged(data.tags.map { data.tagJSON($0.id) })
        case let path where path.count == 3 && path[0] == "tags" && path[2] == "contacts":
            guard let id = Int(path[1]), data.tags.contains(where: { $0.id == id }) else { return notFound() }
            paged(data.contacts.filter { $0.tags.contains(id) }.map { data.contactJSON($0, withFields: false, baseURL: host) })
        default:
            response.send(status: 404, json: #"{"message":""}"#)
        }
    }

    /// Monica's search (app/Helpers/SearchHelper.php): `field:value` finds contacts with a
    /// contact field of that type (its name, any case) whose content starts with the value;
    /// anything else is looked for in the names, nickname, job and company.
    /// `field:value` as monicahq/monica 4.x app/Helpers/SearchHelper.php splits it:
    ///     if (preg_match('/(.{1,})[:](.{1,})/', $needle, $matches)) {
    /// (greedy, so the last colon splits).
    static func fieldSearch(_ needle: String) -> (field: Substring, value: Substring)? {
        guard let colon = needle.lastIndex(of: ":"), colon != needle.startIndex, needle.index(after: colon) != needle.endIndex
        else { return nil }
        return (needle[..<colon], needle[needle.index(after: colon)...])
    }

    /// A field search: contacts with a field of that type starting with the value (LIKE
    /// "$search_term%"). A name search: app/Traits/Searchable.php's buildQuery, each word of
    /// the needle `LIKE %word%` against $searchable_columns (first_name, middle_name,
    /// last_name, nickname, description, job), all ORed.
    static func matches(_ contact: TestMonicaData.Contact, _ needle: String, data: TestMonicaData) -> Bool {
        let lowered = needle.lowercased()
        if let (field, value) = fieldSearch(lowered) {
            return contact.fields.contains { $0.0.lowercased() == field && $0.1.lowercased().hasPrefix(value) }
        }
        let columns = [contact.first, contact.last, contact.nickname, contact.description, contact.job].compactMap { $0?.lowercased() }
        return lowered.split(separator: " ", omittingEmptySubsequences: false)
            .contains { word in columns.contains { $0.contains(word) } }
    }

    /// Laravel's LengthAwarePaginator as a resource collection renders it.
    static func paginate(_ items: [JSON], page: Int, limit: Int, url: String, extra: [String: JSON]) -> JSON {
        let lastPage = max(1, (items.count + limit - 1) / limit)
        let start = min(items.count, (page - 1) * limit)
        let slice = Array(items[start..<min(items.count, start + limit)])
        var meta: [String: JSON] = [
            "current_page": JSON(page), "from": slice.isEmpty ? nil : JSON(start + 1), "last_page": JSON(lastPage),
            "path": .string(url), "per_page": JSON(limit), "to": slice.isEmpty ? nil : JSON(start + slice.count),
            "total": JSON(items.count),
        ]
        for (key, value) in extra { meta[key] = value }
        return ["data": .array(slice),
                "links": ["first": .string(url + "?page=1"), "last": .string(url + "?page=\(lastPage)"),
                          "prev": page > 1 ? .string(url + "?page=\(page - 1)") : nil,
                          "next": page < lastPage ? .string(url + "?page=\(page + 1)") : nil],
                "meta": .object(meta)]
    }
}
