/// A question an agent asked during a tool call, as kept with the call in the history: what
/// it asked, how it ended, and the answers sent, secret-looking ones masked.
public struct AskedQuestion: Sendable, Equatable {
    public var message: String
    public var mode: String
    public var action: String
    public var answers: JSON?

    public var json: JSON {
        var object: [String: JSON] = ["message": .string(message), "mode": .string(mode), "action": .string(action)]
        if let answers { object["answers"] = answers }
        return .object(object)
    }

    public init?(json: JSON) {
        guard let message = json["message"]?.string, let action = json["action"]?.string else { return nil }
        self.init(message: message, mode: json["mode"]?.string ?? "form", action: action, answers: json["answers"])
    }

    public init(message: String, mode: String, action: String, answers: JSON?) {
        self.message = message
        self.mode = mode
        self.action = action
        self.answers = answers
    }
}
