/// A paged list hark showed, remembered so `/more` can fetch its next page.
struct MonicaListing: Sendable, Equatable {
    enum Source: Sendable, Equatable {
        /// A search (`query`), or every contact (nil).
        case contacts(query: String?)
        case tagged(MonicaTag)
        case notes(contact: Int)
        case activities(contact: Int)
        case tasks(contact: Int)
        case gifts(contact: Int)
        case tags
    }

    var source: Source
    var page = 1
    var lastPage = 1
    var shownSoFar = 0
    var total = 0

    var hasNext: Bool { page < lastPage }

    var noun: String {
        switch source {
        case .contacts, .tagged: return "contact"
        case .notes: return "note"
        case .activities: return "activity"
        case .tasks: return "task"
        case .gifts: return "gift"
        case .tags: return "tag"
        }
    }

    /// The API path and its parameters. Notes, activities, tasks and gifts come newest first.
    func request(pageSize: Int, sort: String?) -> (path: String, query: [(String, String)]) {
        var query: [(String, String)] = []
        let path: String
        switch source {
        case .contacts(let search):
            path = "contacts"
            if let search, !search.isEmpty { query.append(("query", search)) }
            if let sort { query.append(("sort", sort)) }
        case .tagged(let tag):
            path = "tags/\(tag.id)/contacts"
        case .notes(let id):
            path = "contacts/\(id)/notes"
            query.append(("sort", "-created_at"))
        case .activities(let id):
            path = "contacts/\(id)/activities"
            query.append(("sort", "-created_at"))
        case .tasks(let id):
            path = "contacts/\(id)/tasks"
            query.append(("sort", "-created_at"))
        case .gifts(let id):
            path = "contacts/\(id)/gifts"
            query.append(("sort", "-created_at"))
        case .tags:
            path = "tags"
        }
        return (path, query + [("page", String(page)), ("limit", String(source == .tags ? 100 : pageSize))])
    }
}

extension MonicaBackend {
    /// Fetches `wanted.page` of a listing and formats it: a title, the rows, and "15 of 40"
    /// with a hint when there is more. Remembers it for `/more`.
    func show(_ wanted: MonicaListing, progress: @escaping @Sendable (String) async throws -> Void) async throws -> String {
        var shown = wanted
        let (path, query) = shown.request(pageSize: pageSize, sort: sort)
        let answer: JSON
        do {
            answer = try await client.get(path, query, progress: progress)
        } catch HarkError.http(404, _, _) {
            throw notFound(shown.source)
        }
        let lines: [String]
        let count: Int
        let page: (currentPage: Int, lastPage: Int, shownSoFar: Int, total: Int)
        switch shown.source {
        case .contacts, .tagged:
            let contacts = try MonicaPage.parse(answer, host: client.host, item: MonicaContact.init)
            memory.remember(contacts: contacts.items)
            memory.remember(tags: contacts.items.flatMap(\.tags))
            lines = contacts.items.isEmpty ? [] : MonicaFormatting.contactTable(contacts.items)
            (count, page) = (contacts.items.count, contacts.meta)
        case .notes(let id):
            let notes = try MonicaPage.parse(answer, host: client.host, item: MonicaNote.init)
            lines = MonicaFormatting.notes(notes.items)
            (count, page) = (notes.items.count, notes.meta)
            if let name = notes.items.first?.contactName { memory.remember(name: name, of: id) }
        case .activities(let id):
            let activities = try MonicaPage.parse(answer, host: client.host, item: MonicaActivity.init)
            lines = MonicaFormatting.activities(activities.items, contactID: id)
            (count, page) = (activities.items.count, activities.meta)
            memory.remember(contacts: activities.items.flatMap(\.attendees))
        case .tasks(let id):
            let tasks = try MonicaPage.parse(answer, host: client.host, item: MonicaTask.init)
            lines = MonicaFormatting.tasks(tasks.items)
            (count, page) = (tasks.items.count, tasks.meta)
            if let name = tasks.items.first?.contactName { memory.remember(name: name, of: id) }
        case .gifts(let id):
            let gifts = try MonicaPage.parse(answer, host: client.host, item: MonicaGift.init)
            lines = MonicaFormatting.gifts(gifts.items)
            (count, page) = (gifts.items.count, gifts.meta)
            if let name = gifts.items.first?.contactName { memory.remember(name: name, of: id) }
        case .tags:
            let tags = try MonicaPage.parse(answer, host: client.host, item: MonicaTag.init)
            memory.remember(tags: tags.items)
            lines = tags.items.isEmpty ? [] : MonicaFormatting.tagTable(tags.items)
            (count, page) = (tags.items.count, tags.meta)
        }
        (shown.page, shown.lastPage, shown.shownSoFar, shown.total) = page
        memory.remember(shown)
        guard count > 0 else { return empty(shown.source) }
        let title = self.title(of: shown.source) + (shown.page > 1 ? ", page \(shown.page) of \(shown.lastPage)" : "")
        let footer = MonicaFormatting.footer(page: shown.page, shown: shown.shownSoFar, total: shown.total,
                                             hasNext: shown.hasNext, noun: shown.noun)
        return ([title] + lines + [footer]).joined(separator: "\n")
    }

    func title(of source: MonicaListing.Source) -> String {
        switch source {
        case .contacts(let query?) where !query.isEmpty: return "contacts matching \"\(query)\""
        case .contacts: return "all contacts"
        case .tagged(let tag): return "contacts tagged \(tag.name)"
        case .notes(let id): return "notes on \(described(id))"
        case .activities(let id): return "activities with \(described(id))"
        case .tasks(let id): return "tasks about \(described(id))"
        case .gifts(let id): return "gifts for \(described(id))"
        case .tags: return "tags"
        }
    }

    func empty(_ source: MonicaListing.Source) -> String {
        switch source {
        case .contacts(let query?) where !query.isEmpty: return "no contacts match \"\(query)\""
        case .contacts: return "no contacts yet"
        case .tagged(let tag): return "no contacts are tagged \(tag.name)"
        case .notes(let id): return "no notes on \(described(id))"
        case .activities(let id): return "no activities with \(described(id))"
        case .tasks(let id): return "no tasks about \(described(id))"
        case .gifts(let id): return "no gifts for \(described(id))"
        case .tags: return "no tags yet"
        }
    }

    /// "John Doe (#12)" when the name is known, else "contact #12".
    func described(_ id: Int) -> String {
        memory.name(of: id).map { "\($0) (#\(id))" } ?? "contact #\(id)"
    }

    func notFound(_ source: MonicaListing.Source) -> HarkError {
        switch source {
        case .notes(let id), .activities(let id), .tasks(let id), .gifts(let id):
            return .backend("\(client.host) has no contact #\(id); search by name to find the id")
        case .tagged(let tag):
            return .backend("\(client.host) has no tag \(tag.name) any more; /refresh, then /tags")
        case .contacts, .tags:
            return .backend("\(client.host) has no such list; check the session's url")
        }
    }
}

extension MonicaPage {
    var meta: (currentPage: Int, lastPage: Int, shownSoFar: Int, total: Int) {
        (currentPage, lastPage, shownSoFar, total)
    }
}
