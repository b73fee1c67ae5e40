import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// The form's parts alone: the checks and their one-line messages, dates, template errors,
/// the model's JSON, and every shipped template.
@Suite struct LocalFormPartsTests {
    static let today = FormDate(year: 2026, month: 3, day: 7)!

    static func field(_ type: FieldType, _ configure: (inout FormField) -> Void = { _ in }) -> FormField {
        var field = FormField(id: "x", label: "Amount", question: "How much?", type: type)
        configure(&field)
        return field
    }

    static func check(_ answer: String, _ field: FormField) -> Result<FormValue, FieldProblem> {
        FieldCheck.value(answer, for: field, today: today)
    }

    static func value(_ answer: String, _ field: FormField) -> FormValue? {
        try? check(answer, field).get()
    }

    static func problem(_ answer: String, _ field: FormField) -> String? {
        if case .failure(let problem) = check(answer, field) { return problem.message }
        return nil
    }

    @Test func numbersAcceptWhatPeopleTypeAndSayWhatIsExpected() {
        let amount = Self.field(.number) {
            $0.unit = "EUR"
            $0.minimum = 0.01
            $0.maximum = 10000
        }
        #expect(Self.value("12.50", amount) == .number(12.5))
        #expect(Self.value("1,234.50 EUR", amount) == .number(1234.5))
        #expect(Self.value("€ 12,50", amount) == .number(12.5))
        #expect(Self.value("1 200", amount) == .number(1200))
        #expect(Self.problem("twelve", amount) == "Amount needs a number such as 12.50; \"twelve\" is not one.")
        #expect(Self.problem("1e5", amount) == "Amount needs a number such as 12.50; \"1e5\" is not one.")
        #expect(Self.problem("12000", amount) == "Amount must be between 0.01 and 10000 EUR; 12000 is not.")
        let whole = Self.field(.number) {
            $0.integer = true
            $0.minimum = 1
        }
        #expect(Self.problem("2.5", whole) == "Amount needs a whole number; 2.5 is not one.")
        #expect(Self.problem("0", whole) == "Amount must be at least 1; 0 is less.")
    }

    @Test func textsEmailsChoicesAndYesNo() {
        let text = Self.field(.text) {
            $0.minimum = 5
            $0.maximum = 10
        }
        #expect(Self.problem("abc", text) == "Amount needs at least 5 characters; yours has 3.")
        #expect(Self.problem("abcdefghijk", text) == "Amount can be at most 10 characters long; yours has 11.")
        let patterned = Self.field(.text) { $0.pattern = "E[0-9]{5}" }
        #expect(Self.value("E01234", patterned) == .text("E01234"))
        #expect(Self.problem("E1", patterned) == "Amount must match the pattern E[0-9]{5}; \"E1\" does not.")
        let email = Self.field(.email)
        #expect(Self.value("<Ann.Lee@Example.ORG>", email) == .text("Ann.Lee@example.org"))
        #expect(Self.value("mailto:a@b.io", email) == .text("a@b.io"))
        for wrong in ["ann", "ann@x", "ann@@x.org", "a b@x.org", "ann@x.o1", "@x.org"] {
            #expect(Self.problem(wrong, email) != nil, "\(wrong) is not an address")
        }
        let choice = Self.field(.choice) { $0.choices = ["train", "plane", "own car", "rental car"] }
        #expect(Self.value("PLANE", choice) == .text("plane"))
        #expect(Self.value("3", choice) == .text("own car"))
        #expect(Self.value("ren", choice) == .text("rental car"))
        #expect(Self.problem("bike", choice) == "Amount must be one of train, plane, own car, rental car; \"bike\" is not.")
        let ambiguous = Self.field(.choice) { $0.choices = ["medium", "minor"] }
        #expect(Self.problem("m", ambiguous) == "\"m\" could be medium or minor; type more of it.")
        let yesNo = Self.field(.yesno)
        #expect(Self.value("Yes.", yesNo) == .bool(true))
        #expect(Self.value("n", yesNo) == .bool(false))
        #expect(Self.problem("perhaps", yesNo) == "Amount needs yes or no; \"perhaps\" is neither.")
    }

