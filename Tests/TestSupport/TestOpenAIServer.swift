import Foundation
import HarkCore

/// A loopback model server speaking one of the APIs a model session does (OpenAI's Chat
/// Completions, Anthropic's Messages, OpenAI's Responses; see TestModelWire for the shapes and
/// where they come from), with each reply scripted by the test: text and reasoning, tool calls,
/// usage, the end, raw bytes, pauses on a Gate, errors, an early close. Records what it was
/// asked, and lists `models` at `GET …/models`.
public final class TestOpenAIServer: @unchecked Sendable {
    public enum API: String, Sendable {
        case chat, messages, responses

        var path: String {
            switch self {
            case .chat: return "/chat/completions"
            case .messages: return "/messages"
            case .responses: return "/responses"
            }
        }
    }

    public enum Step: Sendable {
        case text(String)
        case reasoning(String)
        /// A tool call whose arguments arrive in these pieces.
        case toolCall(id: String, name: String, arguments: [String])
        /// Why the reply ended, in Chat Completions' words (`length`, `tool_calls`): a chunk
        /// with its finish_reason, or the stop reason of the other APIs' end.
        case finish(String)
        case usage(prompt: Int, completion: Int)
        /// Bytes exactly as given (for BOMs, comments, CRLFs split across writes…).
        case raw(String)
        case wait(Gate)
        case error(String)
        /// Answer this status and body instead of a stream (must come first): a server's error
        /// before the reply, such as a context overflow.
        case fail(status: Int, body: String)
        /// llama.cpp's server of 2024 and early 2025 (examples/server/server.cpp): a mid-stream
        /// error as `server_sent_event(sink, "error", error_data)`, an SSE field line
        /// `error: {"code":500,"message":…,"type":"server_error"}` (utils.hpp,
        /// format_error_response); the stream then ends with `data: [DONE]`. Chat Completions only.
        case llamaError(String)
        /// vLLM up to 0.3 (vllm/entrypoints/openai/serving_engine.py): the ErrorResponse as the
        /// chunk itself, `data: {"object":"error","message":…,"type":…,"param":null,"code":400}`.
        /// Chat Completions only.
        case vllmError(String)
        /// The end: `[DONE]`, `message_stop`, `response.completed`.
        case done
        /// Close the connection here (no end).
        case close
    }

    public typealias Script = @Sendable (_ body: JSON) -> [Step]

    /// What `/v1/embeddings` does.
    public enum Embeddings: Sendable {
        /// Not there: 404, as a chat-only server answers.
        case none
        /// llama.cpp's server started without `--embeddings`.
        case notSupported
        /// A vector for each input text.
        case vectors(@Sendable (String) -> [Float])
    }

    public let http: TestHTTPServer
    public let api: API
    public var baseURL: String { http.baseURL + "/v1" }

    /// The JSON bodies of the API's requests received (chat completions, messages or responses), in order.
    public var bodies: [JSON] {
        http.requests.filter { $0.method == "POST" && $0.path.hasSuffix(api.path) }.compactMap { try? JSON.parse($0.body) }
    }

    /// The messages of each chat completion received, as role and content.
    public var sentMessages: [[Turn]] {
        bodies.map { body in
            (body["messages"]?.array ?? []).map { Turn(role: MessageRole(rawValue: $0["role"]?.string ?? "") ?? .system,
                                                       text: $0["content"]?.string ?? "") }
        }
    }

