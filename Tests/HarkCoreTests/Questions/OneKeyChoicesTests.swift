import Foundation
import Testing
@testable import HarkCore

/// A question of one field with fixed choices is answered with one key, as a tool call's
/// approval and n8n's buttons are; the key's value is what the agent's schema asks for.
struct OneKeyChoicesTests {
    static func question(_ schema: String) throws -> Question {
        Question(asker: "deployer", message: "Deploy v2.4.1?", kind: .form(try QuestionSchema.fields(of: try JSON.parse(schema))))
    }

    @Test func aChoiceOfTitlesTakesTheirFirstLettersAndSendsTheValues() throws {
        let question = try Self.question(#"""
        {"properties": {"decision": {"type": "string", "oneOf": [{"const": "approve", "title": "Approve"},
                                                                 {"const": "deny", "title": "Deny"}]}}, "required": ["decision"]}
        """#)
        let choices = try #require(OneKeyChoices(question))
        #expect(choices.prompt == "[a]pprove / [d]eny")
        #expect(choices.keys == ["a", "d"])
        #expect(choices.field == "decision")
        #expect(choices.value(for: "d") == "deny")
        #expect(choices.label(for: "a") == "Approve")
        #expect(choices.value(for: "x") == nil)
    }

    @Test func aYesNoFieldIsAnsweredYesOrNo() throws {
        let choices = try #require(OneKeyChoices(try Self.question(#"{"properties": {"go": {"type": "boolean"}}}"#)))
        #expect(choices.prompt == "[y]es / [n]o")
        #expect(choices.value(for: "y") == true)
        #expect(choices.value(for: "n") == false)
    }

    @Test func labelsSharingAFirstLetterAreNumbered() throws {
        let choices = try #require(OneKeyChoices(try Self.question(#"{"properties": {"size": {"enum": ["small", "standard", "large"]}}}"#)))
        #expect(choices.prompt == "[1] small / [2] standard / [3] large")
        #expect(choices.value(for: "2") == "standard")
    }

    @Test func formsOfTextOrOfSeveralFieldsAreAskedFieldByField() throws {
        #expect(OneKeyChoices(try Self.question(#"{"properties": {"name": {"type": "string"}}}"#)) == nil)
        #expect(OneKeyChoices(try Self.question(#"""
        {"properties": {"go": {"type": "boolean"}, "size": {"enum": ["s", "l"]}}}
        """#)) == nil)
        let many = (1...12).map { "\"c\($0)\"" }.joined(separator: ", ")
        #expect(OneKeyChoices(try Self.question(#"{"properties": {"pick": {"enum": [\#(many)]}}}"#)) == nil)
    }
}
