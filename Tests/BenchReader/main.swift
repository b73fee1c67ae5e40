import Foundation
import HarkCore

// The form answer reader's speed for the benchmark harness (scripts/bench/documents.py):
// 1,000 answers of every field type, as people type them, read by the rules (no model), twenty
// times; prints the median as JSON. The answers are those of the reader's test table, repeated.

func field(_ id: String, _ type: FieldType, _ configure: (inout FormField) -> Void = { _ in }) -> FormField {
    var field = FormField(id: id, label: id.capitalized, question: "\(id)?", type: type)
    configure(&field)
    return field
}

let product = field("product", .choice) { $0.choices = ["web app", "desktop app", "mobile app", "API"] }
let version = field("version", .text) { $0.pattern = #"\d+\.\d+\.\d+"# }
let employee = field("employee_id", .text) { $0.pattern = #"E\d{5}"# }
let email = field("email", .email)
let day = field("departed", .date) { $0.latest = .today }
let amount = field("amount", .number) {
    $0.unit = "EUR"
    $0.minimum = 0.01
    $0.maximum = 10000
}
let receipts = field("receipts", .yesno)
let name = field("name", .text) { $0.minimum = 2 }

let samples: [(FormField, String)] = [
    (product, "it happens in the mobile one, I think"), (product, "the app"), (product, "web"),
    (version, "I'm on version 2.4.1 of it"), (version, "2.4.1"), (employee, "my number is e01234"),
    (email, "reach me at ada@example.org please"), (email, "ada@example.org"),
    (day, "last friday"), (day, "3 days ago"), (day, "Nov 2"), (day, "2.11.2025"), (day, "the 2nd"), (day, "03/01/2026"),
    (amount, "about 40 euros"), (amount, "€1,250.50"), (amount, "1.250,50 EUR"), (amount, "12,50"),
    (receipts, "yep, every time"), (receipts, "not really"), (receipts, "I don't think so"),
    (name, "I'm Ann Lee"), (name, "Ann Lee"), (day, "I left on 3 March"), (product, "not the web one, the mobile one"),
]
let answers = (0..<1000).map { samples[$0 % samples.count] }
let today = FormDate(year: 2026, month: 3, day: 7)!

var runs: [Double] = []
var read = 0
for _ in 0..<21 {
    let start = DispatchTime.now().uptimeNanoseconds
    for (field, answer) in answers {
        if case .value = AnswerReader.read(answer, for: field, today: today) { read += 1 }
    }
    runs.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
}
runs.removeFirst()  // the first pass compiles the patterns
runs.sort()
print("{\"answers\": \(answers.count), \"median_ms\": \(runs[runs.count / 2]), \"runs\": \(runs.count), \"values\": \(read / 21)}")
