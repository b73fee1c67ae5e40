/// One of the streaming HTTP APIs a model session can speak (`api = chat|messages|responses`).
/// Each has its own folder with the request it sends and the decoder of what comes back; what
/// the three share (settings, the turns sent, `/model`, `/think`, a served model) is the
/// backend's (OpenAIBackend).
///
/// Tools (MCP) plug in per API, in its folder: `ModelPrompt` gains the tools
/// offered and the earlier calls and results; each `body(for:)` writes them in its API's shape
/// (Chat Completions `tools` with `tool_calls` and `tool` messages, Messages `tools` with
/// `tool_use` and `tool_result` blocks, Responses `tools` with `function_call` and
/// `function_call_output` items); each decoder already emits `.toolCall` once a call's
/// arguments are complete.
protocol ModelAPI: Sendable {
    associatedtype Decoder: ReplyDecoder
    /// The value of the `api` setting.
    var name: String { get }
    /// The endpoint after the API base (`…/v1` + `/chat/completions`).
    var path: String { get }
    func body(for prompt: ModelPrompt) -> JSON
    /// The request's headers besides the JSON ones, given the session's auth header.
    func headers(auth: [(name: String, value: String)]) -> [(name: String, value: String)]
    func makeDecoder() -> Decoder
}

extension ModelAPI {
    /// The reply to a request, decoded as this API's.
    func stream(_ http: HTTPClient, _ makeRequest: @escaping @Sendable () throws -> HTTPRequest)
        -> AsyncThrowingStream<ReplyEvent, Error> {
        HTTPReply.stream(http, makeRequest, decoder: makeDecoder())
    }
}

enum ModelAPIs {
    static let all: [any ModelAPI] = [ChatCompletionsAPI(), MessagesAPI(), ResponsesAPI()]
    static var names: [String] { all.map(\.name) }

    /// The API a session's `api` setting names; Chat Completions when it names none.
    static func named(_ name: String?, session: String) throws -> any ModelAPI {
        guard let name, !name.isEmpty else { return ChatCompletionsAPI() }
        if let api = all.first(where: { $0.name == name.lowercased() }) { return api }
        let suggestion = Suggest.closest(to: name, in: names)
        throw HarkError.badSetting(session: session, problem: "api must be \(names.joined(separator: ", "))"
            + (suggestion.map { "; did you mean \($0)?" } ?? ""))
    }

    /// The API base from a session's url: `…/v1` as given, or a full endpoint URL with its
    /// endpoint taken off (`…/v1/chat/completions` → `…/v1`), so `/models` and the other APIs
    /// are found beside it.
    static func base(of url: String) -> String {
        var base = url
        while base.hasSuffix("/") { base.removeLast() }
        for api in all where base.hasSuffix(api.path) {
            return String(base.dropLast(api.path.count))
        }
        return base
    }
}
