/// A tool the model asked to run, as its reply said: the call's id, the function name hark
/// offered (`time__get_current_time`) and the arguments as the model wrote them (JSON text).
/// Once hark has looked the name up, `server` and `tool` say whose tool it is.
public struct ToolCall: Sendable, Equatable {
    public var id: String
    public var name: String
    public var arguments: String
    public var server: String?
    public var tool: String?

    public init(id: String, name: String, arguments: String, server: String? = nil, tool: String? = nil) {
        self.id = id
        self.name = name
        self.arguments = arguments
        self.server = server
        self.tool = tool
    }

    /// `time.get_current_time`: how the call is shown and allowed.
    public var displayName: String {
        guard let server, let tool else { return name }
        return server + "." + tool
    }
}

/// What became of a tool call: its result, the tool's error, or the user's refusal. `text` is
/// what the model is told. `round` numbers the model's requests within one reply (1, 2…),
/// so a conversation replays each round's calls together.
public struct ToolResult: Sendable, Equatable {
    public enum Outcome: String, Sendable, Equatable, CaseIterable {
        case ok, error, refused
    }

    public var call: ToolCall
    public var outcome: Outcome
    public var text: String
    public var round: Int
    /// What the tool asked the user while it ran (MCP elicitation), in order.
    public var questions: [AskedQuestion] = []

    public init(call: ToolCall, outcome: Outcome, text: String, round: Int, questions: [AskedQuestion] = []) {
        self.call = call
        self.outcome = outcome
        self.text = text
        self.round = round
        self.questions = questions
    }

    /// The record kept in the history (`messages.tool_call`), read back to replay the call.
    public var json: JSON {
        var object: [String: JSON] = ["id": .string(call.id), "name": .string(call.name), "arguments": .string(call.arguments),
                                      "outcome": .string(outcome.rawValue), "text": .string(text), "round": .number(Double(round))]
        if let server = call.server { object["server"] = .string(server) }
        if let tool = call.tool { object["tool"] = .string(tool) }
        if !questions.isEmpty { object["questions"] = .array(questions.map(\.json)) }
        return .object(object)
    }

    public init?(json: JSON) {
        guard let id = json["id"]?.string, let name = json["name"]?.string else { return nil }
        self.init(call: ToolCall(id: id, name: name, arguments: json["arguments"]?.string ?? "{}",
                                 server: json["server"]?.string, tool: json["tool"]?.string),
                  outcome: json["outcome"]?.string.flatMap(Outcome.init(rawValue:)) ?? .ok,
                  text: json["text"]?.string ?? "", round: json["round"]?.int ?? 1,
                  questions: (json["questions"]?.array ?? []).compactMap(AskedQuestion.init(json:)))
    }

    /// How the exchange reads in the history, search and exports: the call, then its result.
    public var summary: String {
        var head = call.displayName + " " + call.arguments
        for asked in questions {
            head += "\n? " + asked.message + " → " + asked.action + (asked.answers.map { " " + $0.encoded() } ?? "")
        }
        switch outcome {
        case .ok: return head + "\n→ " + text
        case .error: return head + "\n→ error: " + text
        case .refused: return head + "\n→ refused"
        }
    }
}
