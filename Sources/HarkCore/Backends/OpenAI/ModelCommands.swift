import FoundationEssentials
import Glibc

/// `/model` and `/think`: what a model session's user changes while talking to it.
extension OpenAIBackend {
    /// `/model` lists the server's models (`GET …/models`), the session's marked; `/model NAME`
    /// switches to one for this run, `--save` writes it to the config.
    func modelCommand(_ context: CommandContext) async throws -> CommandOutcome {
        let name = context.arguments["NAME"]
        let saves = context.arguments.flag("--save")
        var listed: [String]?
        var listingError: Error?
        do { listed = try await listModels() } catch { listingError = error }
        guard let name else {
            if saves { throw context.badArguments("--save needs a NAME") }
            guard let listed else { throw listingError! }
            let current = model
            var lines: Document = listed.map { id in
                id == current ? StyledLine("* " + id, .accent) : StyledLine("  " + id)
            }
            lines.append(StyledLine(listed.isEmpty ? "the server lists no models"
                : "\(listed.count) model\(listed.count == 1 ? "" : "s"); /model NAME switches \(session.name) to one", .dim))
            return .output(lines)
        }
        if let listed, !listed.isEmpty, !listed.contains(name) {
            let suggestion = Suggest.closest(to: name, in: listed)
            throw HarkError.usage("the server has no model \(name)" + (suggestion.map { "; did you mean \($0)?" } ?? "; /model lists them"))
        }
        var lines: Document = []
        if let listingError { lines.append(StyledLine("could not list the server's models (\(listingError.userMessage))", .warning)) }
        if saves {
            try context.updateSettings(["model": name])
            lines.append(StyledLine("\(session.name) uses \(name) from now on (model = \(name) in the config)", .success))
        } else {
            state.update { $0.model = name }
            lines.append(StyledLine("\(session.name) uses \(name) for this run; /model \(name) --save keeps it", .success))
        }
        return .output(lines)
    }

    /// The model ids the server lists: OpenAI's and Anthropic's `{"data": [{"id"}]}`, which
    /// llama.cpp and Ollama serve too, or Ollama's own `{"models": [{"name"}]}`.
    func listModels() async throws -> [String] {
        let base = try await CancellableWait.value { [self] in try await self.base() }
        var request = HTTPRequest(url: base + "/models", headers: api.headers(auth: try auth.headers()), timeouts: timeouts)
        request.tls = try session.tls()
        let response = try await http.fetch(request)
        guard response.head.isSuccess else {
            throw ServerMessage.error(status: response.head.status, host: request.displayHost, body: response.body,
                                      contentType: response.head.header("content-type"))
        }
        let json: JSON
        do { json = try response.json() } catch { throw HarkError.protocolViolation("the server's model list is not JSON") }
        let ids = (json["data"]?.array ?? []).compactMap { $0["id"]?.string }
            + (json["data"] == nil ? (json["models"]?.array ?? []).compactMap { $0["name"]?.string ?? $0["model"]?.string } : [])
        state.update { $0.listedModels = ids }
        return ids
    }

    /// `/think` says whether reasoning is shown; `/think on|off` shows or hides it (hidden
    /// reasoning is dropped before it is shown or recorded, as shown reasoning is never stored
    /// as the reply); `--save` writes `think` to the config.
    func thinkCommand(_ context: CommandContext) async throws -> CommandOutcome {
        guard let choice = context.arguments["on|off"] else {
            if context.arguments.flag("--save") { throw context.badArguments("--save needs on or off") }
            let shown = state.read { $0.showsReasoning }
            return .output([StyledLine("reasoning is \(shown ? "shown (dim)" : "hidden") in \(session.name); /think \(shown ? "off" : "on") changes it", .dim)])
        }
        let shows = choice == "on"
        if context.arguments.flag("--save") {
            try context.updateSettings(["think": shows ? "on" : "off"])
        } else {
            state.update { $0.showsReasoning = shows }
        }
        let what = shows ? "reasoning is shown (dim) in \(session.name)" : "reasoning is hidden in \(session.name)"
        return .output([StyledLine(what + (context.arguments.flag("--save") ? " from now on" : " for this run"), .dim)])
    }
}
