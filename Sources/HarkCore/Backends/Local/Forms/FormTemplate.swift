/// The kinds of answer a form field takes.
public enum FieldType: String, Sendable, CaseIterable {
    case text, multiline, number, email, date, choice, yesno

    /// The names a template may use, aliases included.
    static func named(_ name: String) -> FieldType? {
        switch name.lowercased() {
        case "yes/no", "yes-no", "yes_no", "boolean", "bool": return .yesno
        case "textarea", "long-text", "long_text": return .multiline
        default: return FieldType(rawValue: name.lowercased())
        }
    }
}

/// A date limit: a fixed date or whatever day it is when the form is filled.
public enum DateBound: Sendable, Equatable {
    case today
    case date(FormDate)

    func resolved(today: FormDate) -> FormDate {
        switch self {
        case .today: return today
        case .date(let date): return date
        }
    }
}

/// Ask a field only when an earlier field's answer is one of `values`.
public struct FieldCondition: Sendable, Equatable {
    public var field: String
    public var values: [FormValue]
}

/// One question of a form.
public struct FormField: Sendable, Equatable {
    public var id: String
    public var label: String
    public var question: String
    public var type: FieldType
    public var required = false
    public var help: String?
    /// An example answer, shown in the hint and in messages about the pattern.
    public var example: String?
    /// A regular expression the whole answer must match (text, multiline, email).
    public var pattern: String?
    /// Length in characters for text, the value for numbers.
    public var minimum: Double?
    public var maximum: Double?
    public var earliest: DateBound?
    public var latest: DateBound?
    /// Numbers only: whole numbers.
    public var integer = false
    /// Numbers only: shown after the value and ignored when typed ("12.50 EUR").
    public var unit: String?
    public var choices: [String] = []
    /// Other words for a choice, by choice: `"mobile app": ["phone", "iphone", "android"]`, so
    /// the rules read "on my phone" without a model.
    public var synonyms: [String: [String]] = [:]
    /// The default as the template writes it; read when it is used, so "today" is today.
    public var defaultAnswer: String?
    public var condition: FieldCondition?
    /// Propose the value from the best passage of the user's documents (`from_docs`).
    public var fromDocs = false

    public init(id: String, label: String, question: String, type: FieldType) {
        self.id = id
        self.label = label
        self.question = question
        self.type = type
    }

    /// The default's value on `today` (the template was checked when it was read, so the
    /// default fits, bounds aside).
    public func defaultValue(today: FormDate) -> FormValue? {
        guard let defaultAnswer else { return nil }
        return try? FieldCheck.value(defaultAnswer, for: self, today: today).get()
    }
}

/// A form: its fields in the order they are asked. Parsed from JSON by FormTemplateParser.
public struct FormTemplate: Sendable, Equatable {
    /// The file's name without `.json`: what `/form NAME` takes.
    public var name: String
    public var title: String
    public var description: String?
    /// A session that receives the answers when the form is complete (an n8n "module").
    public var submit: String?
    public var fields: [FormField]

    public func field(_ id: String) -> FormField? { fields.first { $0.id == id } }

    public func position(of id: String) -> Int? { fields.firstIndex { $0.id == id } }

    /// Whether a field is asked, given the answers so far: a conditional field only when its
    /// source is asked and answered with one of the values.
    public func isAsked(_ field: FormField, answers: [String: FormValue]) -> Bool {
        guard let condition = field.condition else { return true }
        guard let source = self.field(condition.field), isAsked(source, answers: answers),
              let value = answers[condition.field] else { return false }
        return condition.values.contains(value)
    }

    public var hasConditions: Bool { fields.contains { $0.condition != nil } }
}