    /// `props`: what `GET /props` answers, as llama.cpp's server does (nil: 404, as other
    /// servers). `show`: what `POST /api/show` answers, as Ollama does (nil: 404).
    public init(api: API = .chat, status: Int = 200, errorBody: String? = nil, props: JSON? = nil, show: JSON? = nil,
                models: JSON = ["object": "list", "data": [["id": "test-model", "object": "model"]]],
                embeddings: Embeddings = .none, script: @escaping Script) throws {
        self.api = api
        http = try TestHTTPServer { request, response in
            if request.method == "POST", request.path.hasSuffix("/embeddings") {
                Self.embed(request, response, embeddings)
                return
            }
            if request.method == "GET", request.path.hasSuffix("/models") {
                response.send(json: models.encoded())
                return
            }
            if request.method == "GET", request.path == "/props", let props {
                response.send(json: props.encoded())
                return
            }
            if request.method == "POST", request.path == "/api/show", let show {
                response.send(json: show.encoded())
                return
            }
            guard request.method == "POST", request.path.hasSuffix(api.path) else {
                response.send(status: 404, json: #"{"error":{"message":"not found","type":"invalid_request_error"}}"#)
                return
            }
            if status != 200 {
                response.send(status: status, json: errorBody ?? #"{"error":{"message":"boom","type":"server_error"}}"#)
                return
            }
            let body = (try? JSON.parse(request.body)) ?? .null
            if api == .chat, let problem = Self.messagesProblem(body) {
                response.send(status: 400, json: JSON.object(["error": ["code": 400, "message": .string(problem),
                                                                        "type": "invalid_request_error"]]).encoded())
                return
            }
            let steps = script(body)
            if case .fail(let status, let text)? = steps.first {
                response.send(status: status, json: text)
                return
            }
            response.startChunked(headers: [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache")])
            var wire = TestModelWire(api: api)
            for step in steps {
                switch step {
                case .raw(let text):
                    response.write(text)
                case .wait(let gate):
                    gate.wait(seconds: 120)  // past the 90 s a test on a loaded machine may wait for what comes before
                case .fail:
                    break
                case .llamaError(let message):
                    let error: JSON = ["code": 500, "message": .string(message), "type": "server_error"]
                    response.write("error: " + error.encoded() + "\n\n")
                case .vllmError(let message):
                    let error: JSON = ["object": "error", "message": .string(message), "type": "BadRequestError",
                                       "param": nil, "code": 400]
                    response.write("data: " + error.encoded() + "\n\n")
                case .close:
                    response.abort()
                    return
                default:
                    let bytes = wire.write(step)
                    if !bytes.isEmpty { response.write(bytes) }
                }
            }
        }
    }

    /// `/v1/embeddings` as llama.cpp's server answers it. The body is what
    /// `format_embeddings_response_oaicompat` builds (ggml-org/llama.cpp,
    /// tools/server/server-common.cpp): `{"model", "object": "list", "usage": {"prompt_tokens",
    /// "total_tokens"}, "data": [{"embedding": [...], "index": i, "object": "embedding"}]}`, one
    /// item per input in order. Without `--embeddings` the server refuses with 501 and
    /// `{"error": {"code": 501, "message": "This server does not support embeddings. Start it
    /// with `--embeddings`", "type": "not_supported_error"}}` (tools/server/server.cpp, the
    /// embeddings handler, through format_error_response with ERROR_TYPE_NOT_SUPPORTED).
    static func embed(_ request: TestRequest, _ response: ResponseWriter, _ mode: Embeddings) {
        switch mode {
        case .none:
            response.send(status: 404, json: #"{"error":{"code":404,"message":"File Not Found","type":"not_found_error"}}"#)
        case .notSupported:
            response.send(status: 501, json: #"{"error":{"code":501,"message":"This server does not support embeddings. Start it with `--embeddings`","type":"not_supported_error"}}"#)
        case .vectors(let vector):
            let body = (try? JSON.parse(request.body)) ?? .null
            let inputs = body["input"]?.array?.compactMap(\.string) ?? body["input"]?.string.map { [$0] } ?? []
            let data: [JSON] = inputs.enumerated().map { index, text in
                ["embedding": .array(vector(text).map { .number(Double($0)) }), "index": .number(Double(index)),
                 "object": "embedding"]
            }
            let tokens = JSON.number(Double(inputs.reduce(0) { $0 + $1.split(separator: " ").count }))
            let answer: JSON = ["model": body["model"] ?? "test-model", "object": "list",
                                "usage": ["prompt_tokens": tokens, "total_tokens": tokens], "data": .array(data)]
            response.send(json: answer.encoded())
        }
    }

    /// What a chat server refuses in `messages`: none, a message without a role or content, a
    /// role it does not know, a last message not the user's (or a tool's result), or a system message after the
    /// first (several models' Jinja chat templates, which llama.cpp runs, raise "System message
    /// must be at the beginning").
    static func messagesProblem(_ body: JSON) -> String? {
        guard let messages = body["messages"]?.array, !messages.isEmpty else { return "'messages' is required" }
        for (index, message) in messages.enumerated() {
            guard let role = message["role"]?.string, message["content"] != nil else {
                return "each message needs a role and content"
            }
            guard ["system", "user", "assistant", "tool"].contains(role) else { return "unknown role \(role)" }
            if role == "system", index > 0 { return "System message must be at the beginning" }
        }
        return ["user", "tool"].contains(messages.last?["role"]?.string ?? "") ? nil : "the last message must be the user's"
    }

    public static func chunk(_ delta: [String: JSON]) -> String {
        let json: JSON = ["id": "c1", "object": "chat.completion.chunk", "model": "test-model",
                          "choices": [["index": 0, "delta": .object(delta), "finish_reason": nil]]]
        return "data: " + json.encoded() + "\n\n"
    }

    /// A script that streams `words` then usage and the end.
    public static func streaming(_ words: [String]) -> Script {
        { _ in words.map { Step.text($0) } + [.usage(prompt: 5, completion: words.count), .done] }
    }
}
