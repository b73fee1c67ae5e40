import FoundationEssentials
import Glibc

/// A Monica CRM, read-only. Typed text searches the contacts; commands show a contact's card,
/// notes, activities, tasks and gifts, and the tags. Every answer is a reply (recorded in the
/// history, so `/search` finds a contact later without the network). Only GET requests.
public final class MonicaBackend: Backend, BackendKind {
    public static let name = "monica"
    public static let summary = "a Monica CRM, read-only: contacts, notes, activities, tasks, gifts"
    public static let settings: [SettingSpec] = [
        SettingSpec("url", "Monica's address, e.g. https://monica.example.com (/api is added)", required: true),
        SettingSpec("auth", "bearer:SECRET, an API token from Monica's Settings › API", required: true),
        SettingSpec("page_size", "contacts per page (default 15, at most 100)", type: .whole(1...100)),
        SettingSpec("sort", "contact order: created_at or updated_at, - first for newest first"),
        SettingSpec("cache", "seconds answers are kept (default 300; 0 turns the cache off)", type: .seconds),
        SettingSpec("tries", "attempts on a rate limit, server error or network error (default 3)", type: .positiveCount),
        SettingSpec("retry_delay", "seconds before the second attempt, doubling after (default 1)", type: .seconds),
        SettingSpec("max_wait", "the longest Retry-After to wait for, in seconds (default 60)", type: .seconds),
    ]

    static let contactID = ArgumentSpec.one("ID", .dynamic("contacts"))

    public static let commands: [CommandSpec] = [
        CommandSpec("contacts", [.optionalText("QUERY")],
                    "search contacts (a name, or field:value such as email:jo); all without a query", group: "monica",
                    run: handler(MonicaBackend.contacts)),
        CommandSpec("contact", [contactID], "a contact's card: names, emails and phones, tags, dates, latest notes",
                    group: "monica", run: handler(MonicaBackend.contact)),
        CommandSpec("notes", [contactID], "a contact's notes, latest first", group: "monica",
                    run: handler(MonicaBackend.listing { .notes(contact: $0) })),
        CommandSpec("activities", [contactID], "activities with a contact, latest first", group: "monica",
                    run: handler(MonicaBackend.listing { .activities(contact: $0) })),
        CommandSpec("tasks", [contactID], "a contact's tasks, done or not", group: "monica",
                    run: handler(MonicaBackend.listing { .tasks(contact: $0) })),
        CommandSpec("gifts", [contactID], "gift ideas and gifts for a contact", group: "monica",
                    run: handler(MonicaBackend.listing { .gifts(contact: $0) })),
        CommandSpec("tags", "every tag", group: "monica", run: handler(MonicaBackend.tags)),
        CommandSpec("tag", [.text("NAME", .dynamic("tags"))], "the contacts with that tag", group: "monica",
                    hint: "/tags lists them", run: handler(MonicaBackend.tagged)),
        CommandSpec("more", "the next page of the last list", group: "monica", run: handler(MonicaBackend.more)),
        CommandSpec("refresh", "forget cached answers, so the next ones come fresh from Monica", group: "monica",
                    run: handler(MonicaBackend.refresh)),
    ]

    let session: SessionConfig
    let client: MonicaClient
    let pageSize: Int
    let sort: String?
    let clock: HarkClock
    let cacheLifetime: Double
    let memory = MonicaMemory()

    init(session: SessionConfig, environment: BackendEnvironment) throws {
        self.session = session
        let url = session.url ?? ""
        guard url.hasPrefix("https://") || url.hasPrefix("http://") else {
            throw HarkError.badSetting(session: session.name, problem: "url must be Monica's address, e.g. https://monica.example.com")
        }
        pageSize = try session.int("page_size") ?? 15
        guard (1...100).contains(pageSize) else {
            throw HarkError.badSetting(session: session.name, problem: "page_size must be 1 to 100 (Monica's limit)")
        }
        sort = session["sort"]
        if let sort, !["created_at", "-created_at", "updated_at", "-updated_at"].contains(sort) {
            throw HarkError.badSetting(session: session.name, problem: "sort must be created_at, -created_at, updated_at or -updated_at")
        }
        var policy = RetryPolicy.monica
        policy.tries = try session.int("tries") ?? policy.tries
        policy.firstDelay = try session.double("retry_delay") ?? policy.firstDelay
        policy.maxWait = try session.double("max_wait") ?? policy.maxWait
        guard policy.tries >= 1, policy.firstDelay >= 0, policy.maxWait >= 0 else {
            throw HarkError.badSetting(session: session.name, problem: "tries must be at least 1, retry_delay and max_wait not negative")
        }
        cacheLifetime = max(0, try session.double("cache") ?? 300)
        // Monica answers quickly or not at all: shorter waits than a chat reply's defaults,
        // so three tries of a hung server take a minute and a half, not a quarter of an hour.
        let timeouts = HTTPTimeouts(connect: try session.double("connect_timeout") ?? 10,
                                    firstByte: try session.double("first_byte_timeout") ?? 30,
                                    idle: try session.double("idle_timeout") ?? 30)
        clock = environment.clock
        client = MonicaClient(url: url, http: environment.http, auth: try session.authHeaders(),
                              timeouts: timeouts, tls: try session.tls(), policy: policy, clock: environment.clock,
                              cacheLifetime: cacheLifetime)
    }

