import Foundation
import Testing
@testable import HarkCore

/// The forms an A2A agent asks in an input-required status: the A2A samples' shape
/// (a2aproject/a2a-samples, samples/python/agents/adk_expense_reimbursement/agent.py
/// `return_form`) and a bare JSON schema; anything else stays text.
struct A2AFormTests {
    /// The reimbursement agent's form as its `return_form` writes it.
    static let samplesForm = try! JSON.parse(#"""
    {"type": "form",
     "form": {"type": "object",
              "properties": {"date": {"type": "string", "format": "date", "description": "Date of expense", "title": "Date"},
                             "amount": {"type": "string", "format": "number", "description": "Amount of expense", "title": "Amount"},
                             "purpose": {"type": "string", "description": "Purpose of expense", "title": "Purpose"},
                             "request_id": {"type": "string", "description": "Request id", "title": "Request ID"}},
              "required": ["request_id", "date", "amount", "purpose"]},
     "form_data": {"request_id": "request_id_1234567", "date": "<transaction date>", "amount": "<transaction dollar amount>",
                   "purpose": "lunch with a customer"},
     "instructions": "Please fill in the expense."}
    """#)

    @Test func theSamplesFormIsAskedWithItsKnownValuesAsDefaults() throws {
        let form = try #require(A2AForm(parts: [.text("I need a few details."), .data(Self.samplesForm)]))
        #expect(form.message == "Please fill in the expense.")
        let byName = Dictionary(uniqueKeysWithValues: form.fields.map { ($0.field.id, $0.field) })
        #expect(byName["date"]?.type == .date)
        #expect(byName["request_id"]?.defaultAnswer == "request_id_1234567")
        #expect(byName["purpose"]?.defaultAnswer == "lunch with a customer")
        // Placeholders are no answers.
        #expect(byName["date"]?.defaultAnswer == nil && byName["amount"]?.defaultAnswer == nil)
        #expect(form.fields.filter { !$0.field.required }.isEmpty)
        let question = form.question(asker: "expenses")
        #expect(question.asker == "expenses")
        #expect(question.refusal == "the task stays input-required (your next message answers it)")
    }

    @Test func aBareSchemaIsAFormWordedByItsTitleOrTheMessage() throws {
        let schema = try JSON.parse(#"{"type": "object", "title": "Deploy?", "properties": {"go": {"type": "boolean"}}}"#)
        #expect(A2AForm(parts: [.data(schema)])?.message == "Deploy?")
        let untitled = try JSON.parse(#"{"properties": {"go": {"type": "boolean"}}}"#)
        #expect(A2AForm(parts: [.text("Shall I deploy? "), .data(untitled)])?.message == "Shall I deploy?")
    }

    @Test func otherDataAndSchemasHarkCannotAskStayText() throws {
        #expect(A2AForm(parts: [.data(try JSON.parse(#"{"flights": 1, "cheapest": "ZRH-LIS"}"#))]) == nil)
        #expect(A2AForm(parts: [.data(try JSON.parse(#"{"type": "form", "form": {"fields": []}}"#))]) == nil)
        #expect(A2AForm(parts: [.data(try JSON.parse(#"{"properties": {"tags": {"type": "array"}}}"#))]) == nil)
        #expect(A2AForm(parts: [.text("Which city?")]) == nil)
        // The reply holds back what is shaped like a form; the backend shows the array one as JSON.
        #expect(A2AReplyProgress.isForm(.data(try JSON.parse(#"{"properties": {"tags": {"type": "array"}}}"#))))
        #expect(!A2AReplyProgress.isForm(.data(try JSON.parse(#"{"flights": 1}"#))))
    }

    @Test func answersGoAsADataPartInTheTaskAndContext() {
        let answers: JSON = ["name": "Ann", "count": 3]
        let current = A2AWire.message(text: "", data: answers, files: [], messageID: "m", contextID: "c", taskID: "t", version: .v1_0)
        #expect(current["parts"] == [["data": answers]])
        #expect(current["taskId"] == "t" && current["contextId"] == "c")
        let older = A2AWire.message(text: "", data: answers, files: [], messageID: "m", contextID: "c", taskID: "t", version: .v0_3)
        #expect(older["parts"] == [["kind": "data", "data": answers]])
    }

    @Test func theFormHoldsTheReplyUntilAnsweredAndASnapshotOfItIsNoNewQuestion() throws {
        let progress = A2AReplyProgress()
        var events: [ReplyEvent] = []
        var asked = A2AWire.Message(parts: [.text("Fill this in."), .data(Self.samplesForm)], taskID: "t", contextID: "c")
        asked.messageID = "q1"
        let waiting = A2AWire.Status(state: .inputRequired, message: asked)
        try progress.apply(.status(taskID: "t", contextID: "c", waiting), into: &events)
        // The words are shown, the form's JSON is not, and the reply does not end yet.
        #expect(events.compactMap { if case .text(let text) = $0 { text } else { nil } } == ["Fill this in."])
        #expect(!events.contains { if case .finished = $0 { true } else { false } })
        #expect(progress.isSettled)
        #expect(progress.takeForm() != nil)
        #expect(progress.takeForm() == nil)

        progress.resumeAfterAnswer()
        events = []
        try progress.apply(.task(.init(id: "t", contextID: "c", status: waiting, artifacts: [])), into: &events)
        #expect(!progress.isSettled)
        try progress.apply(.status(taskID: "t", contextID: "c", .init(state: .working, message: nil)), into: &events)
        try progress.apply(.status(taskID: "t", contextID: "c", .init(state: .completed, message: nil)), into: &events)
        #expect(events == [.status("working"), .status("completed"), .finished(reason: "completed")])
    }
}
