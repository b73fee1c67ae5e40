/// Something an agent asks the user in the middle of its work: a form of a few fields (MCP
/// elicitation's form mode), or consent to open a page of the agent's (its URL mode). Asked
/// by the shell field by field with the local forms' reading of sentences
/// (`QuestionConversation`), answered from `--answer`/`--answers` in scripts, declined when
/// nobody is there to ask.
public struct Question: Sendable, Equatable {
    /// Who asks: `mcp time`, for the lines that show the question.
    public var asker: String
    /// What the agent says it wants, as it wrote it (untrusted: sanitized where shown).
    public var message: String
    public var kind: Kind
    /// What becomes of the asker's work when the question is declined or dismissed, where the
    /// asker is not told (an A2A task stays input-required); nil: the asker hears it.
    public var refusal: String?

    public enum Kind: Sendable, Equatable {
        case form([QuestionField])
        /// A page to open in the browser; hark never fetches it. `host` is what the user is shown
        /// before consenting.
        case url(String, host: String)
    }

    public init(asker: String, message: String, kind: Kind) {
        self.asker = asker
        self.message = message
        self.kind = kind
    }

    public var fields: [QuestionField] {
        if case .form(let fields) = kind { return fields }
        return []
    }

    /// The fields as a local form, so that the forms' conversation asks them.
    public var template: FormTemplate {
        FormTemplate(name: "question", title: asker + " asks: " + message, description: nil, submit: nil,
                     fields: fields.map(\.field))
    }

    /// The answers as the agent expects them: numbers of integer fields as integers, an
    /// enum's title as its value, dates as `YYYY-MM-DD`; skipped fields left out.
    public func values(_ answers: [String: FormValue]) -> JSON {
        var object: [String: JSON] = [:]
        for field in fields {
            guard let value = answers[field.field.id], let json = field.json(for: value) else { continue }
            object[field.field.id] = json
        }
        return .object(object)
    }

    /// The answers for the history: secret-looking fields (`format: password`, or a name such
    /// as token, password, secret, key) masked.
    public func masked(_ values: JSON) -> JSON {
        guard var object = values.object else { return values }
        for field in fields where field.isSecret && object[field.field.id] != nil { object[field.field.id] = "••••" }
        return .object(object)
    }
}

/// One field of a question: the local form's field it is asked as, and how its answer goes
/// back to the agent.
public struct QuestionField: Sendable, Equatable {
    public var field: FormField
    /// The JSON type the agent wants: string, number, integer, boolean.
    public var type: String
    /// For an enum: the value of each choice, by the title the user sees.
    public var values: [String: String] = [:]
    /// `format: password`, or a name that says the value is a secret.
    public var isSecret = false

    public init(field: FormField, type: String) {
        self.field = field
        self.type = type
    }

    /// A checked value as the agent's schema wants it.
    func json(for value: FormValue) -> JSON? {
        switch value {
        case .skipped: return nil
        case .number(let number) where type == "integer": return .number(number.rounded())
        case .text(let text) where !values.isEmpty: return .string(values[text] ?? text)
        default: return value.json
        }
    }

    static let secretWords = ["password", "passwd", "secret", "token", "key", "pin", "credential", "otp"]

    static func looksSecret(_ name: String) -> Bool {
        let words = AnswerWords(name.replacingOccurrences(of: "_", with: " ").replacingOccurrences(of: "-", with: " ")).words
        return words.contains { word in secretWords.contains { word == $0 || word.hasSuffix($0) } }
    }
}

/// How a question ended, as MCP says it (spec client/elicitation, response actions): the
/// user submitted answers, said no, or dismissed it without choosing.
public enum QuestionOutcome: Sendable, Equatable {
    case accept(JSON)
    case decline
    case cancel

    public var action: String {
        switch self {
        case .accept: return "accept"
        case .decline: return "decline"
        case .cancel: return "cancel"
        }
    }
}
