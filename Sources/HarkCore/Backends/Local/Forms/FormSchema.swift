/// Form fields as the JSON Schema a model's reply must fit (ReplyFormat): the open question
/// required (or null, when the answer does not give it), the other open fields optional;
/// choices as an enum, dates and emails with their `format`, numbers with their bounds. The
/// reply's token budget is sized from the same fields, so a reply that fits always fits in it.
enum FormSchema {
    static let name = "form_answer"

    static func format(current: FormField, others: [FormField]) -> ReplyFormat {
        var properties: [String: JSON] = [current.id: ReplyFormat.nullable(property(for: current))]
        for field in others { properties[field.id] = property(for: field) }
        let schema: JSON = ["type": "object", "properties": .object(properties), "required": [.string(current.id)],
                            "additionalProperties": false]
        return ReplyFormat(name: name, schema: schema, maxTokens: tokens(for: [current] + others))
    }

    static func property(for field: FormField) -> JSON {
        switch field.type {
        case .text, .multiline: return ["type": "string", "maxLength": .number(Double(textLength(field)))]
        case .email: return ["type": "string", "format": "email"]
        case .date: return ["type": "string", "format": "date"]
        case .number:
            var schema: [String: JSON] = ["type": field.integer ? "integer" : "number"]
            if let minimum = field.minimum { schema["minimum"] = .number(minimum) }
            if let maximum = field.maximum { schema["maximum"] = .number(maximum) }
            return .object(schema)
        case .choice: return ["type": "string", "enum": .array(field.choices.map { .string($0) })]
        case .yesno: return ["type": "boolean"]
        }
    }

    /// Tokens enough for every field's key and longest value, with room for the punctuation
    /// and spaces a grammar allows. Small tokenizers write each digit as a token of its own.
    static func tokens(for fields: [FormField]) -> Int {
        8 + fields.reduce(0) { total, field in total + 4 + field.id.count / 3 + valueTokens(field) }
    }

    /// A text's longest value in the schema: its own maximum, else a short line. Without a
    /// bound, SmolLM2 under a grammar can write one string until max_tokens cuts the JSON
    /// (`"version": "2.0.0.0.0…`); a bound makes the grammar close it in time. A string of n
    /// characters is at most n tokens (digits are a token each), so the budget holds it.
    static func textLength(_ field: FormField) -> Int {
        min(field.maximum.map { Int($0) } ?? 40, 200)
    }

    static func valueTokens(_ field: FormField) -> Int {
        switch field.type {
        case .text, .multiline: return textLength(field) + 2
        case .email: return 24
        case .date: return 14
        case .number: return 12
        case .choice: return (field.choices.map(\.count).max() ?? 0) / 2 + 4
        case .yesno: return 2
        }
    }
}
