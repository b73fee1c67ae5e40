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

/// A loopback n8n: a Chat Trigger that answers in streaming mode (NDJSON chunks) or with a
/// "last node" JSON body, and remembers each session's messages for loadPreviousSession.
public final class TestN8NServer: @unchecked Sendable {
    public enum Mode: Sendable {
        /// Streaming: each string becomes one `item` chunk, written as its own HTTP chunk.
        case streaming([String])
        /// Exactly these body bytes, split into HTTP chunks at the given offsets.
        case rawChunks([UInt8], cuts: [Int])
        /// A whole JSON (or other) body.
        case whole(status: Int, contentType: String, body: String)
    }

    public typealias Script = @Sendable (_ request: TestRequest, _ body: JSON) -> Mode

    public let http: TestHTTPServer
    public var webhookURL: String { http.baseURL + "/webhook/4f1c/chat" }

    public init(requiredHeader: (String, String)? = nil, script: @escaping Script) throws {
        let box = MemoryBox()
        http = try TestHTTPServer { request, response in
            guard request.path == "/webhook/4f1c/chat" else {
                response.send(status: 404, json: #"{"code":404,"message":"The requested webhook \"POST x\" is not registered.","hint":"Activate the workflow"}"#)
                return
            }
            if let (name, value) = requiredHeader {
                guard let sent = request.header(name) else {
                    response.send(status: 403, headers: [("Content-Type", "text/plain")], text: "Authorization is required!")
                    return
                }
                guard sent == value else {
                    response.send(status: 403, headers: [("Content-Type", "text/plain")], text: "Authorization data is wrong!")
                    return
                }
            }
            let body = (try? JSON.parse(request.body)) ?? .null
            let sessionID = body["sessionId"]?.string ?? ""
            if body["action"]?.string == "loadPreviousSession" {
                let items: [JSON] = box.history(sessionID).map { entry in
                    ["lc": 1, "type": "constructor",
                     "id": ["langchain_core", "messages", .string(entry.human ? "HumanMessage" : "AIMessage")],
                     "kwargs": ["content": .string(entry.text), "additional_kwargs": [:], "response_metadata": [:]]]
                }
                response.send(json: JSON.object(["data": .array(items)]).encoded())
                return
            }
            let mode = script(request, body)
            switch mode {
            case .streaming(let items):
                response.startChunked(headers: [("Content-Type", "application/json; charset=utf-8")])
                let metadata: JSON = ["nodeId": "a1", "nodeName": "AI Agent", "itemIndex": 0, "runIndex": 0, "timestamp": 1]
                response.write(JSON.object(["type": "begin", "metadata": metadata]).encoded() + "\n")
                for item in items {
                    response.write(JSON.object(["type": "item", "content": .string(item), "metadata": metadata]).encoded() + "\n")
                }
                response.write(JSON.object(["type": "end", "metadata": metadata]).encoded() + "\n")
                box.remember(sessionID, human: body["chatInput"]?.string ?? "", reply: items.joined())
            case .rawChunks(let bytes, let cuts):
                response.startChunked(headers: [("Content-Type", "application/json; charset=utf-8")])
                var start = 0
                for cut in cuts.sorted() + [bytes.count] where cut > start {
                    response.write(Array(bytes[start..<cut]))
                    start = cut
                }
            case .whole(let status, let contentType, let text):
                response.send(status: status, headers: [("Content-Type", contentType)], text: text)
            }
        }
        self.memoryBox = box
    }

    private let memoryBox: MemoryBox

    public func history(_ sessionID: String) -> [(human: Bool, text: String)] { memoryBox.history(sessionID) }

    final class MemoryBox: @unchecked Sendable {
        private let lock = NSLock()
        private var memory: [String: [(human: Bool, text: String)]] = [:]

        func remember(_ session: String, human: String, reply: String) {
            lock.withLock { memory[session, default: []] += [(true, human), (false, reply)] }
        }

        func history(_ session: String) -> [(human: Bool, text: String)] { lock.withLock { memory[session] ?? [] } }
    }
}
