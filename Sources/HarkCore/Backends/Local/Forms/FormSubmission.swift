import FoundationEssentials
import Glibc

/// Sends a finished form to the session its template names in `submit` (an n8n workflow
/// behind a webhook session: the seed's "modules"). The answers go as the message, a JSON
/// object, with the form's uid as the thread's server id, so the workflow sees one session
/// per form even when it is sent again.
struct FormSubmission: Sendable {
    let sessions: SessionDirectory?

    /// `{"form": NAME, "title": …, "form_id": UID, "submitted_at": ISO, "answers": {id: value}}`.
    static func payload(_ record: FormRecord, template: FormTemplate, at time: Date) -> String {
        let asked = FormConversation(template: template, progress: record.progress,
                                     today: FormDate(year: 2000, month: 1, day: 1)!).askedFields
        var answers: [String: JSON] = [:]
        for field in asked { answers[field.id] = record.progress.answers[field.id]?.json ?? .null }
        let object: JSON = ["form": .string(record.templateName), "title": .string(record.title),
                            "form_id": .string(record.uid), "submitted_at": .string(TimeFormat.iso8601(time)),
                            "answers": .object(answers)]
        return object.encoded()
    }

    /// The receiving session's reply text.
    func send(_ record: FormRecord, template: FormTemplate, to name: String, at time: Date,
              emit: ProducedStream.Emitter<ReplyEvent>) async throws -> String {
        guard let sessions else { throw HarkError.unknownSession(name, suggestion: nil) }
        let (backend, config) = try sessions.backend(named: name)
        guard config.kind != LocalBackend.name else {
            throw HarkError.usage("\(name) is a local session; submit must name a webhook session")
        }
        try await emit(.status("sending \(record.title) to \(name)…"))
        let thread = ChatThread(id: record.threadID, session: name, title: record.title, backendID: record.uid,
                                createdAt: record.createdAt, updatedAt: time)
        var reply = ""
        for try await event in backend.send(ChatRequest(text: Self.payload(record, template: template, at: time), thread: thread)) {
            if case .text(let piece) = event { reply += piece }
            if case .finished = event { break }
        }
        return reply.trimmed
    }
}
