import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// Choices with other words for them (`"mobile app": ["phone", "iphone"]`): the rules read
/// the common answers with no model, and a template that gives one word to two choices is
/// refused when it is read.
@Suite struct ChoiceSynonymsTests {
    static let today = FormDate(year: 2026, month: 3, day: 7)!

    static func shipped(_ name: String) throws -> FormTemplate {
        let path = TestHome.shippedPrompts + "/forms/\(name).json"
        return try FormTemplateParser.parse(try String(contentsOfFile: path, encoding: .utf8), name: name, path: path)
    }

    static func read(_ answer: String, _ field: FormField) -> Reading { AnswerReader.read(answer, for: field, today: today) }

    @Test func theShippedFormsReadCommonAnswersByTheirSynonyms() throws {
        let bug = try Self.shipped("bug-report")
        let product = try #require(bug.field("product"))
        #expect(product.synonyms["mobile app"]?.contains("phone") == true)
        let rows: [(FormField, String, FormValue)] = [
            (product, "I was using it on my phone", .text("mobile app")),
            (product, "iPhone", .text("mobile app")),
            (product, "on Android", .text("mobile app")),
            (product, "in the browser", .text("web app")),
            (product, "in Firefox", .text("web app")),
            (try #require(bug.field("severity")), "just cosmetic", .text("low")),
            (try #require(bug.field("severity")), "we lost data", .text("critical")),
            (try #require(try Self.shipped("travel-expense").field("transport")), "I flew", .text("plane")),
            (try #require(try Self.shipped("travel-expense").field("transport")), "took a taxi", .text("other")),
            (try #require(try Self.shipped("new-contact").field("relationship")), "a client of ours", .text("customer")),
        ]
        for (field, answer, expected) in rows {
            #expect(Self.read(answer, field).value == expected, "\(answer)")
        }
        // A synonym said in the negative leaves its choice out; two choices named are asked back.
        #expect(Self.read("not on my phone, in the browser", product).value == .text("web app"))
        #expect(Self.read("on my phone and in the browser", product) == .ambiguous([.text("web app"), .text("mobile app")]))
        // Typed alone, a synonym is the choice, as its full name is.
        #expect(FieldCheck.value("Phone", for: product, today: Self.today) == .success(.text("mobile app")))
    }

    @Test func aTemplatesSynonymsAreCheckedWhenItIsRead() {
        func problem(_ synonyms: String) -> String? {
            do {
                _ = try FormTemplateParser.parse(#"{"fields": [{"id": "p", "type": "choice", "choices": ["web app", "mobile app"], "synonyms": "#
                    + synonyms + "}]}", name: "t", path: "t.json")
                return nil
            } catch {
                return error.userMessage
            }
        }
        #expect(problem(#"{"mobile app": ["phone"]}"#) == nil)
        #expect(problem(#"{"mobil app": ["phone"]}"#)
            == "t.json: field \"p\": \"synonyms\" names \"mobil app\", which is not one of its choices; did you mean \"mobile app\"?")
        #expect(problem(#"{"mobile app": "phone"}"#)
            == "t.json: field \"p\": the synonyms of \"mobile app\" must be a list of words, e.g. [\"phone\", \"iphone\"]")
        #expect(problem(#"{"mobile app": ["phone"], "web app": ["Phone"]}"#)
            == "t.json: field \"p\": \"Phone\" cannot stand for \"web app\": it already names \"mobile app\"")
        #expect(problem(#"{"mobile app": ["web app"]}"#)
            == "t.json: field \"p\": \"web app\" cannot stand for \"mobile app\": it already names \"web app\"")
        #expect(problem(#"["phone"]"#)
            == "t.json: field \"p\": \"synonyms\" must map choices to lists of other words, e.g. {\"mobile app\": [\"phone\", \"iphone\"]}")
        #expect(throws: HarkError.self) {
            try FormTemplateParser.parse(#"{"fields": [{"id": "p", "synonyms": {"a": ["b"]}}]}"#, name: "t", path: "t.json")
        }
    }

    /// The schema a model's reply must fit: the open question required but nullable, its
    /// choices an enum, dates and addresses with their format; room in max_tokens for all.
    @Test func theFieldsBecomeTheReplysSchema() throws {
        let bug = try Self.shipped("bug-report")
        let product = try #require(bug.field("product"))
        let format = FormSchema.format(current: product, others: [try #require(bug.field("noticed_on")),
                                                                  try #require(bug.field("reporter"))])
        #expect(format.name == "form_answer")
        #expect(format.schema["required"] == ["product"])
        #expect(format.schema["additionalProperties"] == false)
        #expect(format.schema["properties"]?["product"] == ["type": ["string", "null"],
                                                             "enum": ["web app", "desktop app", "mobile app", "API", .null]])
        #expect(format.schema["properties"]?["noticed_on"] == ["type": "string", "format": "date"])
        #expect(format.schema["properties"]?["reporter"] == ["type": "string", "format": "email"])
        #expect(format.maxTokens == FormSchema.tokens(for: [product, try #require(bug.field("noticed_on")), try #require(bug.field("reporter"))]))
        #expect((40...120).contains(format.maxTokens), "\(format.maxTokens)")
    }
}
