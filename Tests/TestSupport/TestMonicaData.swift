import Foundation
import HarkCore

/// The account a TestMonicaServer serves: a few contacts with everything filled in, and
/// plenty of plain ones so listings page. Resources are rendered as Monica 4 renders them
/// (app/Http/Resources/Contact/ContactBase.php and friends).
public struct TestMonicaData: Sendable {
    public struct Contact: Sendable {
        public var id: Int
        public var first: String
        public var last: String?
        public var nickname: String?
        public var job: String?
        public var company: String?
        public var tags: [Int] = []
        /// (type name, content): ("Email", "john@example.com").
        public var fields: [(String, String)] = []
        public var birthdate: String?
        public var birthdateYearUnknown = false
        public var description: String?
        public var starred = false
        public var created = "2024-01-02T10:00:00Z"
    }

    public struct Note: Sendable {
        public var id: Int
        public var contact: Int
        public var body: String
        public var favorite = false
        public var created: String
    }

    public var contacts: [Contact]
    public var tags: [(id: Int, name: String)]
    public var notes: [Note]
    /// (id, contact, summary, type, date, attendee ids).
    public var activities: [(id: Int, contact: Int, summary: String, type: String, date: String, with: [Int])]
    /// (id, contact, title, completed at).
    public var tasks: [(id: Int, contact: Int, title: String, done: String?)]
    /// (id, contact, name, status, amount).
    public var gifts: [(id: Int, contact: Int, name: String, status: String, amount: String?)]
    /// Monica 4 sends the three latest notes with `?with=contactfields`; older versions did not.
    public var notesWithContact = true

    public static let standard: TestMonicaData = {
        var contacts: [Contact] = [
            Contact(id: 1, first: "John", last: "Doe", nickname: "Johnny", job: "Engineer", company: "Acme", tags: [1, 2],
                    fields: [("Email", "john@example.com"), ("Phone", "+1 555 0100"), ("Twitter", "@johnd")],
                    birthdate: "1985-03-14T00:00:00Z", description: "Met climbing; loves hiking.", starred: true),
            Contact(id: 2, first: "Joanna", last: "Smith", nickname: "Jo", job: "Designer", company: "Globex", tags: [2],
                    fields: [("Email", "joanna@globex.test")]),
            Contact(id: 3, first: "Jorge", last: "Ruiz", tags: [3], fields: [("Email", "jorge@example.org")],
                    birthdate: "1900-07-04T00:00:00Z", birthdateYearUnknown: true),
            Contact(id: 4, first: "Mary", last: "Jones", nickname: "Mo", tags: [4]),
        ]
        for id in 5...40 {
            contacts.append(Contact(id: id, first: "Pat", last: String(format: "Filler%02d", id),
                                    created: String(format: "2024-03-01T09:%02d:00Z", id)))
        }
        let notes = (1...5).map { number in
            Note(id: number, contact: 1, body: number == 5 ? "Ask about the trip to Norway.\nHe wants maps." : "Note \(number) on John",
                 favorite: number == 5, created: String(format: "2025-01-%02dT08:00:00Z", number * 5))
        }
        return TestMonicaData(
            contacts: contacts,
            tags: [(1, "friends"), (2, "work"), (3, "climbing"), (4, "family")],
            notes: notes,
            activities: [(1, 1, "Dinner at Luigi's", "restaurant", "2025-01-10", [1, 2]),
                         (2, 1, "Climbing session", "sport", "2024-12-01", [1])],
            tasks: [(1, 1, "Send the hiking map", nil), (2, 1, "Call about the job", "2025-01-03T12:00:00Z")],
            gifts: [(1, 1, "Dune (paperback)", "idea", "$12.00")])
    }()

    func contact(_ id: Int) -> Contact? { contacts.first { $0.id == id } }

    func tagJSON(_ id: Int) -> JSON {
        let name = tags.first { $0.id == id }?.name ?? "?"
        return ["id": JSON(id), "object": "tag", "name": .string(name), "name_slug": .string(name.lowercased()),
                "account": ["id": 1], "created_at": "2024-01-01T00:00:00Z", "updated_at": "2024-01-01T00:00:00Z"]
    }

