/// A question read from MCP elicitation's `requestedSchema` (spec 2025-11-25,
/// client/elicitation, "Requested Schema"): a flat object whose properties are primitives:
/// strings (with `minLength`/`maxLength` and `format` email, uri, date, date-time), numbers
/// and integers (`minimum`/`maximum`), booleans, and single-choice enums (`enum`, `oneOf` of
/// `const` and `title`, or the older `enum` with `enumNames`), each with a `default`;
/// `required` lists the fields that must be answered.
public enum QuestionSchema {
    public struct Unsupported: Error, Sendable, Equatable {
        public let message: String
    }

    public static func fields(of schema: JSON) throws(Unsupported) -> [QuestionField] {
        guard let properties = schema["properties"]?.object, !properties.isEmpty else {
            throw Unsupported(message: "the question has no fields")
        }
        let required = Set((schema["required"]?.array ?? []).compactMap(\.string))
        var fields: [QuestionField] = []
        for name in properties.keys {
            var field = try self.field(name, properties[name]!)
            field.field.required = required.contains(name)
            fields.append(field)
        }
        // hark's JSON objects do not keep the schema's order: required fields first, words
        // (a name) before numbers and yes/no, then by name, so the order is at least stable.
        func rank(_ field: QuestionField) -> (Int, Int, String) {
            let kind = ["string": 0, "number": 1, "integer": 1, "boolean": 2][field.type] ?? 3
            return (field.field.required ? 0 : 1, kind, field.field.id)
        }
        return fields.sorted { rank($0) < rank($1) }
    }

    static func field(_ name: String, _ property: JSON) throws(Unsupported) -> QuestionField {
        let type = property["type"]?.string ?? (property["oneOf"] != nil || property["enum"] != nil ? "string" : "")
        let label = property["title"]?.string.map { MessageLine.make($0, limit: 60) } ?? name
        let description = property["description"]?.string.map { MessageLine.make($0, limit: 300) }
        var form = FormField(id: name, label: label, question: description ?? label + "?", type: .text)
        var field = QuestionField(field: form, type: type)
        switch type {
        case "string":
            if let choices = choices(property) {
                form.type = .choice
                form.choices = choices.map(\.title)
                field.values = Dictionary(choices.map { ($0.title, $0.value) }, uniquingKeysWith: { first, _ in first })
                form.defaultAnswer = property["default"]?.string.flatMap { value in choices.first { $0.value == value }?.title }
            } else {
                try string(property, into: &form)
                form.defaultAnswer = property["default"]?.string
            }
        case "number", "integer":
            form.type = .number
            form.integer = type == "integer"
            form.minimum = property["minimum"]?.double
            form.maximum = property["maximum"]?.double
            form.defaultAnswer = property["default"]?.double.map(JSONEncoding.format)
        case "boolean":
            form.type = .yesno
            form.defaultAnswer = property["default"]?.bool.map { $0 ? "yes" : "no" }
        case "array":
            throw Unsupported(message: "\(name) asks for several choices, which hark cannot ask yet")
        default:
            throw Unsupported(message: "\(name) has the type \(MessageLine.name(type.isEmpty ? "(none)" : type)), "
                + "which is not one a question may ask for")
        }
        field.field = form
        field.isSecret = property["format"]?.string == "password" || QuestionField.looksSecret(name)
        return field
    }

    /// A string's length and format: email and date are the forms' own kinds; a URI and a
    /// date with a time are text of their shape.
    static func string(_ property: JSON, into form: inout FormField) throws(Unsupported) {
        form.minimum = property["minLength"]?.double
        form.maximum = property["maxLength"]?.double
        switch property["format"]?.string {
        case "email"?: form.type = .email
        case "date"?: form.type = .date
        case "uri"?:
            form.pattern = #"[A-Za-z][A-Za-z0-9+.\-]*:[^\s]+"#
            form.example = "https://example.org/page"
        case "date-time"?:
            form.pattern = #"[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]+)?)?(Z|[+\-][0-9]{2}:[0-9]{2})?"#
            form.example = "2026-03-07T14:30:00Z"
        default: break
        }
    }

    /// An enum's choices: `oneOf` of `{const, title}`, `enum` with `enumNames`, or a plain `enum`.
    static func choices(_ property: JSON) -> [(value: String, title: String)]? {
        if let options = property["oneOf"]?.array ?? property["anyOf"]?.array {
            let choices = options.compactMap { option -> (String, String)? in
                guard let value = option["const"]?.string else { return nil }
                return (value, option["title"]?.string.map { MessageLine.make($0, limit: 60) } ?? value)
            }
            return choices.isEmpty ? nil : choices
        }
        guard let values = property["enum"]?.array?.compactMap(\.string), !values.isEmpty else { return nil }
        let names = property["enumNames"]?.array?.compactMap(\.string) ?? []
        return values.enumerated().map { index, value in
            (value, names.indices.contains(index) ? MessageLine.make(names[index], limit: 60) : value)
        }
    }
}
