import FoundationEssentials
import Glibc

/// Monica's JSON, mapped to the few values hark shows. This is the one place that knows the
/// field names (read from monicahq/monica, app/Http/Resources: ContactBase, ContactShort,
/// ContactField, Note, Activity, Task, Gift, Tag, Account/User); when a server disagrees,
/// adjust it here. Missing or null fields become nil rather than errors: Monica leaves
/// whole sections out of partial contacts, and older versions name a few things differently.

/// One page of a listing: Laravel's paginated `{"data":[…],"links":{…},"meta":{…}}`.
struct MonicaPage<Item: Sendable>: Sendable {
    var items: [Item]
    var currentPage: Int
    var lastPage: Int
    /// How many items up to the end of this page (`meta.to`), for "15 of 40".
    var shownSoFar: Int
    var total: Int

    var hasNext: Bool { currentPage < lastPage }

    static func parse(_ json: JSON, host: String, item: (JSON) -> Item?) throws -> MonicaPage<Item> {
        guard let data = json["data"]?.array else {
            throw HarkError.protocolViolation("\(host) answered without Monica's \"data\" list; check the session's url")
        }
        let items = data.compactMap(item)
        let meta = json["meta"]
        let current = meta?["current_page"]?.int ?? 1
        let perPage = meta?["per_page"]?.int ?? max(items.count, 1)
        let to = meta?["to"]?.int ?? ((current - 1) * perPage + items.count)
        return MonicaPage(items: items, currentPage: current, lastPage: meta?["last_page"]?.int ?? current,
                          shownSoFar: to, total: meta?["total"]?.int ?? items.count)
    }
}

/// A date as Monica sends it (`information.dates.birthdate` and friends).
struct MonicaDate: Sendable, Equatable {
    /// YYYY-MM-DD.
    var day: String
    var isAgeBased: Bool
    var isYearUnknown: Bool

    init?(_ json: JSON?) {
        guard let json, let stamp = json["date"]?.string, stamp.count >= 10 else { return nil }
        day = String(stamp.prefix(10))
        isAgeBased = json["is_age_based"]?.bool ?? false
        isYearUnknown = json["is_year_unknown"]?.bool ?? false
    }
}

struct MonicaTag: Sendable, Equatable {
    var id: Int
    var name: String
    var slug: String

    init?(_ json: JSON) {
        guard let id = json["id"]?.int, let name = json["name"]?.string else { return nil }
        self.id = id
        self.name = name
        slug = json["name_slug"]?.string ?? name.lowercased()
    }
}

/// An email, phone, social profile…: `contactFields[]` with its `contact_field_type`.
struct MonicaContactField: Sendable, Equatable {
    var label: String
    var content: String

    init?(_ json: JSON) {
        guard let content = json["content"]?.text ?? json["data"]?.text, !content.isEmpty else { return nil }
        self.content = content
        label = (json["contact_field_type"]?["name"]?.string ?? json["contact_field_type"]?["type"]?.string ?? "field").lowercased()
    }
}

struct MonicaAddress: Sendable, Equatable {
    var name: String?
    var lines: [String]

    init?(_ json: JSON) {
        let country = json["country"]?["name"]?.string ?? json["country"]?.string
        lines = [json["street"], json["city"], json["province"], json["postal_code"]].compactMap { $0?.text }
            .filter { !$0.isEmpty } + [country].compactMap { $0 }
        guard !lines.isEmpty else { return nil }
        name = json["name"]?.string
    }
}

/// A contact as a list row or a full card. `ContactShort` (in notes, attendees) fills only
/// the names.
struct MonicaContact: Sendable, Equatable {
    var id: Int
    var name: String
    var nickname: String?
    var job: String?
    var company: String?
    var tags: [MonicaTag] = []
    var description: String?
    var isStarred = false
    var isDead = false
    var birthdate: MonicaDate?
    var deceasedDate: MonicaDate?
    var firstMetDate: MonicaDate?
    var howYouMet: String?
    var lastCalled: String?
    var lastActivity: String?
    var createdAt: String?
    var updatedAt: String?
    var fields: [MonicaContactField] = []
    var addresses: [MonicaAddress] = []
    /// The latest notes, when the server sent them with the contact (`?with=contactfields`);
    /// nil when it did not say, so the caller knows to ask.
    var latestNotes: [MonicaNote]?
    /// `statistics.number_of_notes` and the like, keyed without the prefix ("notes").
    var counts: [String: Int] = [:]

