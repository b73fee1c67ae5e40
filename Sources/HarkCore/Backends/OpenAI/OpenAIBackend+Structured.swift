import FoundationEssentials
import Glibc

/// Replies asked for as data (StructuredOutput says where each server reads the schema):
/// the thread's context as for any message, no tools, `max_tokens` from the format.
extension OpenAIBackend: StructuredReplying {
    public func send(_ request: ChatRequest, format: ReplyFormat) -> AsyncThrowingStream<ReplyEvent, Error> {
        sendPlanned(request) { [self] plan, files in
            var asked = prompt(for: request, plan: plan, files: files)
            asked.maxTokens = format.maxTokens
            let prompt = asked
            return ModelReplyStream.make(ready: fixedBase ?? server?.readyBase, starting: server, hidesReasoning: false,
                                         base: { [self] in try await self.base() }) { [self] base in
                ProducedStream.make { emit in try await self.structured(prompt, format: format, base: base, emit: emit) }
            }
        }
    }

    /// The request with the schema as the server's option; once more with it in the prompt
    /// when the server refuses the option (a 400 comes before any of the reply).
    private func structured(_ prompt: ModelPrompt, format: ReplyFormat, base: String,
                            emit: ProducedStream.Emitter<ReplyEvent>) async throws {
        let server = await StructuredOutput.server(of: base, served: self.server != nil) { await detectServer(base: base) }
        var sendsOption = StructuredOutput.offers(server, api: api.name) && !StructuredOutput.refuses(base)
        while true {
            var asked = prompt
            if !sendsOption { asked.text += StructuredOutput.inPrompt(format) }
            let plain = api.body(for: asked)
            let body = sendsOption ? StructuredOutput.adding(format, to: plain, api: api.name, server: server) : plain
            do {
                for try await event in api.stream(http, { [self] in try request(body, base: base) }) { try await emit(event) }
                return
            } catch where sendsOption && StructuredOutput.isRefusal(error) {
                StructuredOutput.rememberRefusal(base, server: server)
                sendsOption = false
            }
        }
    }

    /// Who serves the API: `/models` names llama.cpp, vLLM and OpenAI; Ollama answers
    /// `/api/version` at its root. A server that says neither in a few seconds is "other".
    func detectServer(base: String) async -> StructuredOutput.Server {
        let headers = (try? auth.headers()) ?? []
        let tls = (try? session.tls()) ?? TLSOptions(insecure: session.isInsecure)
        let quick = HTTPTimeouts(connect: min(timeouts.connect, 5), firstByte: 5, idle: 5)
        var models = HTTPRequest(url: base + "/models", headers: headers, timeouts: quick)
        models.tls = tls
        if let response = try? await http.fetch(models, maxBytes: 4 << 20, retry: .never), response.status == 200,
           let list = (try? response.json())?["data"]?.array,
           let server = StructuredOutput.server(ownedBy: list.compactMap { $0["owned_by"]?.string }) {
            return server
        }
        var version = HTTPRequest(url: ServerContextWindow.root(of: base) + "/api/version", headers: headers, timeouts: quick)
        version.tls = tls
        if let response = try? await http.fetch(version, maxBytes: 1 << 16, retry: .never), response.status == 200,
           (try? response.json())?["version"]?.string != nil {
            return .ollama
        }
        return .other
    }
}
