import FoundationEssentials
import Glibc

/// One form being filled or filled: its template as it was, where it is, and its thread.
public struct FormRecord: Sendable, Equatable {
    public var id: Int64
    /// A stable id for the outside world: the session id a submission goes with.
    public var uid: String
    public var session: String
    public var threadID: Int64
    public var templateName: String
    public var title: String
    /// The template's JSON text when the form started.
    public var source: String
    public var progress: FormProgress
    public var createdAt: Date
    public var updatedAt: Date
    public var completedAt: Date?
    public var submittedTo: String?
    public var submittedAt: Date?

    public func template() throws -> FormTemplate {
        try FormTemplateParser.parse(source, name: templateName, path: "form #\(id) (\(templateName))")
    }
}

/// The `local_forms` table (migration 003-local-forms): written after every answer.
struct FormStore {
    /// The session's history; the forms are in its kind's tables.
    let history: SessionHistory
    let now: @Sendable () -> Date

    func create(session: String, threadID: Int64, template: FormTemplate, source: String,
                progress: FormProgress) throws -> FormRecord {
        let time = now()
        let uid = UUID().uuidString.lowercased()
        let id: Int64 = try history.tables { database in
            try database.transaction {
                try database.run("""
                    INSERT INTO local_forms(uid, session, thread_id, template, title, source, stage, current_field, walking,
                                            answers, created_at, updated_at, proposal)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, .text(uid), .text(session), .integer(threadID), .text(template.name), .text(template.title),
                    .text(source), .text(progress.stage.rawValue), SQLValue(progress.current), .integer(progress.walking ? 1 : 0),
                    .text(progress.answersJSON.encoded()), .real(time.timeIntervalSince1970), .real(time.timeIntervalSince1970),
                    SQLValue(progress.proposal?.json.encoded()))
                return database.lastInsertRowID
            }
        }
        return FormRecord(id: id, uid: uid, session: session, threadID: threadID, templateName: template.name,
                          title: template.title, source: source, progress: progress, createdAt: time, updatedAt: time)
    }

    /// Writes the progress; the first time a form is done its completion time is kept.
    func save(_ record: inout FormRecord) throws {
        record.updatedAt = now()
        if record.completedAt == nil, [.done, .submitted].contains(record.progress.stage) { record.completedAt = record.updatedAt }
        let saved = record
        try history.tables { database in
            try database.run("""
                UPDATE local_forms SET stage = ?, current_field = ?, walking = ?, answers = ?, updated_at = ?,
                                       completed_at = ?, submitted_to = ?, submitted_at = ?, proposal = ?
                WHERE id = ?
                """, .text(saved.progress.stage.rawValue), SQLValue(saved.progress.current),
                .integer(saved.progress.walking ? 1 : 0), .text(saved.progress.answersJSON.encoded()),
                .real(saved.updatedAt.timeIntervalSince1970), SQLValue(saved.completedAt?.timeIntervalSince1970),
                SQLValue(saved.submittedTo), SQLValue(saved.submittedAt?.timeIntervalSince1970),
                SQLValue(saved.progress.proposal?.json.encoded()), .integer(saved.id))
        }
    }

    static let select = """
        SELECT id, uid, session, thread_id, template, title, source, stage, current_field, walking, answers,
               created_at, updated_at, completed_at, submitted_to, submitted_at, proposal
        FROM local_forms
        """

    static func record(_ row: NamedRow) -> FormRecord {
        func date(_ column: String) -> Date? { row[column].double.map { Date(timeIntervalSince1970: $0) } }
        var progress = FormProgress()
        progress.stage = FormProgress.Stage(rawValue: row["stage"].string ?? "") ?? .cancelled
        progress.current = row["current_field"].string
        progress.walking = row["walking"].int == 1
        // created_at and updated_at are NOT NULL: the fallback is never read.
        let epoch = Date(timeIntervalSince1970: 0)
        var record = FormRecord(id: row["id"].int64 ?? 0, uid: row["uid"].string ?? "", session: row["session"].string ?? "",
                                threadID: row["thread_id"].int64 ?? 0, templateName: row["template"].string ?? "",
                                title: row["title"].string ?? "", source: row["source"].string ?? "", progress: progress,
                                createdAt: date("created_at") ?? epoch, updatedAt: date("updated_at") ?? epoch,
                                completedAt: date("completed_at"), submittedTo: row["submitted_to"].string,
                                submittedAt: date("submitted_at"))
        if let template = try? record.template(), let json = try? JSON.parse(row["answers"].string ?? "{}") {
            record.progress.answers = FormProgress.answers(from: json, template: template)
            record.progress.proposal = FormProgress.Proposal.read(row["proposal"].string, template: template)
        }
        return record
    }

    /// The form still taking answers in a thread.
    func open(threadID: Int64) throws -> FormRecord? {
        try history.tables { database in
            try database.query(Self.select + """
                 WHERE thread_id = ? AND stage IN ('filling', 'review') ORDER BY id DESC LIMIT 1
                """, .integer(threadID)).first.map(Self.record)
        }
    }

    /// The latest form of a thread that was not cancelled, open or not.
    func latest(threadID: Int64) throws -> FormRecord? {
        try history.tables { database in
            try database.query(Self.select + " WHERE thread_id = ? AND stage != 'cancelled' ORDER BY id DESC LIMIT 1",
                               .integer(threadID)).first.map(Self.record)
        }
    }

    /// A session's forms, the most recently touched first.
    func forms(session: String) throws -> [FormRecord] {
        try history.tables { database in
            try database.query(Self.select + " WHERE session = ? ORDER BY updated_at DESC, id DESC", .text(session))
                .map(Self.record)
        }
    }

    func form(id: Int64) throws -> FormRecord? {
        try history.tables { database in try database.query(Self.select + " WHERE id = ?", .integer(id)).first.map(Self.record) }
    }
}