    init?(_ json: JSON) {
        guard let id = json["id"]?.int else { return nil }
        self.id = id
        let first = json["first_name"]?.string ?? ""
        let last = json["last_name"]?.string ?? ""
        let joined = [first, last].filter { !$0.isEmpty }.joined(separator: " ")
        name = json["complete_name"]?.string.flatMap { $0.isEmpty ? nil : $0 } ?? (joined.isEmpty ? "#\(id)" : joined)
        nickname = Self.nonEmpty(json["nickname"])
        let information = json["information"]
        job = Self.nonEmpty(information?["career"]?["job"])
        // Monica 2 sent the company as a string; later versions as a string too, from the
        // company's name. An object with a name is accepted in case a version nests it.
        company = Self.nonEmpty(information?["career"]?["company"]) ?? Self.nonEmpty(information?["career"]?["company"]?["name"])
        tags = json["tags"]?.array?.compactMap(MonicaTag.init) ?? []
        description = Self.nonEmpty(json["description"])
        isStarred = json["is_starred"]?.bool ?? false
        isDead = json["is_dead"]?.bool ?? false
        birthdate = MonicaDate(information?["dates"]?["birthdate"])
        deceasedDate = MonicaDate(information?["dates"]?["deceased_date"])
        firstMetDate = MonicaDate(information?["how_you_met"]?["first_met_date"])
        howYouMet = Self.nonEmpty(information?["how_you_met"]?["general_information"])
        lastCalled = Self.day(json["last_called"])
        lastActivity = Self.day(json["last_activity_together"])
        createdAt = Self.day(json["created_at"])
        updatedAt = Self.day(json["updated_at"])
        fields = (json["contactFields"] ?? json["contact_fields"])?.array?.compactMap(MonicaContactField.init) ?? []
        addresses = json["addresses"]?.array?.compactMap(MonicaAddress.init) ?? []
        latestNotes = json["notes"]?.array?.compactMap(MonicaNote.init)
        for (key, value) in json["statistics"]?.object ?? [:] {
            if let count = value.int { counts[key.replacingOccurrences(of: "number_of_", with: "")] = count }
        }
    }

    static func nonEmpty(_ json: JSON?) -> String? {
        guard let text = json?.text?.trimmed, !text.isEmpty else { return nil }
        return text
    }

    /// The date part of a timestamp ("2025-01-10T12:00:00Z" → "2025-01-10").
    static func day(_ json: JSON?) -> String? {
        guard let stamp = json?.string, stamp.count >= 10 else { return nil }
        return String(stamp.prefix(10))
    }
}

struct MonicaNote: Sendable, Equatable {
    var id: Int
    var body: String
    var isFavorite: Bool
    var createdAt: String?
    var contactName: String?

    init?(_ json: JSON) {
        guard let id = json["id"]?.int else { return nil }
        self.id = id
        body = json["body"]?.string ?? ""
        isFavorite = json["is_favorited"]?.bool ?? false
        createdAt = MonicaContact.day(json["created_at"])
        contactName = json["contact"].flatMap(MonicaContact.init)?.name
    }
}

struct MonicaActivity: Sendable, Equatable {
    var id: Int
    var summary: String
    var description: String?
    var happenedAt: String?
    var type: String?
    var attendees: [MonicaContact]

    init?(_ json: JSON) {
        guard let id = json["id"]?.int else { return nil }
        self.id = id
        summary = json["summary"]?.string ?? ""
        description = MonicaContact.nonEmpty(json["description"])
        happenedAt = MonicaContact.day(json["happened_at"])
        type = MonicaContact.nonEmpty(json["activity_type"]?["name"])
        attendees = json["attendees"]?["contacts"]?.array?.compactMap(MonicaContact.init) ?? []
    }
}

struct MonicaTask: Sendable, Equatable {
    var id: Int
    var title: String
    var description: String?
    var completed: Bool
    var completedAt: String?
    var createdAt: String?
    var contactName: String?

    init?(_ json: JSON) {
        guard let id = json["id"]?.int else { return nil }
        self.id = id
        title = json["title"]?.string ?? ""
        description = MonicaContact.nonEmpty(json["description"])
        completed = json["completed"]?.bool ?? false
        completedAt = MonicaContact.day(json["completed_at"])
        createdAt = MonicaContact.day(json["created_at"])
        contactName = json["contact"].flatMap(MonicaContact.init)?.name
    }
}

struct MonicaGift: Sendable, Equatable {
    var id: Int
    var name: String
    var comment: String?
    var url: String?
    var amount: String?
    /// idea, offered or received.
    var status: String
    var date: String?
    var recipient: String?
    var contactName: String?

    init?(_ json: JSON) {
        guard let id = json["id"]?.int else { return nil }
        self.id = id
        name = json["name"]?.string ?? ""
        comment = MonicaContact.nonEmpty(json["comment"])
        url = MonicaContact.nonEmpty(json["url"])
        amount = MonicaContact.nonEmpty(json["amount_with_currency"]) ?? MonicaContact.nonEmpty(json["amount"])
        status = MonicaContact.nonEmpty(json["status"]) ?? (json["is_an_idea"]?.bool == true ? "idea" : "gift")
        date = MonicaContact.day(json["date"])
        recipient = json["recipient"].flatMap(MonicaContact.init)?.name
        contactName = json["contact"].flatMap(MonicaContact.init)?.name
    }
}

/// `GET /api/me`: whose token this is.
struct MonicaUser: Sendable, Equatable {
    var name: String
    var email: String?

    init?(_ json: JSON) {
        guard json["id"]?.int != nil else { return nil }
        name = [json["first_name"]?.string, json["last_name"]?.string].compactMap { $0 }.filter { !$0.isEmpty }
            .joined(separator: " ")
        email = MonicaContact.nonEmpty(json["email"])
    }
}
