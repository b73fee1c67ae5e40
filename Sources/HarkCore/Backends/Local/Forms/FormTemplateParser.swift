/// Reads a form template from its JSON text and checks it the way a compiler would: every
/// mistake is one line naming the file, the field and what to write instead, so a template
/// author never meets a broken form half-way through filling it.
public enum FormTemplateParser {
    static let formKeys = ["title", "description", "submit", "fields", "name"]
    static let fieldKeys = ["id", "label", "question", "type", "required", "help", "example", "pattern", "min", "max",
                            "integer", "unit", "choices", "synonyms", "default", "when", "from_docs"]

    public static func parse(_ text: String, name: String, path: String) throws -> FormTemplate {
        func problem(_ reason: String) -> HarkError { .config(path: path, line: nil, reason: reason) }
        let json: JSON
        do { json = try JSON.parse(text) } catch {
            throw HarkError.config(path: path, line: line(of: error.offset, in: text), reason: "not valid JSON: \(error.reason)")
        }
        guard let object = json.object else { throw problem("a form is a JSON object with \"title\" and \"fields\"") }
        try checkKeys(object, known: formKeys, context: "the form", problem: problem)
        guard let items = object["fields"]?.array, !items.isEmpty else {
            throw problem("\"fields\" must be a list with at least one field")
        }
        var template = FormTemplate(name: name, title: try string(object["title"], "title", problem) ?? name,
                                    description: try string(object["description"], "description", problem),
                                    submit: try string(object["submit"], "submit", problem), fields: [])
        for (index, item) in items.enumerated() {
            let field = try parseField(item, number: index + 1, earlier: template, problem: problem)
            guard template.field(field.id) == nil else { throw problem("two fields have the id \"\(field.id)\"") }
            template.fields.append(field)
        }
        return template
    }

    static func line(of offset: Int, in text: String) -> Int {
        1 + text.utf8.prefix(offset).filter { $0 == 0x0A }.count
    }

    static func checkKeys(_ object: [String: JSON], known: [String], context: String,
                          problem: (String) -> HarkError) throws {
        for key in object.keys.sorted() where !known.contains(key) {
            let suggestion = Suggest.closest(to: key, in: known)
            throw problem("\(context) has an unknown key \"\(key)\""
                + (suggestion.map { "; did you mean \"\($0)\"?" } ?? "; known keys: " + known.joined(separator: ", ")))
        }
    }

    static func string(_ value: JSON?, _ key: String, _ problem: (String) -> HarkError) throws -> String? {
        guard let value, !value.isNull else { return nil }
        guard let text = value.string else { throw problem("\"\(key)\" must be a string") }
        return text.isEmpty ? nil : text
    }

