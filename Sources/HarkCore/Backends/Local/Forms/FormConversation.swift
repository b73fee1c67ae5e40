/// The form as a conversation: reads what the user typed (an answer, or one of the words
/// back, skip, change, status, help, cancel) and answers with the lines to show next. Pure:
/// no I/O; the backend loads and saves the progress and asks a model when there is one.
public struct FormConversation: Sendable {
    public let template: FormTemplate
    public var progress: FormProgress
    public let today: FormDate

    public init(template: FormTemplate, progress: FormProgress = FormProgress(), today: FormDate) {
        self.template = template
        self.progress = progress
        self.today = today
    }

    public enum Intent: Sendable, Equatable {
        case answer(String)
        case back, skip, status, help, cancel
        /// `change FIELD` or `change FIELD to VALUE`: the words after "change".
        case change(String)
        /// In the review: yes, or no.
        case confirm, decline
        /// `actually it was 2.4.2`: the words after the marker, and the whole answer (which
        /// answers the open question if no earlier answer can take the words).
        case correct(String, original: String)
    }

    static let reservedWords: Set<String> = ["back", "skip", "status", "help", "cancel", "?"]

    /// What the user meant. A reserved word in quotes ("back") is an answer.
    public func intent(of input: String) -> Intent {
        let text = input.trimmed
        var word = text.lowercased()
        while let last = word.last, last == "." || last == "!" { word.removeLast() }
        if progress.stage == .review {
            if ["yes", "y", "ok", "okay", "done", "confirm", "submit", "send", "finish"].contains(word) { return .confirm }
            if ["no", "n", "not yet"].contains(word) { return .decline }
        }
        switch word {
        case "back", "go back", "previous": return .back
        case "skip": return .skip
        case "status", "progress": return .status
        case "help", "?": return .help
        case "cancel": return .cancel
        default: break
        }
        for verb in ["change", "edit"] where word == verb || word.hasPrefix(verb + " ") {
            let rest = String(text.dropFirst(verb.count)).trimmed
            // "Change password page crashes" answers a question; "change emial" is a typo.
            if progress.stage == .review || rest.isEmpty || resolveChange(rest) != nil || looksLikeAFieldName(rest) {
                return .change(rest)
            }
        }
        if let words = Self.correction(text) { return .correct(words, original: text) }
        if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") {
            let inner = String(text.dropFirst().dropLast())
            if Self.reservedWords.contains(inner.lowercased()) || inner.lowercased().hasPrefix("change ") { return .answer(inner) }
        }
        return .answer(text)
    }

    public var currentField: FormField? { progress.current.flatMap(template.field) }

    /// The fields asked with the answers so far, in order.
    public var askedFields: [FormField] { template.fields.filter { isAsked($0) } }

    func isAsked(_ field: FormField) -> Bool { template.isAsked(field, answers: progress.answers) }

    public var answeredCount: Int { askedFields.filter { progress.answers[$0.id] != nil }.count }

    /// `2/8`: the place of `field` (by default the open question) among the questions asked with
    /// the answers so far, and how many those are. A question's header and the prompt's badge
    /// both show this, so the two agree; the template's count would add questions that apply
    /// only after some answer (the travel form's distance, asked only for an own car).
    public func place(of field: FormField? = nil) -> String {
        let asked = askedFields
        let index = (field ?? currentField).flatMap { field in asked.firstIndex { $0.id == field.id } }
        return "\((index ?? answeredCount) + 1)/\(asked.count)"
    }

    func check(_ text: String, _ field: FormField) -> Result<FormValue, FieldProblem> {
        FieldCheck.value(text, for: field, today: today)
    }

    /// What the rules read for a field: the exact forms, then the value inside a sentence.
    func read(_ text: String, _ field: FormField) -> Reading {
        AnswerReader.read(text, for: field, today: today)
    }

    /// The unanswered fields besides `current` that an answer may fill in passing: long texts
    /// left out, conditional ones included while their condition may yet hold.
    func openFields(besides current: FormField) -> [FormField] {
        let answers = progress.answers
        func couldBeAsked(_ field: FormField) -> Bool {
            guard let condition = field.condition, let source = template.field(condition.field) else { return true }
            guard answers[source.id] != nil else { return couldBeAsked(source) }
            return template.isAsked(field, answers: answers)
        }
        return template.fields.filter { $0.id != current.id && answers[$0.id] == nil && $0.type != .multiline && couldBeAsked($0) }
    }

    /// What the rules make of an answer to `field`: values other clauses give for other
    /// fields, and the reading of the rest (nil when nothing is left). A model is asked only
    /// when this reading is a problem.
    func rulesReading(_ text: String, for field: FormField) -> (SeveralAnswers, Reading?) {
        let several = SeveralAnswers(text, current: field, conversation: self)
        return (several, several.rest.isEmpty ? nil : read(several.rest, field))
    }

    // MARK: Starting

    /// The form's introduction and its first question.
    public mutating func begin() -> [String] {
        let count = template.fields.count
        var lines = [template.title + (template.description.map { ": " + $0 } ?? "")]
        lines.append("\(count) question\(count == 1 ? "" : "s")\(template.hasConditions ? ", some only if they apply" : ""). "
            + "Say help at any time to see what else you can say.")
        return lines + nextOpenQuestion()
    }

    /// Where the form stands, and its open question (or the summary).
    public mutating func resume() -> [String] {
        let lines = ["Back to \(template.title): \(answeredCount) of \(askedFields.count) answered."]
        if progress.stage == .review { return lines + summary() }
        if let field = currentField, isAsked(field) { return lines + question(field) }
        return lines + nextOpenQuestion()
    }

    // MARK: Answering

    /// Handles one message. `extracted` holds values a model read from an answer, by field id.
    public mutating func handle(_ intent: Intent, extracted: [String: JSON]? = nil) -> [String] {
        switch intent {
        case .answer(let text): return answer(text, extracted: extracted)
        case .back: return back()
        case .skip: return skip()
        case .change(let words): return change(words)
        case .status: return status()
        case .help: return help()
        case .cancel:
            progress.stage = .cancelled
            progress.current = nil
            return ["Cancelled \(template.title); plain messages are notes again."]
        case .confirm:
            progress.stage = .done
            progress.current = nil
            return ["\(template.title) is complete."]
        case .decline:
            let example = askedFields.first?.id ?? "FIELD"
            return ["What should change? Say change FIELD (e.g. change \(example)), yes to finish, or cancel."]
        case .correct(let words, let original): return correct(words, original: original)
        }
    }

    mutating func answer(_ text: String, extracted: [String: JSON]?) -> [String] {
        guard progress.stage == .filling, let field = currentField else {
            return ["The form waits for your confirmation: say yes to finish, change FIELD to correct an answer, or cancel."]
        }
        if let proposal = progress.proposal, proposal.field == field.id, Self.takesProposal(text) {
            progress.answers[field.id] = proposal.value
            progress.proposal = nil
            return ["\(field.label): \(proposal.value.display(unit: field.unit))."] + advance(from: field)
        }
        var noted: [(FormField, FormValue)] = []
        let (several, reading) = rulesReading(text, for: field)
        for claim in several.claims {
            progress.answers[claim.field.id] = claim.value
            noted.append((claim.field, claim.value))
        }
        var value: FormValue?
        var problem: String?
        switch reading {
        case .value(let read, let fromSentence)?:
            value = read
            if fromSentence || !several.claims.isEmpty { noted.insert((field, read), at: 0) }
        case .ambiguous(let values)?:
            problem = AnswerReader.askBack(values, field: field)
        case .problem(let failure)?:
            problem = failure.message
        case nil:
            break
        }
        // A model's proposal, only where the rules found nothing, and checked like an answer.
        if let extracted {
            if value == nil, reading.map({ if case .problem = $0 { return true } else { return false } }) ?? true,
               let read = extracted[field.id].flatMap(FormValue.answerText), case .value(let checked, _) = self.read(read, field) {
                value = checked
                problem = nil
                noted.insert((field, checked), at: 0)
            }
            for other in template.fields where other.id != field.id && progress.answers[other.id] == nil {
                guard let read = extracted[other.id].flatMap(FormValue.answerText),
                      case .value(let checked, _) = self.read(read, other) else { continue }
                progress.answers[other.id] = checked
                noted.append((other, checked))
            }
        }
        if let value {
            progress.answers[field.id] = value
            progress.proposal = nil
        }
        var lines = noted.map { "Noted \($0.0.label): \($0.1.display(unit: $0.0.unit))." }
        if !several.unused.isEmpty { lines.append("Left out: \(several.unused.joined(separator: ", ")) (no question asks for it).") }
        if let problem { return lines + [problem] }
        if value == nil { return lines + question(field) }
        return lines + advance(from: field)
    }

    /// A yes to a value proposed from the documents.
    static func takesProposal(_ text: String) -> Bool {
        var word = text.trimmed.lowercased()
        while let last = word.last, last == "." || last == "!" { word.removeLast() }
        return ["yes", "y", "ok", "okay", "yep", "sure", "correct", "right", "that's right", "take it", "use it", "yes please"]
            .contains(word)
    }

    /// The question after `field`: the next one in order while walking after "back", else
    /// the first unanswered one (which is where the user was before a correction).
    mutating func advance(from field: FormField) -> [String] {
        if progress.walking, let position = template.position(of: field.id) {
            if let next = template.fields[(position + 1)...].first(where: { isAsked($0) }) {
                progress.current = next.id
                if progress.answers[next.id] == nil { progress.walking = false }
                return question(next)
            }
            progress.walking = false
        }
        return nextOpenQuestion()
    }

    /// The first unanswered question, or the summary when there is none.
    mutating func nextOpenQuestion() -> [String] {
        if let next = askedFields.first(where: { progress.answers[$0.id] == nil }) {
            progress.stage = .filling
            progress.current = next.id
            return question(next)
        }
        progress.stage = .review
        progress.current = nil
        progress.walking = false
        return summary()
    }

    mutating func status() -> [String] {
        let asked = askedFields
        var lines = ["\(template.title): \(answeredCount) of \(asked.count) answered."]
        lines += rows(asked.filter { progress.answers[$0.id] != nil })
        return lines + [""] + currentPrompt()
    }

    mutating func help() -> [String] {
        var lines: [String] = []
        if progress.stage == .filling, let field = currentField {
            lines.append("\(field.label): " + (field.help ?? "answer with " + hint(field) + "."))
        }
        lines.append("Besides answering you can say: back (the question before), skip (leave an optional question out), "
            + "change FIELD (correct an answer; change FIELD to VALUE sets it at once), status (your answers so far), "
            + "cancel (drop the form). To answer with one of these words, put it in quotes.")
        return lines + [""] + currentPrompt()
    }

    /// The open question again, or the review's request for a yes.
    mutating func currentPrompt() -> [String] {
        if progress.stage == .filling, let field = currentField { return question(field) }
        if progress.stage == .review { return [reviewRequest] }
        return []
    }
}
