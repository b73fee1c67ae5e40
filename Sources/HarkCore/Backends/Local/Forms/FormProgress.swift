/// How far a form has got: what is answered, which question is open, and whether it is done.
/// Saved in the history database after every answer (FormStore), so a form survives quitting.
public struct FormProgress: Sendable, Equatable {
    public enum Stage: String, Sendable {
        /// Asking questions.
        case filling
        /// Every question answered; the summary waits for a yes.
        case review
        case done
        /// Done and sent to the template's submit session.
        case submitted
        case cancelled

        /// Still taking answers: plain messages in its thread go to the form.
        public var isOpen: Bool { self == .filling || self == .review }
    }

    public var stage: Stage = .filling
    /// The field being asked (while filling).
    public var current: String?
    /// The user went back: after an answer the next question in order is asked, answered or
    /// not, until the first unanswered one, as a wizard's Back and Next do.
    public var walking = false
    public var answers: [String: FormValue] = [:]
    /// A value for the open question found in the user's documents, waiting for a yes.
    public var proposal: Proposal?

    public init() {}

    /// A field's value read from a passage of a document (`from_docs`), shown for confirmation.
    public struct Proposal: Sendable, Equatable {
        public var field: String
        public var value: FormValue
        /// Where it was read: `booking.md:4`.
        public var source: String

        public init(field: String, value: FormValue, source: String) {
            self.field = field
            self.value = value
            self.source = source
        }

        var json: JSON { ["field": .string(field), "value": value.json, "source": .string(source)] }

        static func read(_ text: String?, template: FormTemplate) -> Proposal? {
            guard let text, let json = try? JSON.parse(text), let id = json["field"]?.string, let field = template.field(id),
                  let value = json["value"].flatMap({ FormValue.stored($0, type: field.type) }) else { return nil }
            return Proposal(field: id, value: value, source: json["source"]?.string ?? "")
        }
    }

    /// The answers as a JSON object, by field id.
    public var answersJSON: JSON { .object(answers.mapValues(\.json)) }

    /// Answers read back from the database; ids the template no longer has are dropped.
    static func answers(from json: JSON, template: FormTemplate) -> [String: FormValue] {
        var answers: [String: FormValue] = [:]
        for (id, value) in json.object ?? [:] {
            guard let field = template.field(id), let read = FormValue.stored(value, type: field.type) else { continue }
            answers[id] = read
        }
        return answers
    }
}
