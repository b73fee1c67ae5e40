/// Several answers in one message: `I'm Ann Lee, ann@x.org, employee E01234` answers the
/// name, and in passing the email and the employee number. The message is cut into clauses
/// (at commas, semicolons and "and"); a clause goes to another unanswered field when it can
/// only be that field's: it names the field (`employee E01234`, `my email is …`), or it holds
/// a value of an unmistakable shape (the field's pattern, an address for an email field, a
/// name after `I'm` for a name field). What no other field takes answers the open question.
/// Free-text questions are never cut: a summary may well mention an address.
struct SeveralAnswers {
    struct Claim: Equatable {
        var field: FormField
        var value: FormValue
    }

    var claims: [Claim] = []
    /// The clauses left for the open question, joined again.
    var rest: String
    /// Clauses no question takes (an address given with a name when the form asks for none).
    var unused: [String] = []

    init(_ text: String, current: FormField, conversation: FormConversation) {
        rest = text
        guard Self.mayCut(current) else { return }
        let clauses = Self.clauses(text)
        guard clauses.count > 1 else { return }
        let others = conversation.openFields(besides: current)
        // The one number still open takes a clause that is a number (`three of them`).
        let soleNumber = current.type != .number && others.filter { $0.type == .number }.count == 1
        var taken: [Int: Claim] = [:]
        var takers: [String: Int] = [:]
        for (index, clause) in clauses.enumerated() {
            let fitting = others.compactMap { field in
                Self.claim(clause, for: field, today: conversation.today, soleNumber: soleNumber)
            }
            guard let best = Self.strongest(fitting) else { continue }
            // A field two clauses claim is left to the user: neither is taken.
            if let earlier = takers[best.field.id] {
                taken[earlier] = nil
                continue
            }
            takers[best.field.id] = index
            taken[index] = best
        }
        claims = taken.keys.sorted().compactMap { taken[$0] }
        var left = clauses.indices.filter { taken[$0] == nil }.map { clauses[$0] }
        // A name is one clause: the one introduced as a name, else the first that reads like one.
        if TextLeadIn.isNameField(current), left.count > 1,
           let name = left.first(where: { TextLeadIn.strip($0, field: current) != nil })
               ?? left.first(where: { !$0.contains("@") && !$0.contains(where: \.isNumber) }) {
            unused = left.filter { $0 != name }
            left = [name]
        }
        rest = left.joined(separator: ", ")
    }

    /// Questions whose answer is a name, a code, a number, a date, a choice or yes/no.
    static func mayCut(_ field: FormField) -> Bool {
        switch field.type {
        case .multiline: return false
        case .text: return field.pattern != nil || TextLeadIn.isNameField(field)
        default: return true
        }
    }

    /// Cut at `,` (not inside a number: 1,250.50), `;` and a standalone `and`.
    static func clauses(_ text: String) -> [String] {
        var clauses: [String] = []
        var current = ""
        let characters = Array(text)
        for (index, character) in characters.enumerated() {
            let between = index > 0 && index + 1 < characters.count && characters[index - 1].isNumber && characters[index + 1].isNumber
            if character == ";" || (character == "," && !between) {
                clauses.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        clauses.append(current)
        return clauses.flatMap { $0.split(separator: " and ").map(String.init) }.map(\.trimmed).filter { !$0.isEmpty }
    }

    /// The field's value in the clause, if the clause can only be meant for it.
    static func claim(_ clause: String, for field: FormField, today: FormDate, soleNumber: Bool = false) -> Claim? {
        if let rest = withoutName(of: field, in: clause) {
            if case .value(let value, _) = AnswerReader.read(rest, for: field, today: today) {
                return Claim(field: field, value: value)
            }
            return nil
        }
        let unmistakable: Bool
        switch field.type {
        case .text:
            if TextLeadIn.isNameField(field) {
                let lowered = clause.lowercased()
                guard ["i'm ", "i am ", "my name is ", "this is "].contains(where: lowered.hasPrefix),
                      let name = TextLeadIn.strip(clause, field: field),
                      case .success(let value) = FieldCheck.value(name, for: field, today: today) else { return nil }
                return Claim(field: field, value: value)
            }
            unmistakable = field.pattern != nil
        case .email:
            unmistakable = (field.id + " " + field.label).lowercased().contains("mail")
        case .number:
            unmistakable = soleNumber
        default:
            unmistakable = false
        }
        guard unmistakable, case .value(let value, _) = AnswerReader.read(clause, for: field, today: today) else { return nil }
        return Claim(field: field, value: value)
    }

    /// The clause without the words that name the field (`employee E01234` → `E01234`), or nil
    /// when it does not name it.
    static func withoutName(of field: FormField, in clause: String) -> String? {
        let names = Set((field.id.split(whereSeparator: { $0 == "_" || $0 == "-" }).map(String.init)
            + AnswerWords(field.label).words).map { $0.lowercased() }.filter { $0.count >= 3 && !fillers.contains($0) })
        var words = clause.split(separator: " ").map(String.init)
        var named = false
        while let first = words.first {
            let word = first.lowercased().trimmingEnds(":,")
            if names.contains(word) || names.contains(where: { word == $0 + "s" }) {
                named = true
            } else if !fillers.contains(word) {
                break
            }
            words.removeFirst()
        }
        return named && !words.isEmpty ? words.joined(separator: " ") : nil
    }

    static let fillers: Set<String> = ["my", "the", "is", "was", "are", "our", "their", "his", "her", "your", "number", "no",
                                       "nr", "of", "it", "it's", "=", ":", "-", "at", "on", "to"]

    /// Of the fields that would take a clause, the one it is surely for: a field with a shape
    /// (pattern, email, number, date…) before a plain text, and only one of each.
    static func strongest(_ claims: [Claim]) -> Claim? {
        let shaped = claims.filter { $0.field.type != .text || $0.field.pattern != nil }
        if shaped.count == 1 { return shaped[0] }
        if shaped.isEmpty, claims.count == 1 { return claims[0] }
        return nil
    }
}