    public static func make(session: SessionConfig, environment: BackendEnvironment) throws -> any Backend {
        try MonicaBackend(session: session, environment: environment)
    }

    /// Typed text is a contact search, passed to Monica as is: a name, or `field:value` for the
    /// contacts with a field of that type (Email, Phone…) starting with the value.
    public func send(_ request: ChatRequest) -> AsyncThrowingStream<ReplyEvent, Error> {
        let query = request.text.split(whereSeparator: \.isNewline).joined(separator: " ")
            .trimmingSpaces
        let hasFiles = !request.attachments.isEmpty
        return reply { [self] progress in
            if hasFiles { throw HarkError.usage("a monica session is read-only and takes no files") }
            return try await show(MonicaListing(source: .contacts(query: query)), progress: progress)
        }
    }

    /// A reply made of one piece of text, with `.status` lines while it waits (retries). The
    /// text ends with a newline, so a table printed in a pipe ends its last line.
    func reply(_ work: @escaping MonicaWork) -> AsyncThrowingStream<ReplyEvent, Error> {
        ProducedStream.make { emit in
            let text = try await work { try await emit(.status($0)) }
            try await emit(.text(text + "\n"))
        }
    }

    /// `/info`: whose token this is, asked of `/api/me` each time (one attempt, no cache).
    public func info() async -> [(String, String)] {
        var facts = [("api", Workspace.displayURL(client.apiBase))]
        do {
            let answer = try await client.get("me", cached: false, retrying: false)
            if let user = MonicaUser(answer["data"] ?? answer) {
                facts.append(("token", "valid, for " + user.name + (user.email.map { " <\($0)>" } ?? "")))
            } else {
                facts.append(("token", "accepted, but /api/me did not say whose it is"))
            }
        } catch {
            facts.append(("token", error.userMessage))
        }
        let lifetime = cacheLifetime.truncatingRemainder(dividingBy: 60) == 0
            ? "\(Int(cacheLifetime / 60)) min" : RetryPolicy.format(cacheLifetime)
        let count = client.cache.count
        let kept = "\(count) \(MonicaFormatting.plural("answer", count)), each kept \(lifetime); /refresh forgets them"
        facts.append(("cache", client.cache.isEnabled ? kept : "off"))
        return facts
    }

    /// Contact ids and tag names seen so far, for Tab.
    public func completions(for key: String) -> [String] {
        switch key {
        case "contacts": return memory.contactIDs.map(String.init)
        case "tags": return memory.tagNames
        default: return []
        }
    }

    /// Today in UTC (YYYY-MM-DD), for ages on the card.
    var today: String { TimeFormat.iso8601(clock.now()).prefix(10).description }
}

/// Fetching and formatting one answer; `progress` takes the status lines shown meanwhile.
typealias MonicaWork = @Sendable (_ progress: @escaping @Sendable (String) async throws -> Void) async throws -> String

/// What a monica session remembers between commands: the last list (for `/more`) and the
/// names of contacts and tags it has seen (for titles and Tab).
final class MonicaMemory: @unchecked Sendable {
    private let lock = Lock()
    private var listing: MonicaListing?
    private var names: [Int: String] = [:]
    private var tags: Set<String> = []

    var lastListing: MonicaListing? { lock.withLock { listing } }
    var contactIDs: [Int] { lock.withLock { names.keys.sorted() } }
    var tagNames: [String] { lock.withLock { tags.sorted() } }

    func remember(_ shown: MonicaListing) { lock.withLock { listing = shown } }

    func remember(contacts: [MonicaContact]) {
        lock.withLock { for contact in contacts { names[contact.id] = contact.name } }
    }

    func remember(name: String, of id: Int) { lock.withLock { names[id] = name } }

    func remember(tags seen: [MonicaTag]) { lock.withLock { tags.formUnion(seen.map(\.name)) } }

    func name(of id: Int) -> String? { lock.withLock { names[id] } }
}