    /// ContactShort, as nested in notes, tasks, gifts and attendees.
    func shortJSON(_ contact: Contact) -> JSON {
        ["id": JSON(contact.id), "object": "contact", "hash_id": .string("h:\(contact.id)"),
         "first_name": .string(contact.first), "last_name": JSON(contact.last), "nickname": JSON(contact.nickname),
         "complete_name": .string(name(contact)), "initials": .string(String(contact.first.prefix(1))),
         "gender": "Rather not say", "gender_type": "O", "is_partial": false, "is_dead": false, "is_me": false,
         "information": ["birthdate": ["is_age_based": nil, "is_year_unknown": nil, "date": nil]],
         "account": ["id": 1]]
    }

    func name(_ contact: Contact) -> String { [contact.first, contact.last].compactMap { $0 }.joined(separator: " ") }

    /// The Contact resource; `withFields` adds contactFields and the three latest notes, as
    /// `?with=contactfields` does.
    /// A name search's row. Monica selects few columns for it, and the resource renders what
    /// is missing as null or false. monicahq/monica 4.x, app/Traits/Searchable.php:
    ///     $builder->select(array_map(function ($column) { return "{$this->getTable()}.$column"; },
    ///                      $this->return_from_search));
    /// and app/Models/Contact/Contact.php's $return_from_search: id, uuid, first_name,
    /// middle_name, last_name, nickname, description, gender_id, account_id, created_at,
    /// updated_at, is_partial, is_starred and the avatar columns; no job, company, is_active,
    /// last_talked_to, first_met_additional_info or food_preferences. Relations (tags,
    /// statistics, addresses) still load by id.
    ///
    /// `searched`: a row of a name search. Monica selects few columns for it and the resource
    /// renders what is missing as null or false. monicahq/monica 4.x, app/Traits/Searchable.php:
    ///     $builder->select(array_map(function ($column) { return "{$this->getTable()}.$column"; },
    ///                      $this->return_from_search));
    /// with app/Models/Contact/Contact.php's $return_from_search: id, uuid, first_name,
    /// middle_name, last_name, nickname, description, gender_id, account_id, created_at,
    /// updated_at, is_partial, is_starred and the avatar columns; no job, company, is_active,
    /// last_talked_to or first_met_additional_info. Relations (tags, statistics, addresses)
    /// still load by id.
    func contactJSON(_ contact: Contact, withFields: Bool, baseURL: String, searched: Bool = false) -> JSON {
        let date: JSON = ["is_age_based": contact.birthdate == nil ? nil : false,
                          "is_year_unknown": contact.birthdate == nil ? nil : .bool(contact.birthdateYearUnknown),
                          "date": JSON(contact.birthdate)]
        let empty: JSON = ["is_age_based": nil, "is_year_unknown": nil, "date": nil]
        var json: [String: JSON] = [
            "id": JSON(contact.id), "object": "contact", "hash_id": .string("h:\(contact.id)"),
            "first_name": .string(contact.first), "last_name": JSON(contact.last), "nickname": JSON(contact.nickname),
            "complete_name": .string(name(contact)), "initials": .string(String(contact.first.prefix(1))),
            "description": JSON(contact.description), "gender": "Rather not say", "gender_type": "O",
            "is_starred": .bool(contact.starred), "is_partial": false, "is_active": .bool(!searched), "is_dead": false, "is_me": false,
            "last_called": contact.id == 1 && !searched ? "2025-01-05T00:00:00Z" : nil,
            "last_activity_together": contact.id == 1 ? "2025-01-10T00:00:00Z" : nil,
            "stay_in_touch_frequency": nil, "stay_in_touch_trigger_date": nil,
            "information": [
                "relationships": ["love": ["total": 0, "contacts": []], "family": ["total": 0, "contacts": []],
                                  "friend": ["total": 0, "contacts": []], "work": ["total": 0, "contacts": []]],
                "dates": ["birthdate": date, "deceased_date": empty],
                "career": searched ? ["job": nil, "company": nil] : ["job": JSON(contact.job), "company": JSON(contact.company)],
                "avatar": ["url": .string(baseURL + "/avatar/\(contact.id).png"), "source": "default",
                           "default_avatar_color": "#b3d5fe"],
                "food_preferences": nil,
                "how_you_met": ["general_information": contact.id == 1 && !searched ? "at the climbing gym" : nil,
                                "first_met_date": contact.id == 1
                                    ? ["is_age_based": false, "is_year_unknown": false, "date": "2019-05-01T00:00:00Z"] : empty,
                                "first_met_through_contact": nil],
            ],
            "addresses": contact.id == 1
                ? [["id": 1, "object": "address", "name": "Home", "street": "1 Main St", "city": "Springfield",
                    "province": nil, "postal_code": "12345", "latitude": nil, "longitude": nil,
                    "country": ["id": "US", "object": "country", "name": "United States", "iso": "US"]]]
                : [],
            "tags": .array(contact.tags.map(tagJSON)),
            "statistics": ["number_of_calls": 0, "number_of_notes": JSON(notes.filter { $0.contact == contact.id }.count),
                           "number_of_activities": JSON(activities.filter { $0.contact == contact.id }.count),
                           "number_of_reminders": 0, "number_of_tasks": JSON(tasks.filter { $0.contact == contact.id }.count),
                           "number_of_gifts": JSON(gifts.filter { $0.contact == contact.id }.count), "number_of_debts": 0],
            "url": .string(baseURL + "/api/contacts/\(contact.id)"),
            "account": ["id": 1],
            "created_at": .string(contact.created), "updated_at": contact.id == 1 ? "2025-02-03T10:00:00Z" : .string(contact.created),
        ]
        if withFields {
            json["contactFields"] = .array(contact.fields.enumerated().map { index, field in
                ["id": JSON(contact.id * 100 + index), "object": "contactfield", "content": .string(field.1),
                 "contact_field_type": ["id": JSON(index + 1), "object": "contactfieldtype", "name": .string(field.0),
                                        "fontawesome_icon": nil, "protocol": field.0 == "Email" ? "mailto:" : nil,
                                        "delible": true, "type": .string(field.0.lowercased()), "account": ["id": 1]],
                 "account": ["id": 1], "contact": shortJSON(contact),
                 "created_at": "2024-01-02T10:00:00Z", "updated_at": "2024-01-02T10:00:00Z"]
            })
            if notesWithContact { json["notes"] = .array(notesOf(contact.id).prefix(3).map(noteJSON)) }
        }
        return .object(json)
    }

