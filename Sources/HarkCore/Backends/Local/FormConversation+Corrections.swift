/// Going back and correcting: `back`, `skip`, `change FIELD [to VALUE]`.
extension FormConversation {
    mutating func back() -> [String] {
        let previous: FormField?
        if progress.stage == .review {
            previous = askedFields.last
        } else if let field = currentField, let position = template.position(of: field.id) {
            previous = template.fields[..<position].last(where: { isAsked($0) })
        } else {
            previous = nil
        }
        guard let previous else { return ["There is no question before this one."] + currentPrompt() }
        progress.stage = .filling
        progress.current = previous.id
        progress.walking = true
        return question(previous)
    }

    mutating func skip() -> [String] {
        guard progress.stage == .filling, let field = currentField else {
            return ["There is nothing to skip: say yes to finish, change FIELD to correct an answer, or cancel."]
        }
        if progress.answers[field.id] != nil { return advance(from: field) }
        if let value = field.defaultValue(today: today) {
            progress.answers[field.id] = value
            return ["\(field.label): \(value.display(unit: field.unit)) (the default)."] + advance(from: field)
        }
        if field.required { return ["\(field.label) is required, so it cannot be skipped."] }
        progress.answers[field.id] = .skipped
        return advance(from: field)
    }

    mutating func change(_ words: String) -> [String] {
        let names = askedFields.map(\.label).joined(separator: ", ")
        guard !words.isEmpty else { return ["Say which answer to change, e.g. change \(askedFields.first?.id ?? "FIELD"); the questions are \(names)."] }
        guard let (field, newValue) = resolveChange(words) else {
            let first = String(words.split(separator: " ").first ?? "")
            let suggestion = Suggest.closest(to: first, in: fieldNames)
            return ["There is no question called \"\(words)\"" + (suggestion.map { "; did you mean \($0)?" } ?? "; the questions are \(names).")]
        }
        guard isAsked(field) else {
            let source = field.condition.flatMap { template.field($0.field) }?.label ?? "an earlier question"
            return ["\(field.label) is not asked with your answer to \(source)."]
        }
        guard let newValue else {
            progress.stage = .filling
            progress.current = field.id
            progress.walking = false
            return question(field)
        }
        switch check(newValue, field) {
        case .failure(let problem):
            return [problem.message]
        case .success(let value):
            progress.answers[field.id] = value
            progress.walking = false
            let lines = ["\(field.label) is now \(value.display(unit: field.unit))."]
            if progress.stage == .filling, let current = currentField, isAsked(current), progress.answers[current.id] == nil {
                return lines + question(current)
            }
            return lines + nextOpenQuestion()
        }
    }

    /// `email`, `my email`, `contact email to ann@x.org`, `3 to high`: the field (by id,
    /// label, question number or an unambiguous start) and the new value, if given.
    func resolveChange(_ words: String) -> (FormField, String?)? {
        var tokens = words.split(separator: " ").map(String.init)
        while let first = tokens.first, ["my", "the", "your"].contains(first.lowercased()), tokens.count > 1 { tokens.removeFirst() }
        func value(after count: Int) -> String? {
            var rest = Array(tokens[count...])
            if let first = rest.first, ["to", "=", ":"].contains(first.lowercased()) { rest.removeFirst() }
            return rest.isEmpty ? nil : rest.joined(separator: " ")
        }
        for count in stride(from: tokens.count, through: 1, by: -1) {
            var name = tokens[..<count].joined(separator: " ").lowercased()
            if name.hasSuffix(":") { name.removeLast() }
            if let field = template.fields.first(where: { $0.id.lowercased() == name || $0.label.lowercased() == name }) {
                return (field, value(after: count))
            }
        }
        guard var first = tokens.first?.lowercased() else { return nil }
        if first.hasSuffix(":") { first.removeLast() }
        if let number = Int(first), template.fields.indices.contains(number - 1) {
            return (template.fields[number - 1], value(after: 1))
        }
        let starting = template.fields.filter { $0.id.lowercased().hasPrefix(first) || $0.label.lowercased().hasPrefix(first) }
        return starting.count == 1 && first.count >= 2 ? (starting[0], value(after: 1)) : nil
    }

    /// Close to a field's id or label: a mistyped `change` rather than an answer.
    func looksLikeAFieldName(_ words: String) -> Bool {
        guard let first = words.split(separator: " ").first.map(String.init) else { return false }
        return Suggest.closest(to: first, in: fieldNames) != nil
    }

    /// Ids and labels, as a user would type them after "change".
    var fieldNames: [String] { template.fields.map(\.id) + template.fields.map { $0.label.lowercased() } }
}
