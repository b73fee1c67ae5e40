import FoundationEssentials
import Glibc

/// Reads field values out of a free-text answer ("I'm Ann Lee, reach me at ann@x.org") with
/// a model: another session (an `openai` one, say a local llama.cpp server) is asked for one
/// JSON object by a prompt that lists the fields. What comes back is only a proposal: every
/// value still goes through the fields' checks. Any failure is reported, and the rules read
/// the answer instead.
struct FormModelReader: Sendable {
    let sessionName: String
    let sessions: SessionDirectory?

    enum Outcome: Equatable {
        case values([String: JSON])
        /// Why the model could not be used, as a notice for the user.
        case failed(String)
    }

    func read(_ answer: String, conversation: FormConversation,
              emit: @Sendable (ReplyEvent) -> Void) async -> Outcome {
        let fallback = "your answer was read by the rules"
        guard let current = conversation.currentField else { return .values([:]) }
        let backend: any Backend
        do {
            guard let sessions else { throw HarkError.unknownSession(sessionName, suggestion: nil) }
            let (found, config) = try sessions.backend(named: sessionName)
            guard config.kind != LocalBackend.name else {
                return .failed("llm names \(sessionName), a local session; it must be a model's session (kind openai); \(fallback)")
            }
            backend = found
        } catch {
            return .failed("the llm session \(sessionName) cannot be used (\(error.userMessage)); \(fallback)")
        }
        emit(.status("reading your answer with \(sessionName)…"))
        let prompt = Self.prompt(answer: answer, fields: Self.fields(for: conversation), current: current,
                                 today: conversation.today)
        let now = Date()
        let thread = ChatThread(id: 0, session: sessionName, title: "form", backendID: nil, createdAt: now, updatedAt: now)
        var reply = ""
        do {
            for try await event in backend.send(ChatRequest(text: prompt, thread: thread)) {
                if case .text(let piece) = event { reply += piece }
                if case .finished = event { break }
            }
        } catch is CancellationError {
            return .failed("reading with \(sessionName) was stopped; \(fallback)")
        } catch {
            return .failed("\(sessionName) failed (\(error.userMessage)); \(fallback)")
        }
        guard let object = Self.object(in: reply) else {
            return .failed("\(sessionName) did not answer with a JSON object; \(fallback)")
        }
        return .values(object)
    }

    /// Whether an answer is worth a model's reading: short texts may carry several values
    /// ("I'm Ann Lee, reach me at ann@x.org"), and answers the rules cannot read may still make
    /// sense ("yes, every time"). Long texts are kept as written; clear answers need no model.
    static func wants(_ answer: String, conversation: FormConversation) -> Bool {
        guard conversation.progress.stage == .filling, let field = conversation.currentField else { return false }
        switch field.type {
        case .multiline: return false
        case .text: return true
        default: return (try? conversation.check(answer, field).get()) == nil
        }
    }

    /// The open question first, then the other unanswered fields the answer might fill.
    /// Long texts are left out unless asked: a model would rewrite them.
    static func fields(for conversation: FormConversation) -> [FormField] {
        guard let current = conversation.currentField else { return [] }
        let template = conversation.template
        let answers = conversation.progress.answers
        func couldBeAsked(_ field: FormField) -> Bool {
            guard let condition = field.condition, let source = template.field(condition.field) else { return true }
            guard answers[source.id] != nil else { return couldBeAsked(source) }
            return template.isAsked(field, answers: answers)
        }
        return [current] + template.fields.filter { field in
            field.id != current.id && answers[field.id] == nil && field.type != .multiline && couldBeAsked(field)
        }
    }

    static func prompt(answer: String, fields: [FormField], current: FormField, today: FormDate) -> String {
        var lines = [
            "Read the answer below and fill in form fields from it. Reply with one JSON object and nothing else: "
                + "no explanation, no code fence.",
            "Use only these keys, and leave a key out when the answer does not give its value:",
        ]
        for field in fields {
            lines.append("\"\(field.id)\": \(kind(of: field)) (\(field.label))")
        }
        lines.append("The question asked was \"\(current.question)\" (key \"\(current.id)\").")
        lines.append("Copy values as the answer writes them; do not guess or add any. Today is \(today).")
        lines.append("")
        lines.append("Answer: " + answer)
        return lines.joined(separator: "\n")
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

    /// The JSON object in a model's reply, which may wrap it in a code fence or a sentence.
    static func object(in reply: String) -> [String: JSON]? {
        guard let open = reply.firstIndex(of: "{"), let close = reply.lastIndex(of: "}"), open < close else { return nil }
        return (try? JSON.parse(String(reply[open...close])))?.object
    }
}
