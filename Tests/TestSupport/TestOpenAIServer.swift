import Foundation
import HarkCore

/// A loopback server speaking OpenAI's `/v1/chat/completions` streaming protocol, with each
/// reply scripted by the test: text and reasoning chunks, usage, raw bytes, pauses on a Gate,
/// errors, an early close. Records what it was asked.
public final class TestOpenAIServer: @unchecked Sendable {
    public enum Step: Sendable {
        case text(String)
        case reasoning(String)
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
        /// format_error_response); the stream then ends with `data: [DONE]`.
        case llamaError(String)
        /// vLLM up to 0.3 (vllm/entrypoints/openai/serving_engine.py): the ErrorResponse as the
        /// chunk itself, `data: {"object":"error","message":…,"type":…,"param":null,"code":400}`.
        case vllmError(String)
        /// The last chunk of a choice: an empty delta and its finish_reason (`length` when
        /// max_tokens cut it).
        case finish(String)
        case done
        /// Close the connection here (no [DONE]).
        case close
    }

    public typealias Script = @Sendable (_ body: JSON) -> [Step]

    public let http: TestHTTPServer
    public var baseURL: String { http.baseURL + "/v1" }

    /// The JSON bodies of the chat completions received, in order.
    public var bodies: [JSON] {
        http.requests.filter { $0.path.hasSuffix("/chat/completions") }.compactMap { try? JSON.parse($0.body) }
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
    public init(status: Int = 200, errorBody: String? = nil, props: JSON? = nil, show: JSON? = nil,
                script: @escaping Script) throws {
        http = try TestHTTPServer { request, response in
            if request.method == "GET", request.path == "/props", let props {
                response.send(json: props.encoded())
                return
            }
            if request.method == "POST", request.path == "/api/show", let show {
                response.send(json: show.encoded())
                return
            }
            guard request.method == "POST", request.path.hasSuffix("/chat/completions") else {
                response.send(status: 404, json: #"{"error":{"message":"not found","type":"invalid_request_error"}}"#)
                return
            }
            if status != 200 {
                response.send(status: status, json: errorBody ?? #"{"error":{"message":"boom","type":"server_error"}}"#)
                return
            }
            let body = (try? JSON.parse(request.body)) ?? .null
            if let problem = Self.messagesProblem(body) {
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
            for step in steps {
                switch step {
                case .text(let text):
                    response.write(Self.chunk(["content": .string(text)]))
                case .reasoning(let text):
                    response.write(Self.chunk(["reasoning_content": .string(text)]))
                case .usage(let prompt, let completion):
                    let usage: JSON = ["id": "c1", "object": "chat.completion.chunk", "choices": [],
                                       "usage": ["prompt_tokens": .number(Double(prompt)),
                                                 "completion_tokens": .number(Double(completion)),
                                                 "total_tokens": .number(Double(prompt + completion))]]
                    response.write("data: " + usage.encoded() + "\n\n")
                case .raw(let text):
                    response.write(text)
                case .wait(let gate):
                    gate.wait()
                case .error(let message):
                    response.write("data: " + JSON.object(["error": ["message": .string(message), "type": "server_error"]]).encoded() + "\n\n")
                case .fail:
                    break
                case .llamaError(let message):
                    let error: JSON = ["code": 500, "message": .string(message), "type": "server_error"]
                    response.write("error: " + error.encoded() + "\n\n")
                case .vllmError(let message):
                    let error: JSON = ["object": "error", "message": .string(message), "type": "BadRequestError",
                                       "param": nil, "code": 400]
                    response.write("data: " + error.encoded() + "\n\n")
                case .finish(let reason):
                    let json: JSON = ["id": "c1", "object": "chat.completion.chunk", "model": "test-model",
                                      "choices": [["index": 0, "delta": [:], "finish_reason": .string(reason)]]]
                    response.write("data: " + json.encoded() + "\n\n")
                case .done:
                    response.write("data: [DONE]\n\n")
                case .close:
                    response.abort()
                    return
                }
            }
        }
    }

    /// What a chat server refuses in `messages`: none, a message without a role or content, a
    /// role it does not know, a last message not the user's, or a system message after the
    /// first (several models' Jinja chat templates, which llama.cpp runs, raise "System message
    /// must be at the beginning").
    static func messagesProblem(_ body: JSON) -> String? {
        guard let messages = body["messages"]?.array, !messages.isEmpty else { return "'messages' is required" }
        for (index, message) in messages.enumerated() {
            guard let role = message["role"]?.string, message["content"] != nil else {
                return "each message needs a role and content"
            }
            guard ["system", "user", "assistant"].contains(role) else { return "unknown role \(role)" }
            if role == "system", index > 0 { return "System message must be at the beginning" }
        }
        return messages.last?["role"]?.string == "user" ? nil : "the last message must be the user's"
    }

    public static func chunk(_ delta: [String: JSON]) -> String {
        let json: JSON = ["id": "c1", "object": "chat.completion.chunk", "model": "test-model",
                          "choices": [["index": 0, "delta": .object(delta), "finish_reason": nil]]]
        return "data: " + json.encoded() + "\n\n"
    }

    /// A script that streams `words` then usage and [DONE].
    public static func streaming(_ words: [String]) -> Script {
        { _ in words.map { Step.text($0) } + [.usage(prompt: 5, completion: words.count), .done] }
    }
}
