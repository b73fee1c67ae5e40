/// A form question asked in the input line, one line at a time: the local forms'
/// conversation (its reading of sentences, several answers in one, back, skip, change, the
/// summary to confirm) with what a question adds: `decline` says no to the agent, `cancel`
/// dismisses it, an empty line skips an optional field. Pure: the shell shows the lines.
public struct QuestionConversation: Sendable {
    public let question: Question
    private var form: FormConversation

    public enum Step: Sendable, Equatable {
        /// Lines to show; the question waits for the next line.
        case ask([String])
        /// The question is over: its outcome for the agent, and a last line to show.
        case done(QuestionOutcome, [String])
    }

    /// `answered`: values scripted answers already gave (`--answer`), not asked again.
    public init(question: Question, answered: [String: FormValue] = [:], today: FormDate) {
        self.question = question
        var progress = FormProgress()
        progress.answers = answered
        form = FormConversation(template: question.template, progress: progress, today: today)
    }

    /// The question's introduction and its first field (or the summary, when scripted
    /// answers gave every field).
    public mutating func begin() -> [String] {
        var lines = form.begin()
        lines.insert("Say decline to refuse, cancel to dismiss it; an empty line skips an optional question.", at: 2)
        return lines
    }

    public mutating func take(_ line: String) -> Step {
        let word = line.trimmed.lowercased().trimmingEnds(".!")
        if word == "decline" || word == "refuse" {
            return .done(.decline, ["Declined: " + (question.refusal ?? "\(question.asker) is told you said no") + "."])
        }
        var intent = form.intent(of: line)
        if word.isEmpty {
            guard form.progress.stage == .filling, let field = form.currentField else { return .ask(form.currentPrompt()) }
            // A required field with a default takes it (`skip`), as an optional one is left out.
            if field.required, form.progress.answers[field.id] == nil, field.defaultAnswer == nil {
                return .ask(["\(field.label) needs an answer (or say cancel)."] + form.currentPrompt())
            }
            intent = .skip
        }
        let lines = form.handle(intent)
        switch form.progress.stage {
        case .done, .submitted:
            return .done(.accept(question.values(form.progress.answers)), ["Sent to \(question.asker)."])
        case .cancelled:
            return .done(.cancel, ["Cancelled: " + (question.refusal ?? "\(question.asker) is told you dismissed it") + "."])
        case .filling, .review:
            return .ask(lines)
        }
    }

    /// The line shown when the question is dismissed with Ctrl-C or Ctrl-D.
    public var dismissedLine: String { question.refusal.map { "Cancelled: \($0)." } ?? "Cancelled." }

    /// The field being asked, for the prompt (nil at the summary).
    public var currentField: FormField? { form.currentField }
}