    @Test func datesInTheFormsPeopleWriteAndOnlyThose() {
        let today = Self.today
        #expect(FormDate.parse("2026-03-01", today: today)?.description == "2026-03-01")
        #expect(FormDate.parse("2026/3/1", today: today)?.description == "2026-03-01")
        #expect(FormDate.parse("1.3.2026", today: today)?.description == "2026-03-01")
        #expect(FormDate.parse("1 March 2026", today: today)?.description == "2026-03-01")
        #expect(FormDate.parse("Mar 1st, 2026", today: today)?.description == "2026-03-01")
        #expect(FormDate.parse("yesterday", today: today)?.description == "2026-03-06")
        #expect(FormDate.parse("10 days ago", today: today)?.description == "2026-02-25")
        #expect(FormDate.parse("2024-02-29", today: today) != nil, "a leap day")
        #expect(FormDate.parse("2026-02-29", today: today) == nil, "not a leap year")
        #expect(FormDate.parse("03/01/2026", today: today) == nil, "day and month order is ambiguous")
        #expect(FormDate(year: 2026, month: 12, day: 31)!.adding(days: 1).description == "2027-01-01")
        #expect(FormDate(year: 1969, month: 12, day: 31)!.adding(days: 60).description == "1970-03-01")
        let departure = Self.field(.date) {
            $0.earliest = .date(FormDate(year: 2026, month: 1, day: 1)!)
            $0.latest = .today
        }
        #expect(Self.problem("2025-12-31", departure) == "Amount cannot be before 2026-01-01; 2025-12-31 is.")
        #expect(Self.problem("tomorrow", departure) == "Amount cannot be after today (2026-03-07); 2026-03-08 is.")
        #expect(Self.problem("soon", departure) == "Amount needs a date such as 2026-03-07 (or today, yesterday); \"soon\" is not one.")
    }

    static func parse(_ text: String) -> String? {
        do {
            _ = try FormTemplateParser.parse(text, name: "t", path: "t.json")
            return nil
        } catch {
            return error.userMessage
        }
    }

