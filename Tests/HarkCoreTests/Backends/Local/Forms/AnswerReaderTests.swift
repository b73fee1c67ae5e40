import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// The rules reader, row by row: what people type, and the value it must give, ask back, or
/// refuse. Dates are relative to a fixed day, Saturday 2026-03-07.
@Suite struct AnswerReaderTests {
    static let today = FormDate(year: 2026, month: 3, day: 7)!

    static func field(_ id: String, _ type: FieldType, _ configure: (inout FormField) -> Void = { _ in }) -> FormField {
        var field = FormField(id: id, label: id.prefix(1).uppercased() + id.dropFirst(), question: "\(id)?", type: type)
        configure(&field)
        return field
    }

    static let product = field("product", .choice) { $0.choices = ["web app", "desktop app", "mobile app", "API"] }
    static let transport = field("transport", .choice) { $0.choices = ["train", "plane", "own car", "rental car", "bus", "other"] }
    static let version = field("version", .text) { $0.pattern = #"\d+\.\d+\.\d+"# }
    static let employee = field("employee_id", .text) {
        $0.label = "Employee number"
        $0.pattern = #"E\d{5}"#
    }
    static let email = field("email", .email)
    static let day = field("departed", .date) { $0.latest = .today }
    static let anyDay = field("when", .date)
    static let amount = field("amount", .number) {
        $0.unit = "EUR"
        $0.minimum = 0.01
        $0.maximum = 10000
    }
    static let distance = field("distance", .number) {
        $0.unit = "km"
        $0.integer = true
        $0.minimum = 1
        $0.maximum = 5000
    }
    static let receipts = field("receipts", .yesno)
    static let name = field("name", .text) { $0.minimum = 2 }

    enum Expected: Equatable {
        case value(FormValue)
        case asks([FormValue])
        case refused
    }

    static func text(_ value: String) -> Expected { .value(.text(value)) }
    static func date(_ iso: String) -> Expected { .value(.date(FormDate(iso: iso)!)) }
    static func dates(_ isos: String...) -> Expected { .asks(isos.map { .date(FormDate(iso: $0)!) }) }
    static func number(_ value: Double) -> Expected { .value(.number(value)) }

    static let rows: [(FormField, String, Expected)] = [
        // A choice named in passing, by a word only it has; a shared word or two names are asked back.
        (product, "it happens in the mobile one, I think", text("mobile app")),
        (product, "web", text("web app")),
        (product, "on the desktop", text("desktop app")),
        (product, "the API is what breaks", text("API")),
        (product, "2", text("desktop app")),
        (product, "the app", .asks([.text("web app"), .text("desktop app"), .text("mobile app")])),
        (product, "both web and mobile", .asks([.text("web app"), .text("mobile app")])),
        (product, "not the web one, the mobile one", text("mobile app")),
        (product, "a toaster", .refused),
        (transport, "by train", text("train")),
        (transport, "I drove my own car", text("own car")),
        (transport, "by car", .asks([.text("own car"), .text("rental car")])),
        (transport, "we took two trains", text("train")),
        (transport, "flew", .refused),
        // A pattern found in a sentence, in the case the pattern wants, and only whole.
        (version, "I'm on version 2.4.1 of it", text("2.4.1")),
        (version, "2.4.1", text("2.4.1")),
        (version, "between 2.4.1 and 2.5.0", .asks([.text("2.4.1"), .text("2.5.0")])),
        (version, "v2", .refused),
        (version, "build 12.4.1.5", .refused),
        (employee, "my number is e01234", text("E01234")),
        (employee, "E01234", text("E01234")),
        (employee, "E1234", .refused),
        (employee, "badge E01234 or maybe E99999", .asks([.text("E01234"), .text("E99999")])),
        // Addresses in a sentence.
        (email, "reach me at ada@example.org please", text("ada@example.org")),
        (email, "<Ann.Lee@Example.ORG>", text("Ann.Lee@example.org")),
        (email, "mail me: ada@example.org.", text("ada@example.org")),
        (email, "ada@example.org or ann@x.org", .asks([.text("ada@example.org"), .text("ann@x.org")])),
        (email, "ada at example dot org", .refused),
        // Dates relative to today; a date without its year is the nearest one that fits.
        (day, "last friday", date("2026-03-06")),
        (day, "on friday", date("2026-03-06")),
        (day, "3 days ago", date("2026-03-04")),
        (day, "a week ago", date("2026-02-28")),
        (day, "two weeks ago", date("2026-02-21")),
        (day, "yesterday", date("2026-03-06")),
        (day, "the day before yesterday", date("2026-03-05")),
        (day, "Nov 2", date("2025-11-02")),
        (day, "2.11.2025", date("2025-11-02")),
        (day, "the 2nd", date("2026-03-02")),
        (day, "I left on 3 March", date("2026-03-03")),
        (day, "March 1st, 2026", date("2026-03-01")),
        (day, "2nd of November 2025", date("2025-11-02")),
        (day, "03/01/2026", dates("2026-01-03", "2026-03-01")),
        (day, "between the 2nd and the 4th", dates("2026-03-02", "2026-03-04")),
        (day, "tomorrow", .refused),
        (day, "next monday", .refused),
        (day, "sometime in spring", .refused),
        (anyDay, "2.11.2026", date("2026-11-02")),
        (anyDay, "Nov 2", date("2025-11-02")),
        (anyDay, "next monday", date("2026-03-09")),
        (anyDay, "in 3 days", date("2026-03-10")),
        (anyDay, "this wednesday", date("2026-03-04")),
        (anyDay, "3/7/2026", dates("2026-07-03", "2026-03-07")),
        (anyDay, "13/7/2026", date("2026-07-13")),
        // Amounts with their unit, in either country's way of writing them.
        (amount, "about 40 euros", number(40)),
        (amount, "€1,250.50", number(1250.5)),
        (amount, "1.250,50 EUR", number(1250.5)),
        (amount, "12,50", number(12.5)),
        (amount, "roughly €85 in all", number(85)),
        (amount, "1.250", .asks([.number(1.25), .number(1250)])),
        (amount, "40 euros for the hotel and 12 euros for the taxi", .asks([.number(40), .number(12)])),
        (amount, "twelve", .refused),
        (amount, "20000 EUR", .refused),
        (distance, "about 320 km", number(320)),
        (distance, "2.500 km", number(2500)),
        (distance, "on 3 March I drove 120 km", number(120)),
        // Whole numbers may be words ("three of them"); amounts are digits ("twelve" above).
        (distance, "twenty-one", number(21)),
        (distance, "about forty five km", number(45)),
        (distance, "three days ago", .refused),
        // Yes and no as people say them; a hedge is not an answer, both at once is asked.
        (receipts, "yep, every time", .value(.bool(true))),
        (receipts, "of course", .value(.bool(true))),
        (receipts, "not really", .value(.bool(false))),
        (receipts, "I don't think so", .value(.bool(false))),
        (receipts, "never", .value(.bool(false))),
        (receipts, "yes and no", .asks([.bool(true), .bool(false)])),
        (receipts, "maybe", .refused),
        (receipts, "not sure", .refused),
        // A name without the words before it.
        (name, "I'm Ann Lee", text("Ann Lee")),
        (name, "my name is Ann Lee.", text("Ann Lee")),
        (name, "Ann Lee", text("Ann Lee")),
        (name, "A", .refused),
    ]

    static func read(_ answer: String, _ field: FormField) -> Expected {
        switch AnswerReader.read(answer, for: field, today: today) {
        case .value(let value, _): return .value(value)
        case .ambiguous(let values): return .asks(values)
        case .problem: return .refused
        }
    }

    @Test func everyRowReadsAsExpected() {
        #expect(Self.rows.count >= 60)
        for (field, answer, expected) in Self.rows {
            #expect(Self.read(answer, field) == expected, "\(field.id): \(answer)")
        }
    }

    @Test func askingBackNamesTheCandidatesAndRefusalsSayWhatFits() {
        guard case .ambiguous(let values) = AnswerReader.read("the app", for: Self.product, today: Self.today) else {
            Issue.record("the app is ambiguous")
            return
        }
        #expect(AnswerReader.askBack(values, field: Self.product) == "Did you mean web app, desktop app or mobile app?")
        guard case .problem(let problem) = AnswerReader.read("20000 EUR", for: Self.amount, today: Self.today) else {
            Issue.record("20000 is out of range")
            return
        }
        #expect(problem.message == "Amount must be between 0.01 and 10000 EUR; 20000 is not.")
        guard case .problem(let late) = AnswerReader.read("next monday", for: Self.day, today: Self.today) else {
            Issue.record("a future date is refused")
            return
        }
        #expect(late.message == "Departed cannot be after today (2026-03-07); 2026-03-09 is.")
    }

    @Test func aValueReadOutOfASentenceIsMarkedForConfirmation() {
        #expect(AnswerReader.read("2.4.1", for: Self.version, today: Self.today) == .value(.text("2.4.1"), fromSentence: false))
        #expect(AnswerReader.read("version 2.4.1", for: Self.version, today: Self.today) == .value(.text("2.4.1"), fromSentence: true))
    }
}
