import FoundationEssentials
import Glibc

/// The server's `/v1/embeddings`, for the local session's document search. llama.cpp's server
/// offers it when started with `--embeddings` and otherwise answers 501; other servers answer
/// 404. Either means "no embeddings", remembered for the backend's life, and search goes on
/// with BM25 alone.
extension OpenAIBackend: EmbeddingProvider {
    public var embeddingModel: String { session.model ?? "default" }

    public func embeddings(_ texts: [String]) async throws -> [[Float]]? {
        if embeddingsOffered.read({ $0 }) == false { return nil }
        var body: [String: JSON] = ["input": .array(texts.map(JSON.string)), "encoding_format": "float"]
        if let model = session.model { body["model"] = .string(model) }
        // Beside the chat API at the session's base (or a served model's, started if need be).
        var request = HTTPRequest.json(url: try await base() + "/embeddings", body: .object(body),
                                       headers: [("Accept", "application/json")] + (try auth.headers()), timeouts: timeouts)
        request.tls = try session.tls()
        let response = try await http.fetch(request, maxBytes: 256 << 20, retry: .never)
        if [404, 405, 501].contains(response.status) {
            embeddingsOffered.update { $0 = false }
            return nil
        }
        guard response.head.isSuccess else {
            let message = ServerMessage.extract(from: response.body, contentType: response.head.header("content-type"))
            throw HarkError.http(status: response.status, host: request.displayHost, serverMessage: message)
        }
        embeddingsOffered.update { $0 = true }
        guard let items = try response.json()["data"]?.array else {
            throw HarkError.protocolViolation("\(request.displayHost) answered /embeddings without a data list")
        }
        let ordered = items.enumerated().sorted { ($0.element["index"]?.int ?? $0.offset) < ($1.element["index"]?.int ?? $1.offset) }
        return try ordered.map { _, item in
            guard let numbers = item["embedding"]?.array else {
                throw HarkError.protocolViolation("\(request.displayHost) sent an embedding that is not a list of numbers")
            }
            return numbers.map { Float($0.double ?? 0) }
        }
    }
}
