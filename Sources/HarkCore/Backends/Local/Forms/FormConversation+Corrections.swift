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
        switch read(newValue, field) {
        case .problem(let problem):
            return [problem.message]
        case .ambiguous(let values):
            return [AnswerReader.askBack(values, field: field)]
        case .value(let value, _):
            progress.answers[field.id] = value
            progress.walking = false
            let lines = ["\(field.label) is now \(value.display(unit: field.unit))."]
            if progress.stage == .filling, let current = currentField, isAsked(current), progress.answers[current.id] == nil {
                return lines + question(current)
            }
            return lines + nextOpenQuestion()
        }
    }

    static let correctionMarkers = ["no wait", "no, wait", "actually", "sorry", "oops", "correction", "i meant",
                                    "i mean", "my mistake", "make that", "my bad"]
    static let correctionFillers = ["it was", "it's", "it is", "that was", "that's", "that is", "it should be", "should be",
                                    "i meant", "meant", "rather", "not that"]

    /// The words after `actually`, `sorry, I meant`, `oops`…, or nil for an ordinary answer.
    static func correction(_ text: String) -> String? {
        var rest = Substring(text)
        var marked = false
        var trimmedSomething = true
        while trimmedSomething {
            trimmedSomething = false
            rest = rest.drop(while: { $0 == " " || $0 == "," || $0 == ":" || $0 == "-" || $0 == "!" || $0 == "." })
            for word in (marked ? correctionFillers : []) + correctionMarkers {
                let lowered = rest.lowercased().replacingOccurrences(of: "’", with: "'")
                guard lowered.hasPrefix(word) else { continue }
                let after = lowered.dropFirst(word.count).first
                guard after == nil || after == " " || after == "," || after == ":" || after == "!" || after == "." else { continue }
                rest = rest.dropFirst(word.count)
                if correctionMarkers.contains(word) { marked = true }
                trimmedSomething = true
                break
            }
        }
        let words = String(rest).trimmed
        return marked && !words.isEmpty ? words : nil
    }

    /// `actually it was 2.4.2` changes the answer it fits: the one that names a field (`sorry,
    /// my email is …`), else the latest answer of a shape the words have (a version, a date,
    /// an address; a free text only when named). If none fits, the message answers the open
    /// question as typed.
    mutating func correct(_ words: String, original: String) -> [String] {
        var target: (FormField, FormValue)?
        var named = words
        for verb in [" is ", " was ", " should be ", " would be ", " = "] {
            if let range = named.range(of: verb) { named.replaceSubrange(range, with: " to ") }
        }
        if let (field, value) = namedField(named), let value, isAsked(field), progress.answers[field.id] != nil,
           case .value(let read, _) = read(value, field) {
            target = (field, read)
        } else {
            // The question just answered first: "actually" is most often about it. Else the
            // one earlier answer the words fit; several are asked back. Free texts only by name.
            let candidates = correctionCandidates()
            let shaped = candidates.filter { $0.type != .multiline && ($0.type != .text || $0.pattern != nil) }
            if let previous = candidates.first, shaped.first?.id == previous.id, let value = read(words, previous).value {
                target = (previous, value)
            } else {
                let fitting = shaped.compactMap { field in read(words, field).value.map { (field, $0) } }
                    .sorted { (template.position(of: $0.0.id) ?? 0) < (template.position(of: $1.0.id) ?? 0) }
                if fitting.count > 1 {
                    return ["That could change " + FieldCheck.listed(fitting.map(\.0.label), "or")
                        + "; say change FIELD to VALUE."]
                }
                target = fitting.first
            }
        }
        guard let (field, value) = target else {
            return progress.stage == .filling ? answer(original, extracted: nil)
                : ["Which answer should change? Say change FIELD to VALUE, e.g. change \(askedFields.last?.id ?? "FIELD") to …"]
        }
        progress.answers[field.id] = value
        let lines = ["\(field.label) is now \(value.display(unit: field.unit))."]
        return lines + (progress.stage == .review ? summary() : currentPrompt())
    }

    /// `my email to …`, `the version to …`: a field by its id or label only (a correction's
    /// `3 days ago` names no question 3).
    func namedField(_ words: String) -> (FormField, String?)? {
        var tokens = words.split(separator: " ").map(String.init)
        while let first = tokens.first, ["my", "the", "your", "our"].contains(first.lowercased()), tokens.count > 1 { tokens.removeFirst() }
        for count in stride(from: tokens.count, through: 1, by: -1) {
            let name = tokens[..<count].joined(separator: " ").lowercased().trimmingEnds(":")
            guard let field = template.fields.first(where: { $0.id.lowercased() == name || $0.label.lowercased() == name }) else { continue }
            var rest = Array(tokens[count...])
            if let first = rest.first, ["to", "=", ":"].contains(first.lowercased()) { rest.removeFirst() }
            return (field, rest.isEmpty ? nil : rest.joined(separator: " "))
        }
        return nil
    }

    /// Answered questions, the one asked just before the open one first, then further back,
    /// then the later ones (answered in passing).
    func correctionCandidates() -> [FormField] {
        let asked = askedFields.filter { progress.answers[$0.id] != nil && progress.answers[$0.id] != .skipped }
        guard progress.stage == .filling, let current = currentField, let position = template.position(of: current.id) else {
            return asked.reversed()
        }
        let before = asked.filter { (template.position(of: $0.id) ?? 0) < position }
        let after = asked.filter { (template.position(of: $0.id) ?? 0) > position }
        return before.reversed() + after
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
        // A number as the questions show it: among those asked (FormConversation.place).
        let asked = askedFields
        if let number = Int(first), asked.indices.contains(number - 1) {
            return (asked[number - 1], value(after: 1))
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
