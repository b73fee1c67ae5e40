import Foundation
import Testing
@testable import HarkCore

/// The question model: MCP's flat elicitation schema read into fields, answered in the input
/// line with the local forms' reading of sentences, and given back as the server's schema
/// wants it. The schema is the one the MCP Python SDK 2.3 renders for a pydantic model
/// (mcp/server/elicitation.py, `render_elicitation_schema`), as Tests/Fixtures/mcp/
/// elicit_server.py sends it.
struct QuestionTests {
    static let registration = try! JSON.parse(#"""
    {"properties": {"name": {"description": "Your name", "title": "Name", "type": "string"},
                    "count": {"description": "How many tickets", "maximum": 10, "minimum": 1, "title": "Count", "type": "integer"}},
     "required": ["name", "count"], "title": "Registration", "type": "object"}
    """#)
    static let today = FormDate(year: 2026, month: 3, day: 7)!

    static func question(_ schema: JSON = registration) throws -> Question {
        Question(asker: "mcp tickets", message: "Who is coming?", kind: .form(try QuestionSchema.fields(of: schema)))
    }

    static func answers(_ lines: [String], _ question: Question) -> (QuestionConversation.Step, [String]) {
        var conversation = QuestionConversation(question: question, today: today)
        var shown = conversation.begin()
        var step = QuestionConversation.Step.ask([])
        for line in lines {
            step = conversation.take(line)
            if case .ask(let lines) = step { shown += lines }
        }
        return (step, shown)
    }

    @Test func theSDKsSchemaBecomesFields() throws {
        let fields = try Self.question().fields
        #expect(fields.map(\.field.id) == ["name", "count"])
        #expect(fields[0].field.type == .text && fields[0].field.required)
        #expect(fields[1].field.type == .number && fields[1].field.integer)
        #expect(fields[1].field.minimum == 1 && fields[1].field.maximum == 10)
        #expect(fields[0].field.question == "Your name")
    }

    @Test func answeredFieldByFieldInSentencesTheServerGetsItsTypes() throws {
        let (step, shown) = Self.answers(["I'm Ann", "three of them", "yes"], try Self.question())
        #expect(shown.contains { $0.hasPrefix("1/2 Name: Your name") })
        #expect(shown.contains { $0.hasPrefix("2/2 Count: How many tickets") })
        #expect(shown.contains("Please check your answers:"))
        guard case .done(.accept(let values), _) = step else {
            Issue.record("not accepted: \(step)")
            return
        }
        #expect(values == ["name": "Ann", "count": 3])
        #expect(values.encoded() == #"{"count":3,"name":"Ann"}"#)
    }

    @Test func aNumberOutOfBoundsIsAskedAgain() throws {
        let (step, shown) = Self.answers(["Ann", "twelve"], try Self.question())
        guard case .ask = step else {
            Issue.record("ended: \(step)")
            return
        }
        #expect(shown.contains { $0.contains("Count") && $0.contains("10") })
    }

    @Test func declineAndCancelEndTheQuestionAsSuch() throws {
        #expect(Self.answers(["decline"], try Self.question()).0 == .done(.decline, ["Declined: mcp tickets is told you said no."]))
        guard case .done(.cancel, _) = Self.answers(["Ann", "cancel"], try Self.question()).0 else {
            Issue.record("not cancelled")
            return
        }
    }

    @Test func anEmptyLineSkipsAnOptionalFieldOnly() throws {
        let schema = try JSON.parse(#"{"properties": {"name": {"type": "string"}, "note": {"type": "string", "title": "Note"}}, "required": ["name"]}"#)
        let question = try Self.question(schema)
        let (required, shown) = Self.answers([""], question)
        #expect(shown.contains("name needs an answer (or say cancel)."))
        guard case .ask = required else {
            Issue.record("ended: \(required)")
            return
        }
        let (step, _) = Self.answers(["Ann", "", "yes"], question)
        #expect(step == .done(.accept(["name": "Ann"]), ["Sent to mcp tickets."]))
    }

    @Test func enumsWithTitlesDefaultsBooleansAndFormats() throws {
        let schema = try JSON.parse(#"""
        {"properties": {
           "size": {"type": "string", "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}], "default": "l"},
           "color": {"type": "string", "enum": ["red", "green"]},
           "agree": {"type": "boolean", "default": true},
           "email": {"type": "string", "format": "email"},
           "day": {"type": "string", "format": "date"},
           "api_token": {"type": "string"}},
         "required": ["size", "color", "agree", "email", "day", "api_token"]}
        """#)
        let question = try Self.question(schema)
        let size = try #require(question.fields.first { $0.field.id == "size" })
        #expect(size.field.type == .choice && size.field.choices == ["Small", "Large"])
        #expect(size.field.defaultAnswer == "Large")
        #expect(question.fields.first { $0.field.id == "agree" }?.field.type == .yesno)
        #expect(question.fields.first { $0.field.id == "email" }?.field.type == .email)
        #expect(question.fields.first { $0.field.id == "day" }?.field.type == .date)
        #expect(question.fields.first { $0.field.id == "api_token" }?.isSecret == true)

        var scripted = ScriptedAnswers()
        try scripted.add(pairs: ["size=s", "color=green", "agree=no", "email=ann@example.org", "day=yesterday", "api_token=abc123"])
        let (answers, problems) = scripted.fill(question, today: Self.today)
        #expect(problems.isEmpty)
        let values = question.values(answers)
        #expect(values == ["size": "s", "color": "green", "agree": false, "email": "ann@example.org", "day": "2026-03-06",
                           "api_token": "abc123"])
        #expect(question.masked(values)["api_token"] == "••••")
        #expect(question.masked(values)["email"] == "ann@example.org")
    }

    @Test func scriptedAnswersAreCheckedAsTypedOnes() throws {
        let question = try Self.question()
        var scripted = ScriptedAnswers()
        try scripted.add(pairs: ["name=Ann", "count=three"])
        var (answers, problems) = scripted.fill(question, today: Self.today)
        #expect(problems.isEmpty)
        #expect(ScriptedAnswers.complete(question, &answers, today: Self.today))
        #expect(question.values(answers) == ["name": "Ann", "count": 3])

        var wrong = ScriptedAnswers()
        try wrong.add(pairs: ["count=40"])
        let (_, refused) = wrong.fill(question, today: Self.today)
        #expect(refused.count == 1 && refused[0].hasPrefix("--answer count: "))
        #expect(throws: HarkError.self) { try wrong.add(pairs: ["count"]) }
    }

    @Test func whatCannotBeAskedSaysWhy() {
        let array = try! JSON.parse(#"{"properties": {"tags": {"type": "array", "items": {"enum": ["a", "b"]}}}}"#)
        #expect(throws: QuestionSchema.Unsupported.self) { try QuestionSchema.fields(of: array) }
        #expect(throws: QuestionSchema.Unsupported.self) { try QuestionSchema.fields(of: ["type": "object"]) }
    }
}

extension QuestionTests {
    /// Both fields in one sentence: the name after `I'm`, the only number field takes the number.
    @Test func bothFieldsFromOneSentence() throws {
        let (step, shown) = Self.answers(["I'm Ann, three of them", "yes"], try Self.question())
        #expect(shown.contains("Noted Name: Ann."))
        #expect(shown.contains("Noted Count: 3."))
        #expect(step == .done(.accept(["name": "Ann", "count": 3]), ["Sent to mcp tickets."]))
    }
}