    static func parseField(_ item: JSON, number: Int, earlier: FormTemplate,
                           problem outer: @escaping (String) -> HarkError) throws -> FormField {
        guard let object = item.object else { throw outer("field \(number) must be a JSON object") }
        guard let id = object["id"]?.string, !id.isEmpty,
              id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }) else {
            throw outer("field \(number) needs an \"id\" of letters, digits, _ or -, e.g. \"email\"")
        }
        let problem = { (reason: String) in outer("field \"\(id)\": \(reason)") }
        try checkKeys(object, known: fieldKeys, context: "it", problem: problem)
        let typeName = try string(object["type"], "type", problem) ?? "text"
        guard let type = FieldType.named(typeName) else {
            throw problem("unknown type \"\(typeName)\"; use one of "
                + FieldType.allCases.map(\.rawValue).joined(separator: ", "))
        }
        let label = try string(object["label"], "label", problem) ?? defaultLabel(id)
        var field = FormField(id: id, label: label, question: try string(object["question"], "question", problem) ?? label + "?",
                              type: type)
        if let required = object["required"], !required.isNull {
            guard let flag = required.bool else { throw problem("\"required\" must be true or false") }
            field.required = flag
        }
        field.help = try string(object["help"], "help", problem)
        field.example = try string(object["example"], "example", problem)
        field.unit = try string(object["unit"], "unit", problem)
        if let integer = object["integer"], !integer.isNull {
            guard let flag = integer.bool else { throw problem("\"integer\" must be true or false") }
            field.integer = flag
        }
        if let pattern = try string(object["pattern"], "pattern", problem) {
            guard [.text, .multiline, .email].contains(type) else { throw problem("only text and email fields take a pattern") }
            do { _ = try Regex(pattern) } catch {
                throw problem("the pattern \(pattern) is not a valid regular expression")
            }
            field.pattern = pattern
        }
        try parseLimits(object, into: &field, problem: problem)
        if type == .choice {
            guard let choices = object["choices"]?.array?.compactMap(\.string), !choices.isEmpty,
                  choices.count == object["choices"]?.array?.count else {
                throw problem("a choice field needs \"choices\": a list of strings")
            }
            field.choices = choices
            field.synonyms = try parseSynonyms(object["synonyms"], choices: choices, problem: problem)
        } else if object["choices"] != nil || object["synonyms"] != nil {
            let key = object["choices"] != nil ? "choices" : "synonyms"
            throw problem("only choice fields take \"\(key)\" (set \"type\": \"choice\")")
        }
        if let value = object["default"], !value.isNull {
            _ = try checked(value, for: field, what: "default", problem: problem)
            field.defaultAnswer = FormValue.answerText(value)
        }
        if let fromDocs = object["from_docs"], !fromDocs.isNull {
            guard let flag = fromDocs.bool else { throw problem("\"from_docs\" must be true or false") }
            guard !flag || type != .yesno else { throw problem("a yes/no field cannot be read from documents") }
            field.fromDocs = flag
        }
        if let when = object["when"] {
            field.condition = try parseCondition(when, earlier: earlier, problem: problem)
        }
        return field
    }

    /// `{"mobile app": ["phone", "iphone"]}`: each key one of the choices, each word naming
    /// only one choice, so a word read in an answer is never two choices at once.
    static func parseSynonyms(_ value: JSON?, choices: [String], problem: (String) -> HarkError) throws -> [String: [String]] {
        guard let value, !value.isNull else { return [:] }
        guard let object = value.object else {
            throw problem("\"synonyms\" must map choices to lists of other words, e.g. {\"mobile app\": [\"phone\", \"iphone\"]}")
        }
        var owner: [String: String] = Dictionary(uniqueKeysWithValues: choices.map { ($0.lowercased(), $0) })
        var synonyms: [String: [String]] = [:]
        for key in object.keys.sorted() {
            guard let choice = choices.first(where: { $0.lowercased() == key.lowercased() }) else {
                throw problem("\"synonyms\" names \"\(key)\", which is not one of its choices"
                    + (Suggest.closest(to: key, in: choices).map { "; did you mean \"\($0)\"?" } ?? ""))
            }
            guard let words = object[key]?.array?.compactMap(\.string), words.count == object[key]?.array?.count,
                  words.allSatisfy({ !$0.trimmed.isEmpty }) else {
                throw problem("the synonyms of \"\(choice)\" must be a list of words, e.g. [\"phone\", \"iphone\"]")
            }
            for word in words {
                if let other = owner[word.lowercased()], other != choice {
                    throw problem("\"\(word)\" cannot stand for \"\(choice)\": it already names \"\(other)\"")
                }
                owner[word.lowercased()] = choice
            }
            synonyms[choice] = words
        }
        return synonyms
    }

    /// `email_address` → "Email address".
    static func defaultLabel(_ id: String) -> String {
        let words = id.replacingOccurrences(of: "_", with: " ").replacingOccurrences(of: "-", with: " ")
        return words.prefix(1).uppercased() + words.dropFirst()
    }

    static func parseLimits(_ object: [String: JSON], into field: inout FormField,
                            problem: (String) -> HarkError) throws {
        for key in ["min", "max"] {
            guard let value = object[key], !value.isNull else { continue }
            switch field.type {
            case .text, .multiline, .number:
                guard let number = value.double else { throw problem("\"\(key)\" must be a number") }
                if key == "min" { field.minimum = number } else { field.maximum = number }
            case .date:
                let bound: DateBound
                if value.string?.lowercased() == "today" {
                    bound = .today
                } else if let date = value.string.flatMap(FormDate.init(iso:)) {
                    bound = .date(date)
                } else {
                    throw problem("\"\(key)\" must be \"today\" or a date written YYYY-MM-DD")
                }
                if key == "min" { field.earliest = bound } else { field.latest = bound }
            case .email, .choice, .yesno:
                throw problem("\(field.type.rawValue) fields take no \"\(key)\"")
            }
        }
        if let low = field.minimum, let high = field.maximum, low > high {
            throw problem("\"min\" is larger than \"max\"")
        }
    }

    /// A value written in the template (a default, a condition's value), checked by the same
    /// rules as an answer. Relative dates are read against a fixed day: a default of "today"
    /// is resolved when it is used, not here.
    static func checked(_ value: JSON, for field: FormField, what: String, problem: (String) -> HarkError) throws -> FormValue {
        guard let text = FormValue.answerText(value) else { throw problem("\"\(what)\" must be a string, number or true/false") }
        var unbounded = field
        unbounded.earliest = nil
        unbounded.latest = nil
        switch FieldCheck.value(text, for: unbounded, today: FormDate(year: 2000, month: 1, day: 1)!) {
        case .success(let checked): return checked
        case .failure(let failure): throw problem("its \(what) does not fit: \(failure.message)")
        }
    }

    static func parseCondition(_ json: JSON, earlier: FormTemplate, problem: (String) -> HarkError) throws -> FieldCondition {
        guard let object = json.object, let source = object["field"]?.string, let expected = object["equals"] else {
            throw problem("\"when\" must look like {\"field\": \"ID\", \"equals\": VALUE}")
        }
        try checkKeys(object, known: ["field", "equals"], context: "its \"when\"", problem: problem)
        guard let sourceField = earlier.field(source) else {
            throw problem("\"when\" refers to \"\(source)\", which is not a field before this one")
        }
        let values = expected.array ?? [expected]
        return FieldCondition(field: source, values: try values.map { value in
            try checked(value, for: sourceField, what: "\"when\" value", problem: problem)
        })
    }
}
