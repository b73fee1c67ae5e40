/// Fixed choices answered with one key, as a tool call's approval is (`[y]es / [n]o`): a
/// workflow's buttons (n8n's send-and-wait approval), or a question whose only field is a
/// choice or a yes/no (an agent asking to approve or deny). Each choice's key is its label's
/// first letter when those differ ("✓ Approve", "✗ Decline": a, d), else 1, 2, 3…
public struct OneKeyChoices: Sendable, Equatable {
    public let labels: [String]
    public let keys: [Character]
    /// For a question: the field answered, and the value each choice sends.
    public private(set) var field = ""
    private var values: [JSON] = []

    public init(labels: [String]) {
        self.labels = labels
        keys = Self.keys(for: labels)
    }

    /// A question of one field with two to nine fixed choices; nil for any other.
    public init?(_ question: Question) {
        guard question.fields.count == 1, let only = question.fields.first else { return nil }
        let field = only.field
        switch field.type {
        case .choice where (2...9).contains(field.choices.count):
            self.init(labels: field.choices)
            values = field.choices.map { .string(only.values[$0] ?? $0) }
        case .yesno:
            self.init(labels: ["Yes", "No"])
            values = [true, false]
        default:
            return nil
        }
        self.field = field.id
    }

    static func keys(for labels: [String]) -> [Character] {
        let letters = labels.map { label in label.first(where: \.isLetter).flatMap { $0.lowercased().first } }
        if letters.allSatisfy({ $0 != nil && $0!.isASCII }), Set(letters).count == labels.count {
            return letters.map { $0! }
        }
        return labels.indices.map { Character(String(($0 + 1) % 10)) }
    }

    /// "✓ [a]pprove / ✗ [d]ecline" or "[1] Small / [2] Standard".
    public var prompt: String {
        zip(labels, keys).map { label, key in
            guard key.isLetter, let index = label.firstIndex(where: { $0.lowercased().first == key }) else {
                return "[\(key)] \(label)"
            }
            return label[..<index] + "[\(key)]" + label[label.index(after: index)...]
        }.joined(separator: " / ")
    }

    public func label(for key: Character) -> String {
        keys.firstIndex(of: key).map { labels[$0].trimmingSpaces } ?? String(key)
    }

    /// The value a question's choice sends.
    public func value(for key: Character) -> JSON? {
        keys.firstIndex(of: key).flatMap { values.indices.contains($0) ? values[$0] : nil }
    }
}
