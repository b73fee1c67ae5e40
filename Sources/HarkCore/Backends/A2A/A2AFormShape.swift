/// Whether a data part has the shape of a form (A2AForm), and the schema it holds: read with
/// nothing but JSON, so that the reply's progress (and its fuzz target) can tell a form from
/// other data without the question engine.
enum A2AFormShape {
    /// The schema a data part holds, with the form's values as defaults, and its own words.
    static func schema(in data: JSON) -> (schema: JSON, wording: String?)? {
        if data["type"]?.string == "form", let form = data["form"], form["properties"]?.object != nil {
            let wording = nonEmpty(data["instructions"]?.string) ?? nonEmpty(form["title"]?.string)
            return (withDefaults(form, data["form_data"]?.object ?? [:]), wording)
        }
        guard data["properties"]?.object != nil, (data["type"]?.string ?? "object") == "object" else { return nil }
        return (data, nonEmpty(data["title"]?.string) ?? nonEmpty(data["description"]?.string))
    }

    /// Each known value becomes its field's default; a `<transaction date>` placeholder says
    /// the value is still to be asked.
    static func withDefaults(_ schema: JSON, _ values: [String: JSON]) -> JSON {
        guard var object = schema.object, var properties = schema["properties"]?.object else { return schema }
        for (name, value) in values {
            guard var property = properties[name]?.object, property["default"] == nil, !isPlaceholder(value) else { continue }
            property["default"] = value
            properties[name] = .object(property)
        }
        object["properties"] = .object(properties)
        return .object(object)
    }

    static func isPlaceholder(_ value: JSON) -> Bool {
        guard let text = value.string?.trimmed else { return value.isNull }
        return text.isEmpty || (text.hasPrefix("<") && text.hasSuffix(">"))
    }

    static func nonEmpty(_ text: String?) -> String? {
        guard let text = text?.trimmed, !text.isEmpty else { return nil }
        return text
    }
}
