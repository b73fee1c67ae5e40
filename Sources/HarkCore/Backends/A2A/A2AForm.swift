/// A form an A2A agent asks in an `input-required` status: a data part describing the fields
/// it needs, asked with the question engine and answered with a data part in the same task.
/// Two shapes are read:
/// - the A2A samples' form (a2aproject/a2a-samples, samples/python/agents/adk_expense_reimbursement
///   agent.py `return_form`, sent by its executor as the status message's DataPart):
///   `{"type": "form", "form": JSON schema, "form_data": {field: value}, "instructions"}`, where
///   `form_data` holds values already known and `<…>` placeholders for the rest (the demo
///   client, demo/ui/components/form_render.py, fills its inputs with them);
/// - a bare JSON schema: `{"type": "object", "properties": {…}, "required", "title"}`.
/// Fields are read as MCP elicitation's (QuestionSchema). Any other data part, or a schema with
/// a field hark cannot ask, is not a form: it is shown as JSON and answered in words.
struct A2AForm: Sendable, Equatable {
    var fields: [QuestionField]
    /// What the agent says it wants: the form's instructions or title, else its message's text.
    var message: String

    /// The form in a status message's parts, if one of its data parts is one.
    init?(parts: [A2AWire.Part]) {
        let said = parts.compactMap { part -> String? in if case .text(let text) = part { return text } else { return nil } }
            .joined().trimmed
        for part in parts {
            guard case .data(let data) = part, let found = A2AFormShape.schema(in: data),
                  let fields = try? QuestionSchema.fields(of: found.schema) else { continue }
            self.fields = fields
            let message = found.wording ?? said
            self.message = message.isEmpty ? "a few answers, please" : message
            return
        }
        return nil
    }

    /// The question the shell (or `--answer`) answers; `asker` is the session's name.
    func question(asker: String) -> Question {
        var question = Question(asker: asker, message: message, kind: .form(fields))
        question.refusal = "the task stays input-required (your next message answers it)"
        return question
    }
}
