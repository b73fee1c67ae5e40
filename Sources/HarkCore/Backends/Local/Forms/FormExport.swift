import FoundationEssentials
import Glibc

/// A filled form as files: JSON for programs, Markdown for people. Only the questions that
/// were asked appear (a conditional field left out by an answer is not part of the form).
enum FormExport {
    /// `{"form": …, "answers": {id: value}, "fields": [{id, label, value}…], …}`.
    static func json(_ record: FormRecord, template: FormTemplate) -> String {
        object(record, template: template).encoded(pretty: true) + "\n"
    }

    static func object(_ record: FormRecord, template: FormTemplate) -> JSON {
        let conversation = FormConversation(template: template, progress: record.progress, today: FormDate(year: 2000, month: 1, day: 1)!)
        let asked = conversation.askedFields
        var answers: [String: JSON] = [:]
        var fields: [JSON] = []
        for field in asked {
            let value = record.progress.answers[field.id]?.json ?? .null
            answers[field.id] = value
            fields.append(["id": .string(field.id), "label": .string(field.label), "type": .string(field.type.rawValue),
                           "value": value])
        }
        let object: JSON = [
            "form": .string(record.templateName), "title": .string(record.title), "id": .number(Double(record.id)),
            "uid": .string(record.uid), "status": .string(record.progress.stage.rawValue),
            "created_at": .string(TimeFormat.iso8601(record.createdAt)),
            "completed_at": record.completedAt.map { .string(TimeFormat.iso8601($0)) } ?? .null,
            "submitted_to": JSON(record.submittedTo),
            "answers": .object(answers), "fields": .array(fields),
        ]
        return object
    }

    static func markdown(_ record: FormRecord, template: FormTemplate) -> String {
        let conversation = FormConversation(template: template, progress: record.progress, today: FormDate(year: 2000, month: 1, day: 1)!)
        var out = "# \(record.title)\n\n"
        if let description = template.description { out += description + "\n\n" }
        var facts = "_Form \(record.templateName) #\(record.id) · started \(TimeFormat.format(record.createdAt))"
        if let completed = record.completedAt { facts += " · completed \(TimeFormat.format(completed))" }
        if let target = record.submittedTo { facts += " · sent to \(target)" }
        switch record.progress.stage {
        case .filling, .review: facts += " · not finished yet"
        case .cancelled: facts += " · cancelled"
        case .done, .submitted: break
        }
        out += facts + "_\n\n"
        for field in conversation.askedFields {
            out += "## \(field.label)\n\n"
            switch record.progress.answers[field.id] {
            case nil: out += "_not answered yet_\n\n"
            case .skipped?: out += "_skipped_\n\n"
            case let value?: out += value.display(unit: field.unit) + "\n\n"
            }
        }
        return out
    }

    /// `FILE`, `FILE.json` or `FILE.md` → the pair of paths written; none → `NAME-ID.*` here.
    static func paths(for file: String?, record: FormRecord) -> (json: String, markdown: String) {
        var base = file.map { ($0).expandingTildeInPath } ?? "\(record.templateName)-\(record.id)"
        for suffix in [".json", ".md"] where base.hasSuffix(suffix) { base = String(base.dropLast(suffix.count)) }
        return (base + ".json", base + ".md")
    }
}
