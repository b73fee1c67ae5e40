import FoundationEssentials
import Glibc

/// What an OpenAI-compatible server says of its model: the context window it holds, and
/// whether it takes images. Where it says:
///
/// - llama.cpp's server: `GET /props` → `default_generation_settings.n_ctx` (the slot's
///   context, which is what a request must fit; ggml-org/llama.cpp tools/server/server-context.cpp,
///   `handle_props`: `{ "default_generation_settings", default_generation_settings_for_props }`,
///   where that object holds `"n_ctx", slot.n_ctx`). Older builds put `n_ctx` at the top.
///   Builds with multimodal support add `"modalities": {"vision": bool, "audio": bool}` (true
///   when started with a projector, `--mmproj`; tools/server/README.md, `GET /props`).
/// - Ollama: `POST /api/show {"model": NAME}` → `parameters` (text lines such as
///   `num_ctx 8192`, when the Modelfile sets it), else the runtime default of 4096
///   (ollama/ollama envconfig/config.go: `ContextLength = Uint("OLLAMA_CONTEXT_LENGTH", 4096)`)
///   capped by the model's trained `model_info["<arch>.context_length"]`; `capabilities`
///   lists `vision` for a model that reads images (docs/api.md, "Show Model Information").
///
/// Both live beside the OpenAI layer's `/v1`, at the server's root. Anything else (a hosted
/// API answering 404, a timeout) means the server does not say.
public struct ServerContextWindow: Sendable, Equatable {
    public var tokens: Int
    /// Where it came from, for `/info`: "llama.cpp /props".
    public var source: String

    static let ollamaDefault = 4096

    /// What the server said: its window and whether its model takes images, each nil where it
    /// did not say.
    struct Facts: Sendable, Equatable {
        var window: ServerContextWindow?
        var takesImages: Bool?
    }

    static func learn(http: HTTPClient, base: String, model: String?, headers: [(name: String, value: String)],
                      tls: TLSOptions, connectTimeout: Double) async -> Facts {
        let root = Self.root(of: base)
        // A server that does not answer in a few seconds does not hold up the message.
        let timeouts = HTTPTimeouts(connect: min(connectTimeout, 5), firstByte: 5, idle: 5)
        var props = HTTPRequest(url: root + "/props", headers: headers, timeouts: timeouts)
        props.tls = tls
        if let response = try? await http.fetch(props, maxBytes: 1 << 20, retry: .never), response.status == 200,
           let json = try? response.json(), let tokens = Self.llamaCppWindow(json) {
            return Facts(window: ServerContextWindow(tokens: tokens, source: "llama.cpp /props"),
                         takesImages: json["modalities"]?["vision"]?.bool)
        }
        guard let model else { return Facts() }
        var show = HTTPRequest.json(url: root + "/api/show", body: ["model": .string(model)], headers: headers,
                                    timeouts: timeouts)
        show.tls = tls
        if let response = try? await http.fetch(show, maxBytes: 8 << 20, retry: .never), response.status == 200,
           let json = try? response.json(), let tokens = Self.ollamaWindow(json) {
            return Facts(window: ServerContextWindow(tokens: tokens, source: "Ollama /api/show"),
                         takesImages: json["capabilities"]?.array.map { $0.contains(.string("vision")) })
        }
        return Facts()
    }

    /// `http://host:8080/v1` → `http://host:8080`: the OpenAI layer's `/v1` (and a full
    /// `/chat/completions` endpoint) taken off.
    static func root(of base: String) -> String {
        var root = base
        while root.hasSuffix("/") { root.removeLast() }
        for suffix in ["/chat/completions", "/v1"] where root.hasSuffix(suffix) { root.removeLast(suffix.count) }
        return root
    }

    static func llamaCppWindow(_ json: JSON?) -> Int? {
        guard let json else { return nil }
        let tokens = json["default_generation_settings"]?["n_ctx"]?.int ?? json["n_ctx"]?.int
        return tokens.flatMap { $0 > 0 ? $0 : nil }
    }

    static func ollamaWindow(_ json: JSON?) -> Int? {
        guard let json, json["model_info"] != nil || json["parameters"] != nil else { return nil }
        for line in (json["parameters"]?.string ?? "").split(separator: "\n") {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            if words.count == 2, words[0] == "num_ctx", let tokens = Int(words[1]), tokens > 0 { return tokens }
        }
        let trained = json["model_info"]?.object?.first { $0.key.hasSuffix(".context_length") }?.value.int
        return min(trained ?? ollamaDefault, ollamaDefault)
    }
}
