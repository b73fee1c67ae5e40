import FoundationEssentials

/// Answers given beforehand for questions asked in scripts: `--answer KEY=VALUE` (repeatable)
/// and `--answers FILE.json` (an object of field names to values). A question takes the values
/// of its fields' names; each is read and checked as a typed answer is.
public struct ScriptedAnswers: Sendable, Equatable {
    public private(set) var values: [String: String] = [:]

    public init() {}

    public var isEmpty: Bool { values.isEmpty }

    /// `KEY=VALUE` pairs; the command line's last word for a key wins.
    public mutating func add(pairs: [String]) throws {
        for pair in pairs {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                throw HarkError.usage("--answer takes KEY=VALUE (e.g. --answer name=Ann), not \"\(MessageLine.name(pair))\"")
            }
            values[String(pair[..<equals]).trimmed] = String(pair[pair.index(after: equals)...])
        }
    }

    /// A JSON object of answers; a value may be a string, a number or a boolean.
    public mutating func add(file path: String) throws {
        let text: String
        do { text = try String(contentsOfFile: path.expandingTildeInPath, encoding: .utf8) } catch {
            throw HarkError.usage("--answers \(path): cannot read it (\(error.userMessage))")
        }
        guard let object = (try? JSON.parse(text))?.object else {
            throw HarkError.usage("--answers \(path) is not a JSON object such as {\"name\": \"Ann\", \"count\": 3}")
        }
        for (key, value) in object {
            guard let answer = FormValue.answerText(value) else {
                throw HarkError.usage("--answers \(path): \(key) must be a string, a number or true/false")
            }
            values[key] = answer
        }
    }

    /// The values these answers give the question's fields, and one line for each that does not
    /// fit its field. An enum may be answered with its value or its title.
    public func fill(_ question: Question, today: FormDate) -> (answers: [String: FormValue], problems: [String]) {
        var answers: [String: FormValue] = [:]
        var problems: [String] = []
        for field in question.fields {
            guard var text = values[field.field.id] else { continue }
            if let title = field.values.first(where: { $0.value == text })?.key { text = title }
            switch AnswerReader.read(text, for: field.field, today: today) {
            case .value(let value, _): answers[field.field.id] = value
            case .ambiguous(let readings): problems.append("--answer \(field.field.id): " + AnswerReader.askBack(readings, field: field.field))
            case .problem(let problem): problems.append("--answer \(field.field.id): " + problem.message)
            }
        }
        return (answers, problems)
    }

    /// Whether the answers leave no required field open (a default fills one).
    public static func complete(_ question: Question, _ answers: inout [String: FormValue], today: FormDate) -> Bool {
        for field in question.fields where answers[field.field.id] == nil && field.field.required {
            guard let fallback = field.field.defaultValue(today: today) else { return false }
            answers[field.field.id] = fallback
        }
        return true
    }
}
