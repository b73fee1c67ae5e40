import FoundationEssentials
import Glibc

/// Reads the open question's value out of a free-text answer ("I was using it on my phone")
/// with a model: another session (an `openai` one, say a local llama.cpp server) is asked for
/// one JSON object that fits the field's schema (FormSchema), sent as its server's
/// structured-output option, in at most `timeLimit` seconds. What comes back is only a
/// proposal: the value still goes through the field's checks. Any failure, the time running
/// out included, is one notice, and the rules read the answer instead.
///
/// Only the open question's field is asked for. Offered the other open fields too, SmolLM2
/// filled them with guesses that pass their checks (a severity, yes for "reproducible") and
/// took three times as long (4.1 s against 0.9–1.5 s a read, warm, on two loaded cores); the
/// rules still take other fields' values from the same answer (SeveralAnswers).
struct FormModelReader: Sendable {
    let sessionName: String
    let sessions: SessionDirectory?
    /// `llm_timeout`: how long a person waits for the model before the rules read the answer.
    let timeLimit: Double?

    static let defaultTimeLimit = 5.0

    enum Outcome: Equatable {
        case values([String: JSON])
        /// Why the model could not be used, as a notice for the user.
        case failed(String)
    }

    func read(_ answer: String, conversation: FormConversation,
              emit: ProducedStream.Emitter<ReplyEvent>) async throws -> Outcome {
        let fallback = "your answer was read by the rules"
        guard let current = conversation.currentField else { return .values([:]) }
        let backend: any StructuredReplying
        do {
            guard let sessions else { throw HarkError.unknownSession(sessionName, suggestion: nil) }
            let (found, config) = try sessions.backend(named: sessionName)
            guard config.kind != LocalBackend.name, let model = found as? StructuredReplying else {
                return .failed("llm names \(sessionName), a \(config.kind) session; it must be a model's session (kind openai); \(fallback)")
            }
            backend = model
        } catch {
            return .failed("the llm session \(sessionName) cannot be used (\(error.userMessage)); \(fallback)")
        }
        try await emit(.status("reading your answer with \(sessionName)…"))
        let prompt = Self.prompt(answer: answer, current: current, today: conversation.today)
        let query = StructuredQuery(session: sessionName, backend: backend, timeLimit: timeLimit)
        switch try await query.ask(prompt, format: FormSchema.format(current: current, others: []),
                                   progress: { try await emit($0) }) {
        case .object(let object):
            // A server that ignores the schema may send other fields: they were not asked for.
            let given = object.filter { $0.key == current.id && !$0.value.isNull }
            guard let text = given[current.id].flatMap(FormValue.answerText) else {
                return .failed("\(sessionName) found no \(current.label) in it; \(fallback)")
            }
            guard conversation.read(text, current).value != nil else {
                return .failed("\(sessionName) read \(FieldCheck.quoted(text)), which \(current.label) does not take; \(fallback)")
            }
            return .values(given)
        case .failed(let reason):
            return .failed(reason + "; " + fallback)
        }
    }

    /// Whether an answer needs a model: only when the rules cannot read the open question's
    /// value from it (`whenever the server is busy` for a yes/no question). What the rules
    /// read, and answers that are ambiguous (asked back instead), never go to a model; long
    /// texts are kept as written.
    static func wants(_ answer: String, conversation: FormConversation) -> Bool {
        guard conversation.progress.stage == .filling, let field = conversation.currentField, field.type != .multiline else {
            return false
        }
        if case .problem = conversation.rulesReading(answer, for: field).1 { return true }
        return false
    }

    /// Short, for a small model on a small machine: the schema says the rest. What comes
    /// before the answer is the same for every answer to a question, so a server's prompt
    /// cache holds it.
    static func prompt(answer: String, current: FormField, today: FormDate) -> String {
        [
            "Fill in a form field from the answer below, as one JSON object. Copy the value as the answer writes it; "
                + "do not guess. Today is \(today).",
            "The question was \"\(current.question)\": \"\(current.id)\" is \(kind(of: current)), or null if the answer does not say.",
            "Answer: " + answer,
        ].joined(separator: "\n")
    }

    static func kind(of field: FormField) -> String {
        switch field.type {
        case .text, .multiline: return "text"
        case .email: return "an email address"
        case .number: return "a number" + (field.unit.map { " in \($0)" } ?? "")
        case .date: return "a date written YYYY-MM-DD"
        case .choice: return "one of " + field.choices.map { "\"\($0)\"" }.joined(separator: ", ")
        case .yesno: return "true or false"
        }
    }
}
