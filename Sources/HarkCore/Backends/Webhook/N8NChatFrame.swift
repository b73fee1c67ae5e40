import FoundationEssentials

/// One frame of n8n's chat socket, read in the generation the socket speaks. n8n has spoken
/// two (packages/cli/src/chat/chat-service.ts):
/// - **plain**, until 2026: control texts `n8n|heartbeat` (answered `n8n|heartbeat-ack`) and
///   `n8n|continue`, a node's message as its raw text (a `with-buttons` message as its JSON),
///   `Execution with id "…" does not exist` before a 1008 close;
/// - **json**, since: "Every frame sent over the socket is JSON with a `type` discriminator":
///   `{"type":"heartbeat"}` (answered `{"type":"heartbeat-ack"}`), `{"type":"continue"}`,
///   `{"type":"error","message"}`, `{"type":"message","text"}` and n8n-workflow's
///   `ChatNodeMessageWithButtons` `{"type":"with-buttons","text","buttons":[{text,link,type}],
///   "blockUserInput"}`; the server ignores client frames that are not JSON.
/// Both send a heartbeat first on a socket they accept and an error text first on one they
/// refuse, so the first frame tells them apart.
enum N8NChatFrame: Sendable, Equatable {
    case heartbeat
    /// The workflow goes on without the user's answer.
    case proceed
    case message(String)
    case choices(N8NChoices)
    /// The socket was refused (no such execution, a wrong resume token).
    case error(String)
    /// A frame of a type this hark does not know: not the reply's text.
    case ignored(String)

    enum Generation: Sendable, Equatable {
        case plain, json

        /// The generation of a socket whose first frame is `text`.
        static func of(firstFrame text: String) -> Generation {
            N8NChatFrame.jsonObject(text)?["type"]?.string != nil ? .json : .plain
        }

        /// The answer to a heartbeat, without which n8n cancels the execution after 60 s.
        var heartbeatAck: String {
            switch self {
            case .plain: return "n8n|heartbeat-ack"
            case .json: return #"{"type":"heartbeat-ack"}"#
            }
        }
    }

    static func read(_ text: String, in generation: Generation) -> N8NChatFrame {
        switch generation {
        case .plain:
            switch text {
            case "n8n|heartbeat": return .heartbeat
            case "n8n|continue": return .proceed
            default:
                if text.hasPrefix("Execution with id \""), text.hasSuffix("\" does not exist") { return .error(text) }
                if let object = jsonObject(text), object["type"]?.string == "with-buttons", let choices = N8NChoices(object) {
                    return .choices(choices)
                }
                return .message(text)
            }
        case .json:
            // @n8n/chat's parseBotChatMessageContent (src/utils/utils.ts) shows a frame that is
            // not JSON as it is.
            guard let object = jsonObject(text), let type = object["type"]?.string else { return .message(text) }
            switch type {
            case "heartbeat": return .heartbeat
            case "continue": return .proceed
            case "error": return .error(object["message"]?.string ?? "the chat connection was refused")
            case "message": return object["text"]?.string.map(N8NChatFrame.message) ?? .ignored(text)
            case "with-buttons": return N8NChoices(object).map(N8NChatFrame.choices) ?? .ignored(text)
            default: return .ignored(text)
            }
        }
    }

    static func jsonObject(_ text: String) -> JSON? {
        guard text.first == "{", let json = try? JSON.parse(Array(text.utf8)), json.object != nil else { return nil }
        return json
    }
}

/// A node's message with buttons (n8n's send-and-wait approval, a Respond to Chat node with
/// choices): @n8n/chat's MessageWithButtons.vue answers a click with a GET of the button's
/// `link` (a signed resume URL), and with `blockUserInput` its input box takes no text.
struct N8NChoices: Sendable, Equatable {
    struct Button: Sendable, Equatable {
        var label: String
        var link: String
        /// The key that picks it at the prompt.
        var key: Character
    }

    var text: String
    var buttons: [Button]
    var blockUserInput: Bool

    init?(_ object: JSON) {
        let buttons = (object["buttons"]?.array ?? []).compactMap { button -> (String, String)? in
            guard let label = button["text"]?.string, let link = button["link"]?.string else { return nil }
            return (label, link)
        }
        guard !buttons.isEmpty else { return nil }
        text = object["text"]?.string ?? ""
        blockUserInput = object["blockUserInput"]?.bool ?? false
        let keys = OneKeyChoices(labels: buttons.map(\.0)).keys
        self.buttons = zip(buttons, keys).map { Button(label: $0.0, link: $0.1, key: $1) }
    }

    /// "✓ [a]pprove / ✗ [d]ecline" or "[1] Small / [2] Standard", as tool approvals ask.
    var prompt: String { OneKeyChoices(labels: buttons.map(\.label)).prompt }

    var labels: String {
        let names = buttons.map { $0.label.trimmingSpaces }
        return names.count == 2 ? names.joined(separator: " or ") : names.joined(separator: ", ")
    }

    /// The button a typed answer names: its label (with or without the mark before its first
    /// letter, in any case), its key, or its number.
    func button(named typed: String) -> Button? {
        let answer = typed.trimmingSpaces.lowercased()
        guard !answer.isEmpty else { return nil }
        if let number = Int(answer), buttons.indices.contains(number - 1) { return buttons[number - 1] }
        return buttons.first { button in
            let label = button.label.trimmingSpaces.lowercased()
            return answer == label || answer == String(label.drop(while: { !$0.isLetter && !$0.isNumber }))
                || answer == String(button.key)
        }
    }
}
