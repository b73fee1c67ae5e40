/// Why an answer does not fit its field: one line naming what was wrong and what is expected.
public struct FieldProblem: Error, Sendable, Equatable {
    public let message: String
}

/// The rules that turn a typed answer into a field's value. Every answer goes through them,
/// whether the user typed it or a model read it out of a longer one.
public enum FieldCheck {
    public static func value(_ answer: String, for field: FormField, today: FormDate) -> Result<FormValue, FieldProblem> {
        let text = answer.trimmed
        var shown: String { quoted(text) }  // only for a refusal: most answers fit
        switch field.type {
        case .text, .multiline:
            return checkText(text, field: field).map(FormValue.text)
        case .email:
            guard let address = email(text) else {
                return fail("\(field.label) needs an email address such as name@example.org; \(shown) is not one.")
            }
            return checkPattern(address, field: field).map(FormValue.text)
        case .number:
            guard let number = number(text, unit: field.unit) else {
                return fail("\(field.label) needs a number such as \(field.integer ? "42" : "12.50"); \(shown) is not one.")
            }
            return checkNumber(number, field: field).map(FormValue.number)
        case .date:
            guard let date = FormDate.parse(text, today: today) else {
                return fail("\(field.label) needs a date such as \(today) (or today, yesterday); \(shown) is not one.")
            }
            return checkDate(date, field: field, today: today).map(FormValue.date)
        case .choice:
            return choice(text, field: field).map(FormValue.text)
        case .yesno:
            guard let flag = yesNo(text) else { return fail("\(field.label) needs yes or no; \(shown) is neither.") }
            return .success(.bool(flag))
        }
    }

    static func fail(_ message: String) -> Result<FormValue, FieldProblem> { .failure(FieldProblem(message: message)) }

    /// The answer as it appears in a message, clipped.
    static func quoted(_ text: String) -> String {
        let flat = text.lineSlices(keepingEmpty: false).joined(separator: " ")
        return "\"" + (flat.count > 40 ? String(flat.prefix(39)) + "…" : flat) + "\""
    }

    static func checkText(_ text: String, field: FormField) -> Result<String, FieldProblem> {
        let length = text.count
        if let minimum = field.minimum, Double(length) < minimum {
            return .failure(FieldProblem(message: "\(field.label) needs at least \(Int(minimum)) characters; yours has \(length)."))
        }
        if let maximum = field.maximum, Double(length) > maximum {
            return .failure(FieldProblem(message: "\(field.label) can be at most \(Int(maximum)) characters long; yours has \(length)."))
        }
        return checkPattern(text, field: field)
    }

    static func checkPattern(_ text: String, field: FormField) -> Result<String, FieldProblem> {
        guard let pattern = field.pattern, let (regex, _) = RegexCache.shared.regexes(pattern) else { return .success(text) }
        if (try? regex.wholeMatch(in: text)) != nil { return .success(text) }
        if let example = field.example {
            return .failure(FieldProblem(message: "\(field.label) should look like \(example); \(quoted(text)) does not."))
        }
        return .failure(FieldProblem(message: "\(field.label) must match the pattern \(pattern); \(quoted(text)) does not."))
    }

    /// A plausible address: one @, something before it, a dotted domain after it, no spaces.
    /// `mailto:` and angle brackets are taken off; the domain is lower-cased.
    static func email(_ text: String) -> String? {
        var address = Substring(text)
        if address.lowercased().hasPrefix("mailto:") { address = address.dropFirst(7) }
        if address.hasPrefix("<"), address.hasSuffix(">") { address = address.dropFirst().dropLast() }
        let parts = address.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !address.contains(where: { $0.isWhitespace || $0 == "," || $0 == ";" }) else {
            return nil
        }
        let labels = parts[1].split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, labels.allSatisfy({ !$0.isEmpty }), let top = labels.last, top.count >= 2,
              top.allSatisfy(\.isLetter) else { return nil }
        return parts[0] + "@" + parts[1].lowercased()
    }

    /// `12.50`, `1,234.50`, `1.234,50`, `12,50`, `1 234`, `-3`, with the field's unit or a
    /// currency sign before or after. Not `1e5`, hex or infinity: people do not type those as
    /// amounts. Nil for `1.250` and `1,250`, which are 1250 in one country and 1.25 in another:
    /// AnswerReader reads both and asks when both fit.
    static func number(_ text: String, unit: String?) -> Double? {
        let readings = numberReadings(text, unit: unit)
        return readings.count == 1 ? readings[0] : nil
    }

