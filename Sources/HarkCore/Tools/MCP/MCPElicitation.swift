/// MCP elicitation (spec 2025-11-25, client/elicitation): a server asks the user something in
/// the middle of a request with `elicitation/create`, in form mode (`message` and a flat
/// `requestedSchema`) or URL mode (`message`, `url`, `elicitationId`); the client answers
/// `{"action": "accept", "content": {…}}` (content in form mode only), `decline` or `cancel`.
/// As the Python SDK 2.3 sends and reads them (mcp/server/session.py `elicit_form` and
/// `elicit_url`; mcp_types `ElicitRequestFormParams`, `ElicitRequestURLParams`, `ElicitResult`).
enum MCPElicitation {
    static let method = "elicitation/create"

    /// What hark declares it can do (client capabilities, `elicitation`: both modes).
    static let capability: JSON = ["form": [:], "url": [:]]

    /// The question a request's params ask, or why hark cannot ask it.
    static func question(_ params: JSON?, server: String) -> Result<Question, QuestionSchema.Unsupported> {
        let message = params?["message"]?.string ?? ""
        let asker = "mcp " + server
        if params?["mode"]?.string == "url" || params?["url"] != nil {
            guard let url = params?["url"]?.string, !url.isEmpty else {
                return .failure(QuestionSchema.Unsupported(message: "the URL-mode question has no url"))
            }
            return .success(Question(asker: asker, message: message, kind: .url(url, host: HTTPRequest.displayHost(of: url))))
        }
        guard let schema = params?["requestedSchema"] else {
            return .failure(QuestionSchema.Unsupported(message: "the question has no requestedSchema"))
        }
        do {
            return .success(Question(asker: asker, message: message, kind: .form(try QuestionSchema.fields(of: schema))))
        } catch {
            return .failure(error)
        }
    }

    /// The result that answers the request.
    static func result(_ outcome: QuestionOutcome, mode: Question.Kind) -> JSON {
        switch outcome {
        case .accept(let content):
            if case .url = mode { return ["action": "accept"] }
            return ["action": "accept", "content": content]
        case .decline: return ["action": "decline"]
        case .cancel: return ["action": "cancel"]
        }
    }
}