    func notesOf(_ id: Int) -> [Note] { notes.filter { $0.contact == id }.sorted { $0.created > $1.created } }

    func noteJSON(_ note: Note) -> JSON {
        ["id": JSON(note.id), "object": "note", "body": .string(note.body), "is_favorited": .bool(note.favorite),
         "favorited_at": note.favorite ? .string(note.created) : nil, "account": ["id": 1],
         "contact": contact(note.contact).map(shortJSON) ?? nil, "created_at": .string(note.created),
         "updated_at": .string(note.created)]
    }

    func activityJSON(_ activity: (id: Int, contact: Int, summary: String, type: String, date: String, with: [Int]),
                      baseURL: String) -> JSON {
        ["id": JSON(activity.id), "object": "activity", "summary": .string(activity.summary), "description": nil,
         "happened_at": .string(activity.date),
         "activity_type": ["id": 1, "object": "activityType", "name": .string(activity.type), "location_type": nil],
         "attendees": ["total": JSON(activity.with.count), "contacts": .array(activity.with.compactMap(contact).map(shortJSON))],
         "emotions": [], "url": .string(baseURL + "/api/activities/\(activity.id)"), "account": ["id": 1],
         "created_at": .string(activity.date + "T20:00:00Z"), "updated_at": .string(activity.date + "T20:00:00Z")]
    }

    func taskJSON(_ task: (id: Int, contact: Int, title: String, done: String?)) -> JSON {
        ["id": JSON(task.id), "object": "task", "title": .string(task.title), "description": nil,
         "completed": .bool(task.done != nil), "completed_at": JSON(task.done), "account": ["id": 1],
         "contact": contact(task.contact).map(shortJSON) ?? nil,
         "created_at": .string("2025-01-0\(task.id)T12:00:00Z"), "updated_at": .string("2025-01-0\(task.id)T12:00:00Z")]
    }

    func giftJSON(_ gift: (id: Int, contact: Int, name: String, status: String, amount: String?)) -> JSON {
        ["id": JSON(gift.id), "object": "gift", "name": .string(gift.name), "comment": nil, "url": nil,
         "amount": nil, "value": nil, "amount_with_currency": JSON(gift.amount), "status": .string(gift.status),
         "date": nil, "recipient": nil, "photos": [], "contact": contact(gift.contact).map(shortJSON) ?? nil,
         "account": ["id": 1], "created_at": "2025-01-01T00:00:00Z", "updated_at": "2025-01-01T00:00:00Z"]
    }
}