    /// Every way the text reads as a number: none, one, or two for `1.250`.
    static func numberReadings(_ text: String, unit: String?) -> [Double] {
        var cleaned = text.lowercased()
        for mark in [unit?.lowercased(), "€", "$", "£"].compactMap({ $0 }) where !mark.isEmpty {
            if cleaned.hasSuffix(mark) { cleaned = String(cleaned.dropLast(mark.count)).trimmed }
            if cleaned.hasPrefix(mark) { cleaned = String(cleaned.dropFirst(mark.count)).trimmed }
        }
        cleaned.removeAll { $0 == " " || $0 == "_" || $0 == "'" || $0 == "\u{a0}" }
        guard !cleaned.isEmpty, cleaned.allSatisfy({ $0.isASCII && ($0.isNumber || ".,+-".contains($0)) }) else { return [] }
        let separators = cleaned.filter { $0 == "." || $0 == "," }
        func plain(_ digits: String) -> [Double] {
            guard let value = Double(digits), value.isFinite else { return [] }
            return [value]
        }
        func grouped(_ integer: Substring, by mark: Character) -> String? {
            let groups = integer.split(separator: mark, omittingEmptySubsequences: false)
            guard let first = groups.first?.filter(\.isNumber), (1...3).contains(first.count), !first.hasPrefix("0"),
                  groups.dropFirst().allSatisfy({ $0.count == 3 }) else { return nil }
            return groups.joined()
        }
        guard let last = separators.last else { return plain(cleaned) }
        if Set(separators).count == 2 {
            // Both marks: the last one is the decimal point, the other groups thousands.
            let cut = cleaned.lastIndex(of: last)!
            let thousands: Character = last == "." ? "," : "."
            guard let integer = grouped(cleaned[..<cut], by: thousands) else { return [] }
            return plain(integer + "." + cleaned[cleaned.index(after: cut)...])
        }
        if separators.count > 1 {
            return grouped(Substring(cleaned), by: last).map(plain) ?? []
        }
        let parts = cleaned.split(separator: last, omittingEmptySubsequences: false)
        let decimal = plain(parts[0] + "." + parts[1])
        // One mark with three digits after it: thousands or a decimal point.
        if parts[1].count == 3, let thousands = grouped(Substring(cleaned), by: last).map(plain), !thousands.isEmpty {
            return decimal + thousands
        }
        return decimal
    }

    static func checkNumber(_ number: Double, field: FormField) -> Result<Double, FieldProblem> {
        let shown = JSONEncoding.format(number)
        if field.integer, number.rounded() != number {
            return .failure(FieldProblem(message: "\(field.label) needs a whole number; \(shown) is not one."))
        }
        let unit = field.unit.map { " " + $0 } ?? ""
        switch (field.minimum, field.maximum) {
        case (let low?, let high?) where number < low || number > high:
            return .failure(FieldProblem(message: "\(field.label) must be between \(JSONEncoding.format(low)) and "
                + "\(JSONEncoding.format(high))\(unit); \(shown) is not."))
        case (let low?, nil) where number < low:
            return .failure(FieldProblem(message: "\(field.label) must be at least \(JSONEncoding.format(low))\(unit); \(shown) is less."))
        case (nil, let high?) where number > high:
            return .failure(FieldProblem(message: "\(field.label) must be at most \(JSONEncoding.format(high))\(unit); \(shown) is more."))
        default:
            return .success(number)
        }
    }

    static func checkDate(_ date: FormDate, field: FormField, today: FormDate) -> Result<FormDate, FieldProblem> {
        func named(_ bound: DateBound) -> String {
            bound == .today ? "today (\(today))" : bound.resolved(today: today).description
        }
        if let earliest = field.earliest, date < earliest.resolved(today: today) {
            return .failure(FieldProblem(message: "\(field.label) cannot be before \(named(earliest)); \(date) is."))
        }
        if let latest = field.latest, date > latest.resolved(today: today) {
            return .failure(FieldProblem(message: "\(field.label) cannot be after \(named(latest)); \(date) is."))
        }
        return .success(date)
    }

    /// A choice by its text (any case), its number in the list, or an unambiguous start.
    static func choice(_ text: String, field: FormField) -> Result<String, FieldProblem> {
        let lowered = text.lowercased()
        if let exact = field.choices.first(where: { $0.lowercased() == lowered }) { return .success(exact) }
        if let named = field.choices.first(where: { choice in
            field.synonyms[choice]?.contains { $0.lowercased() == lowered } ?? false
        }) { return .success(named) }
        if let index = Int(text), field.choices.indices.contains(index - 1) { return .success(field.choices[index - 1]) }
        let starting = field.choices.filter { $0.lowercased().hasPrefix(lowered) }
        if starting.count == 1, !lowered.isEmpty { return .success(starting[0]) }
        if starting.count > 1, !lowered.isEmpty {
            return .failure(FieldProblem(message: "\(quoted(text)) could be \(listed(starting, "or")); type more of it."))
        }
        return .failure(FieldProblem(message: "\(field.label) must be one of \(field.choices.joined(separator: ", ")); "
            + "\(quoted(text)) is not."))
    }

    static func yesNo(_ text: String) -> Bool? {
        var word = text.lowercased()
        while let last = word.last, last == "." || last == "!" { word.removeLast() }
        switch word {
        case "yes", "y", "yeah", "yep", "true", "sure": return true
        case "no", "n", "nope", "false": return false
        default: return nil
        }
    }

    /// "a, b or c".
    static func listed(_ items: [String], _ conjunction: String) -> String {
        guard items.count > 1 else { return items.first ?? "" }
        return items.dropLast().joined(separator: ", ") + " \(conjunction) " + items.last!
    }
}
