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
              emit: ProducedStream.Emitter<ReplyEvent>) async throws -> Outcome {
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
        try await emit(.status("reading your answer with \(sessionName)…"))
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

    /// The open question first, then the other unanswered fields the answer might fill.
    /// Long texts are left out unless asked: a model would rewrite them.
    static func fields(for conversation: FormConversation) -> [FormField] {
        guard let current = conversation.currentField else { return [] }
        return [current] + conversation.openFields(besides: current)
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
