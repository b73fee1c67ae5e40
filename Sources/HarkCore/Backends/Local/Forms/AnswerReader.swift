/// What the rules read out of one answer for one field.
public enum Reading: Sendable, Equatable {
    /// A value that passed every check of the field. `fromSentence` when it was picked out of
    /// a longer answer ("I'm on version 2.4.1 of it"), so it is confirmed to the user in a line.
    case value(FormValue, fromSentence: Bool)
    /// More than one value fits: the user is asked which, never guessed for.
    case ambiguous([FormValue])
    /// Nothing fitting: why, in one line.
    case problem(FieldProblem)

    public var value: FormValue? {
        if case .value(let value, _) = self { return value }
        return nil
    }
}

/// The rules that read a field's value out of what people actually type, with no model: the
/// exact forms FieldCheck knows first ("2.4.1", "yes", "2026-03-07"), then the value inside a
/// sentence ("I'm on version 2.4.1 of it", "yep, every time", "last friday"). Every value
/// found goes through the field's checks; two that both pass are asked back.
public enum AnswerReader {
    public static func read(_ answer: String, for field: FormField, today: FormDate) -> Reading {
        let text = answer.trimmed
        if field.type == .text, let stripped = TextLeadIn.strip(text, field: field) {
            return reading(FieldCheck.value(stripped, for: field, today: today), fromSentence: true)
        }
        let strict = FieldCheck.value(text, for: field, today: today)
        if case .success(let value) = strict { return .value(value, fromSentence: false) }
        let found = candidates(in: text, for: field, today: today)
        guard !found.isEmpty else { return reading(strict, fromSentence: false) }
        return choose(found, for: field, today: today)
    }

    /// Values the sentence holds for the field's type, before the field's own checks.
    static func candidates(in text: String, for field: FormField, today: FormDate) -> [Candidate] {
        switch field.type {
        case .text, .multiline: return PatternReader.candidates(in: text, field: field).map { .one(.text($0)) }
        case .email: return EmailReader.candidates(in: text).map { .one(.text($0)) }
        case .number: return NumberReader.candidates(in: text, unit: field.unit, words: field.integer)
        case .date: return DateReader.candidates(in: text, today: today)
        case .choice: return ChoiceReader.candidates(in: text, choices: field.choices, synonyms: field.synonyms)
        case .yesno: return YesNoReader.candidates(in: text)
        }
    }

    /// A value found in a sentence: one value, several readings of the same words (3/7/2026),
    /// or a date missing its year or month (`Nov 2`), which means the nearest that fits.
    enum Candidate: Equatable {
        case one(FormValue)
        case either([FormValue])
        case nearest([FormValue])
    }

    /// The values that pass the field's checks; one is the answer, several are asked back.
    static func choose(_ candidates: [Candidate], for field: FormField, today: FormDate) -> Reading {
        var fitting: [FormValue] = []
        var firstProblem: FieldProblem?
        func passing(_ value: FormValue) -> FormValue? {
            switch check(value, field: field, today: today) {
            case .success(let checked): return checked
            case .failure(let problem):
                if firstProblem == nil { firstProblem = problem }
                return nil
            }
        }
        for candidate in candidates {
            switch candidate {
            case .one(let value):
                if let checked = passing(value) { fitting.append(checked) }
            case .either(let values):
                fitting += values.compactMap(passing)
            case .nearest(let values):
                let passed = values.compactMap(passing)
                if let closest = passed.min(by: { distance($0, today) < distance($1, today) }) { fitting.append(closest) }
            }
        }
        var distinct: [FormValue] = []
        for value in fitting where !distinct.contains(value) { distinct.append(value) }
        switch distinct.count {
        case 0: return .problem(firstProblem ?? FieldProblem(message: "\(field.label): no answer found in that."))
        case 1: return .value(distinct[0], fromSentence: true)
        default: return .ambiguous(distinct)
        }
    }

    /// A value found in a sentence, through the same checks as a typed one.
    static func check(_ value: FormValue, field: FormField, today: FormDate) -> Result<FormValue, FieldProblem> {
        switch value {
        case .number(let number): return FieldCheck.checkNumber(number, field: field).map(FormValue.number)
        case .date(let date): return FieldCheck.checkDate(date, field: field, today: today).map(FormValue.date)
        case .text(let text) where field.type == .choice || field.type == .email:
            return field.type == .email ? FieldCheck.checkPattern(text, field: field).map(FormValue.text) : .success(value)
        case .text(let text): return FieldCheck.checkText(text, field: field).map(FormValue.text)
        case .bool, .skipped: return .success(value)
        }
    }

    /// For the nearest of a partial date's readings (ties go to the earlier one: forms ask
    /// about what happened more often than about what will).
    static func distance(_ value: FormValue, _ today: FormDate) -> Double {
        guard case .date(let date) = value else { return 0 }
        let days = date.dayNumber - today.dayNumber
        return Double(abs(days)) + (days > 0 ? 0.5 : 0)
    }

    static func reading(_ result: Result<FormValue, FieldProblem>, fromSentence: Bool) -> Reading {
        switch result {
        case .success(let value): return .value(value, fromSentence: fromSentence)
        case .failure(let problem): return .problem(problem)
        }
    }

    /// `Did you mean mobile app or web app?`
    public static func askBack(_ values: [FormValue], field: FormField) -> String {
        "Did you mean " + FieldCheck.listed(values.map { $0.display(unit: field.unit) }, "or") + "?"
    }
}

/// An answer as lower-cased words, punctuation around them taken off, for the readers that
/// look for words and phrases.
struct AnswerWords {
    let words: [String]

    init(_ text: String) {
        var words: [String] = []
        var current = ""
        for character in text.lowercased() {
            if character.isLetter || character.isNumber || character == "'" || character == "’" {
                current.append(character == "’" ? "'" : character)
            } else if !current.isEmpty {
                words.append(current)
                current = ""
            }
        }
        if !current.isEmpty { words.append(current) }
        self.words = words
    }

    /// Whether `phrase` (words) starts at `index`.
    func has(_ phrase: [String], at index: Int) -> Bool {
        guard index + phrase.count <= words.count else { return false }
        for (offset, word) in phrase.enumerated() where words[index + offset] != word { return false }
        return true
    }
}
