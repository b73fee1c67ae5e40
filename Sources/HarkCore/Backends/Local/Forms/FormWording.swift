/// How the form speaks: questions with their hints, the summary, rows of answers. Plain text
/// (no Markdown), because replies are also read aloud and kept in the history as written.
extension FormConversation {
    /// `4/8 Severity: How bad is it?` and, below it, what kind of answer fits.
    func question(_ field: FormField) -> [String] {
        let asked = field.question == field.label + "?" ? field.question : "\(field.label): \(field.question)"
        return ["\(place(of: field)) \(asked)", "(" + hint(field) + ")"]
    }

    /// `one of: low, medium, high; skip takes medium`.
    func hint(_ field: FormField) -> String {
        var parts: [String] = []
        switch field.type {
        case .text:
            if let length = lengthHint(field) { parts.append(length) }
        case .multiline:
            parts.append("end a line with \\ to write more lines" + (lengthHint(field).map { ", " + $0 } ?? ""))
        case .number:
            var phrase = field.integer ? "a whole number" : "a number"
            if let unit = field.unit { phrase += " in \(unit)" }
            switch (field.minimum, field.maximum) {
            case (let low?, let high?): phrase += " from \(JSONEncoding.format(low)) to \(JSONEncoding.format(high))"
            case (let low?, nil): phrase += " of at least \(JSONEncoding.format(low))"
            case (nil, let high?): phrase += " of at most \(JSONEncoding.format(high))"
            case (nil, nil): break
            }
            parts.append(phrase)
        case .email:
            parts.append("an email address")
        case .date:
            var phrase = "a date such as \(today), today or yesterday"
            if let earliest = field.earliest { phrase += ", not before " + bound(earliest) }
            if let latest = field.latest { phrase += ", not after " + bound(latest) }
            parts.append(phrase)
        case .choice:
            parts.append("one of: " + field.choices.joined(separator: ", "))
        case .yesno:
            parts.append("yes or no")
        }
        if let example = field.example { parts.append("e.g. \(example)") }
        if let current = progress.answers[field.id] {
            parts.append("now: \(current.display(unit: field.unit)); skip keeps it")
        } else if let fallback = field.defaultValue(today: today) {
            parts.append("skip takes \(fallback.display(unit: field.unit))")
        } else if !field.required {
            parts.append("optional: skip leaves it out")
        }
        return parts.isEmpty ? "any text" : parts.joined(separator: "; ")
    }

    func lengthHint(_ field: FormField) -> String? {
        switch (field.minimum.map { Int($0) }, field.maximum.map { Int($0) }) {
        case (let low?, let high?): return "\(low) to \(high) characters"
        case (let low?, nil): return "at least \(low) characters"
        case (nil, let high?): return "at most \(high) characters"
        case (nil, nil): return nil
        }
    }

    func bound(_ bound: DateBound) -> String {
        switch bound {
        case .today: return "today"
        case .date(let date): return date.description
        }
    }

    /// Every answer, then the request for a yes.
    func summary() -> [String] {
        ["Please check your answers:"] + rows(askedFields) + [reviewRequest]
    }

    var reviewRequest: String { "Say yes to finish, change FIELD to correct an answer, or cancel." }

    /// `  Label     value`, labels aligned; a value's further lines indented under it.
    func rows(_ fields: [FormField]) -> [String] {
        let width = fields.map { TextWidth.of($0.label) }.max() ?? 0
        var lines: [String] = []
        for field in fields {
            let value = progress.answers[field.id]?.display(unit: field.unit) ?? "(not answered yet)"
            let valueLines = value.lineSlices().map(String.init)
            let pad = String(repeating: " ", count: width - TextWidth.of(field.label) + 2)
            lines.append("  " + field.label + pad + (valueLines.first ?? ""))
            for more in valueLines.dropFirst() { lines.append(String(repeating: " ", count: width + 4) + more) }
        }
        return lines
    }
}
