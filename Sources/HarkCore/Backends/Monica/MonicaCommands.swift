/// The monica kind's slash-commands. Those that fetch return their answer as a reply
/// recorded under the command line (`/contact 12`), like a typed search, so the history holds
/// what was seen; arguments are checked first, so a typo is an error, not a failed reply.
extension MonicaBackend {
    func contacts(_ context: CommandContext) async throws -> CommandOutcome {
        let search = MonicaListing(source: .contacts(query: context.arguments["QUERY"]))
        return recorded(context.line) { try await self.show(search, progress: $0) }
    }

    func contact(_ context: CommandContext) async throws -> CommandOutcome {
        let id = try contactID(context)
        return recorded(context.line) { try await self.card(id, progress: $0) }
    }

    /// `/notes`, `/activities`, `/tasks` and `/gifts`: one of a contact's lists.
    static func listing(_ source: @escaping @Sendable (Int) -> MonicaListing.Source)
        -> @Sendable (MonicaBackend) -> (CommandContext) async throws -> CommandOutcome {
        { backend in { context in
            let listing = MonicaListing(source: source(try backend.contactID(context)))
            return backend.recorded(context.line) { try await backend.show(listing, progress: $0) }
        } }
    }

    func tags(_ context: CommandContext) async throws -> CommandOutcome {
        recorded(context.line) { try await self.show(MonicaListing(source: .tags), progress: $0) }
    }

    func tagged(_ context: CommandContext) async throws -> CommandOutcome {
        let name = context.arguments["NAME"] ?? ""
        return recorded(context.line) { progress in
            let tag = try await self.tag(named: name, progress: progress)
            return try await self.show(MonicaListing(source: .tagged(tag)), progress: progress)
        }
    }

    func more(_ context: CommandContext) async throws -> CommandOutcome {
        guard var listing = memory.lastListing else {
            throw HarkError.usage("nothing to continue: search for a contact first (type a name)")
        }
        guard listing.hasNext else {
            return .output([StyledLine("that was the last page (\(listing.shownSoFar) of \(listing.total) "
                + MonicaFormatting.plural(listing.noun, listing.total) + ")", .dim)])
        }
        listing.page += 1
        let next = listing
        return recorded(context.line) { try await self.show(next, progress: $0) }
    }

    func refresh(_ context: CommandContext) async throws -> CommandOutcome {
        guard client.cache.isEnabled else { return .output([StyledLine("the cache is off (cache = 0)", .dim)]) }
        let dropped = client.cache.clear()
        return .output([StyledLine("forgot \(dropped) cached \(MonicaFormatting.plural("answer", dropped)); "
            + "the next requests go to Monica", .dim)])
    }

    func recorded(_ line: String, _ work: @escaping MonicaWork) -> CommandOutcome {
        .events(reply(work), recordAs: line)
    }

    /// `12` or `#12`.
    func contactID(_ context: CommandContext) throws -> Int {
        let command = context.invocation.name
        let text = context.arguments["ID"].map { $0.hasPrefix("#") ? String($0.dropFirst()) : $0 } ?? ""
        guard let id = Int(text), id > 0 else {
            throw HarkError.usage("/\(command) needs a contact's id, e.g. /\(command) 12; type a name to search for it")
        }
        return id
    }

    /// The card of contact `id`, with its contact fields and latest notes. Monica 4 sends the
    /// three latest notes with `?with=contactfields`; for a server that does not, they are
    /// asked for separately.
    func card(_ id: Int, progress: @escaping @Sendable (String) async throws -> Void) async throws -> String {
        let answer: JSON
        do {
            answer = try await client.get("contacts/\(id)", [("with", "contactfields")], progress: progress)
        } catch HarkError.http(404, _, _) {
            throw HarkError.backend("\(client.host) has no contact #\(id); search by name to find the id")
        }
        guard let contact = MonicaContact(answer["data"] ?? .null) else {
            throw HarkError.protocolViolation("\(client.host) answered without a contact; check the session's url")
        }
        memory.remember(contacts: [contact])
        memory.remember(tags: contact.tags)
        var notes = contact.latestNotes ?? []
        if contact.latestNotes == nil, (contact.counts["notes"] ?? 1) > 0 {
            let page = try await client.get("contacts/\(id)/notes", [("sort", "-created_at"), ("page", "1"), ("limit", "3")],
                                            progress: progress)
            notes = try MonicaPage.parse(page, host: client.host, item: MonicaNote.init).items
        }
        return MonicaFormatting.card(contact, notes: Array(notes.prefix(3)), today: today)
    }

    /// The tag called `name` (or with that slug), from every page of `/api/tags`.
    func tag(named name: String, progress: @escaping @Sendable (String) async throws -> Void) async throws -> MonicaTag {
        var tags: [MonicaTag] = []
        var page = 1
        while true {
            let answer = try await client.get("tags", [("page", String(page)), ("limit", "100")], progress: progress)
            let parsed = try MonicaPage.parse(answer, host: client.host, item: MonicaTag.init)
            tags += parsed.items
            guard parsed.hasNext, page < 50 else { break }
            page += 1
        }
        memory.remember(tags: tags)
        let wanted = name.lowercased()
        if let tag = tags.first(where: { $0.name.lowercased() == wanted || $0.slug == wanted }) { return tag }
        let suggestion = Suggest.closest(to: name, in: tags.map(\.name))
        throw HarkError.usage("no tag named \"\(name)\"" + (suggestion.map { "; did you mean \($0)?" } ?? "; /tags lists them"))
    }
}
