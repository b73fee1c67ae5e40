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
        /// The end: `[DONE]`, `message_stop`, `response.completed`.
        case done
        /// Close the connection here (no end).
        case close
    }

    public typealias Script = @Sendable (_ body: JSON) -> [Step]

    public let http: TestHTTPServer
    public let api: API
    public var baseURL: String { http.baseURL + "/v1" }

    /// The JSON bodies received, in order.
    public var bodies: [JSON] { http.requests.filter { $0.method == "POST" }.compactMap { try? JSON.parse($0.body) } }

    public init(api: API = .chat, status: Int = 200, errorBody: String? = nil,
                models: JSON = ["object": "list", "data": [["id": "test-model", "object": "model"]]], script: @escaping Script) throws {
        self.api = api
        http = try TestHTTPServer { request, response in
            if request.method == "GET", request.path.hasSuffix("/models") {
                response.send(json: models.encoded())
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
            response.startChunked(headers: [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache")])
            var wire = TestModelWire(api: api)
            for step in script(body) {
                switch step {
                case .raw(let text):
                    response.write(text)
                case .wait(let gate):
                    gate.wait()
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