    @Test func templateMistakesAreOneLineNamingTheFieldAndTheFix() {
        #expect(Self.parse("{\"title\": \"T\",\n \"fields\": [}") == "t.json:2: not valid JSON: unexpected character")
        #expect(Self.parse(#"{"title": "T"}"#) == "t.json: \"fields\" must be a list with at least one field")
        #expect(Self.parse(#"{"fields": [{"label": "x"}]}"#)
            == "t.json: field 1 needs an \"id\" of letters, digits, _ or -, e.g. \"email\"")
        #expect(Self.parse(#"{"fields": [{"id": "a", "type": "phone"}]}"#)
            == "t.json: field \"a\": unknown type \"phone\"; use one of text, multiline, number, email, date, choice, yesno")
        #expect(Self.parse(#"{"fields": [{"id": "a", "type": "choice"}]}"#)
            == "t.json: field \"a\": a choice field needs \"choices\": a list of strings")
        #expect(Self.parse(#"{"fields": [{"id": "a", "type": "choice", "choices": ["x"], "default": "y"}]}"#)
            == "t.json: field \"a\": its default does not fit: A must be one of x; \"y\" is not.")
        #expect(Self.parse(#"{"fields": [{"id": "a", "pattern": "(["}]}"#)
            == "t.json: field \"a\": the pattern ([ is not a valid regular expression")
        #expect(Self.parse(#"{"fields": [{"id": "a", "when": {"field": "b", "equals": true}}, {"id": "b", "type": "yesno"}]}"#)
            == "t.json: field \"a\": \"when\" refers to \"b\", which is not a field before this one")
        #expect(Self.parse(#"{"fields": [{"id": "a", "type": "date", "max": "soon"}]}"#)
            == "t.json: field \"a\": \"max\" must be \"today\" or a date written YYYY-MM-DD")
        #expect(Self.parse(#"{"fields": [{"id": "a"}, {"id": "a"}]}"#) == "t.json: two fields have the id \"a\"")
        #expect(Self.parse(#"{"title": "T", "feilds": []}"#) == "t.json: the form has an unknown key \"feilds\"; did you mean \"fields\"?")
    }

    @Test func conditionsCompareWithTheSourcesCheckedValue() throws {
        let template = try FormTemplateParser.parse("""
            {"fields": [
              {"id": "transport", "type": "choice", "choices": ["train", "own car"]},
              {"id": "km", "type": "number", "when": {"field": "transport", "equals": ["Own car"]}},
              {"id": "fuel", "type": "yesno", "when": {"field": "km", "equals": 100}}
            ]}
            """, name: "t", path: "t.json")
        let km = try #require(template.field("km"))
        let fuel = try #require(template.field("fuel"))
        #expect(template.isAsked(km, answers: [:]) == false)
        #expect(template.isAsked(km, answers: ["transport": .text("own car")]))
        #expect(template.isAsked(km, answers: ["transport": .text("train")]) == false)
        #expect(template.isAsked(fuel, answers: ["transport": .text("train"), "km": .number(100)]) == false,
                "a field whose source is not asked is not asked either")
        #expect(template.isAsked(fuel, answers: ["transport": .text("own car"), "km": .number(100)]))
    }

    /// A question's number counts the questions asked with the answers so far, in its header,
    /// the prompt's badge and `change N` alike: the kilometres are a question only by car.
    @Test func questionsAreNumberedAmongThoseAsked() throws {
        let template = try FormTemplateParser.parse("""
            {"fields": [
              {"id": "transport", "type": "choice", "choices": ["train", "own car"]},
              {"id": "km", "type": "number", "when": {"field": "transport", "equals": "own car"}},
              {"id": "amount", "type": "number"}
            ]}
            """, name: "t", path: "t.json")
        var conversation = FormConversation(template: template, today: try #require(FormDate(year: 2026, month: 3, day: 7)))
        #expect(conversation.begin().last(where: { $0.hasPrefix("1/") }) == "1/2 Transport?")
        #expect(conversation.place() == "1/2")
        #expect(conversation.resolveChange("2 to 40")?.0.id == "amount")
        conversation.progress.answers["transport"] = .text("own car")
        #expect(conversation.place(of: template.field("amount")) == "3/3")
        #expect(conversation.resolveChange("2 to 40")?.0.id == "km")
    }

    @Test func theModelsJSONIsFoundInFencesAndProseIsRefused() {
        #expect(StructuredQuery.object(in: "```json\n{\"a\": 1}\n```") == ["a": 1])
        #expect(StructuredQuery.object(in: "Here you go: {\"a\": \"b\"} Hope it helps") == ["a": "b"])
        #expect(StructuredQuery.object(in: "Sure! The company is ACME.") == nil)
        #expect(StructuredQuery.object(in: "{\"a\": }") == nil)
        #expect(StructuredQuery.object(in: "[1, 2]") == nil)
    }

    @Test func everyShippedTemplateReadsAndAsksSomething() throws {
        let library = FormLibrary(paths: Paths(configDirectory: "/nonexistent", dataDirectory: "/nonexistent",
                                               sharedPromptDirectories: [TestHome.shippedPrompts]))
        let entries = library.entries()
        #expect(entries.map(\.name) == ["bug-report", "new-contact", "travel-expense"])
        for entry in entries {
            let template = try entry.template.get()
            #expect(template.fields.count >= 5, "\(entry.name) is a realistic form")
            #expect(template.hasConditions, "\(entry.name) shows a conditional field")
            #expect(template.submit == nil, "shipped forms stay on the machine")
        }
    }
}
