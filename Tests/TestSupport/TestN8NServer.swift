import Foundation
import HarkCore

/// A loopback n8n: a Chat Trigger that answers in streaming mode (NDJSON chunks), with a
/// "last node" JSON body, or in "Using Response Nodes" mode over its chat WebSocket, and
/// remembers each session's messages for loadPreviousSession. Each behaviour below names the
/// n8n source it copies (n8n-io/n8n).
public final class TestN8NServer: @unchecked Sendable {
    public enum Mode: Sendable {
        /// Streaming: each string becomes one `item` chunk, written as its own HTTP chunk.
        case streaming([String])
        /// Streaming, step by step: items, keepalives and node errors between them.
        case steps([Step])
        /// Exactly these body bytes, split into HTTP chunks at the given offsets.
        case rawChunks([UInt8], cuts: [Int])
        /// A whole JSON (or other) body.
        case whole(status: Int, contentType: String, body: String)
        /// "Using Response Nodes": the webhook answers that the execution started; the
        /// workflow's messages go over the chat WebSocket, as `chat` says (nil: the socket
        /// does not know the execution).
        case responseNodes(executionID: String, resumeToken: String?, chat: [ChatStep]?)
    }

    /// One line of a streamed reply.
    public enum Step: Sendable {
        case item(String)
        /// packages/cli/src/webhooks/streaming-webhook-response-heartbeat.ts: every 30 s while
        /// the response streams, `const STREAMING_KEEPALIVE_CHUNK = '{"type":"keepalive"}\n'`.
        case keepalive
        /// packages/core/src/execution-engine/workflow-execute.ts: a node that fails sends
        /// `runHook('sendChunk', [{type: 'error', content: executionError.description,
        /// metadata: {nodeId, nodeName, runIndex, itemIndex: 0}}])` and, set to continue on
        /// fail, the workflow goes on. `description` may be undefined: no content member.
        case nodeError(node: String, description: String?)
    }

    /// What the chat WebSocket does, in order (packages/cli/src/chat/chat-service.ts).
    public enum ChatStep: Sendable {
        /// `startSession` ends with `ws.send(N8N_HEARTBEAT)`; the client answers
        /// `n8n|heartbeat-ack` (the server waits for it here).
        case heartbeat
        /// `processWaitingExecution`: a waiting node's message, then nothing (it waits for the
        /// user's answer). `fragments` > 1 splits it into continuation frames with a ping
        /// between them (RFC 6455 lets control frames come between fragments).
        case message(String, fragments: Int = 1)
        /// A message whose node resumes at once (`shouldResumeImmediately`): the message and
        /// `n8n|continue`, written together as n8n writes them.
        case messageThenContinue(String)
        /// `incomingMessageHandler`: the answer the waiting node gets, read off the socket.
        case awaitAnswer
        /// `processSuccessExecution` → `closeConnection`: `ws.close()`, a close frame with no
        /// code; then the client's close frame is read.
        case close
        /// `cleanupSession` (the execution failed or was cancelled): `ws.terminate()`, no close frame.
        case terminate
    }

    /// How the trigger answers `loadPreviousSession` (ChatTrigger.node.ts).
    public enum HistoryMode: Sendable {
        /// "memory": `{data: memory.chatHistory.getMessages().map(m => m.toJSON())}`.
        case memory
        /// "memory" with a model whose messages carry content parts (LangChain `content` as
        /// `[{type: "text", text}]`, e.g. Anthropic's), and a tool call part with no text.
        case memoryWithContentParts
        /// "manually": the request runs the workflow like a message, and a streaming trigger
        /// answers it with a stream.
        case manuallyStreaming
    }

    public typealias Script = @Sendable (_ request: TestRequest, _ body: JSON) -> Mode

    public let http: TestHTTPServer
    public var webhookURL: String { http.baseURL + "/webhook/4f1c/chat" }
    private let box: Box

    /// The chat WebSocket connections, in order.
    public var chatPeers: [TestWebSocketPeer] { box.peers }
    /// The answers the chat sockets received (`{sessionId, action, chatInput}`).
    public var chatAnswers: [JSON] { box.answers }

    public init(requiredHeader: (String, String)? = nil, history: HistoryMode = .memory, script: @escaping Script) throws {
        let box = Box()
        self.box = box
        http = try TestHTTPServer { request, response in
            if request.path == "/chat" {
                Self.chat(request, response, box: box)
                return
            }
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
                Self.loadPreviousSession(box.history(sessionID), mode: history, response)
                return
            }
            switch script(request, body) {
            case .streaming(let items):
                Self.stream(items.map(Step.item), response)
                box.remember(sessionID, human: body["chatInput"]?.string ?? "", reply: items.joined())
            case .steps(let steps):
                Self.stream(steps, response)
            case .rawChunks(let bytes, let cuts):
                response.startChunked(headers: [("Content-Type", "application/json; charset=utf-8")])
                var start = 0
                for cut in cuts.sorted() + [bytes.count] where cut > start {
                    response.write(Array(bytes[start..<cut]))
                    start = cut
                }
            case .whole(let status, let contentType, let text):
                response.send(status: status, headers: [("Content-Type", contentType)], text: text)
            case .responseNodes(let executionID, let token, let chat):
                // packages/cli/src/webhooks/webhook-helpers.ts, handleHostedChatResponse:
                // `res.send({ executionStarted: true, executionId, resumeToken })`.
                if let chat { box.start(executionID, chat: chat) }
                var answer: [String: JSON] = ["executionStarted": true, "executionId": .string(executionID)]
                if let token { answer["resumeToken"] = .string(token) }
                response.send(json: JSON.object(answer).encoded())
            }
        }
    }

    /// The chat trigger's stream: `{"type":"begin|item|end",…,"metadata":{…}}` lines
    /// (ChatTrigger.node.ts writes the head; each node's chunks come from `sendChunk`).
    static func stream(_ steps: [Step], _ response: ResponseWriter) {
        response.startChunked(headers: [("Content-Type", "application/json; charset=utf-8")])
        let metadata: JSON = ["nodeId": "a1", "nodeName": "AI Agent", "itemIndex": 0, "runIndex": 0, "timestamp": 1]
        response.write(JSON.object(["type": "begin", "metadata": metadata]).encoded() + "\n")
        for step in steps {
            switch step {
            case .item(let text):
                response.write(JSON.object(["type": "item", "content": .string(text), "metadata": metadata]).encoded() + "\n")
            case .keepalive:
                response.write(#"{"type":"keepalive"}"# + "\n")
            case .nodeError(let node, let description):
                var chunk: [String: JSON] = ["type": "error", "metadata": ["nodeId": .string("n-" + node), "nodeName": .string(node),
                                                                         "runIndex": 0, "itemIndex": 0]]
                if let description { chunk["content"] = .string(description) }
                response.write(JSON.object(chunk).encoded() + "\n")
            }
        }
        response.write(JSON.object(["type": "end", "metadata": metadata]).encoded() + "\n")
    }

    static func loadPreviousSession(_ history: [(human: Bool, text: String)], mode: HistoryMode, _ response: ResponseWriter) {
        if case .manuallyStreaming = mode {
            stream([.keepalive, .item("Loaded nothing: this workflow handles its history itself.")], response)
            return
        }
        var items: [JSON] = history.map { entry in
            var content: JSON = .string(entry.text)
            if case .memoryWithContentParts = mode, !entry.human {
                let half = entry.text.index(entry.text.startIndex, offsetBy: entry.text.count / 2)
                content = [["type": "text", "text": .string(String(entry.text[..<half]))],
                           ["type": "tool_use", "id": "t1", "name": "search", "input": [:]],
                           ["type": "text", "text": .string(String(entry.text[half...]))]]
            }
            return ["lc": 1, "type": "constructor",
                    "id": ["langchain_core", "messages", .string(entry.human ? "HumanMessage" : "AIMessage")],
                    "kwargs": ["content": content, "additional_kwargs": [:], "response_metadata": [:]]]
        }
        if case .memoryWithContentParts = mode {
            // An AI message that only called a tool: content parts without text.
            items.append(["lc": 1, "type": "constructor", "id": ["langchain_core", "messages", "AIMessage"],
                          "kwargs": ["content": [["type": "tool_use", "id": "t2", "name": "search", "input": [:]]]]])
        }
        response.send(json: JSON.object(["data": .array(items)]).encoded())
    }

    /// The chat socket: packages/cli/src/chat/chat-server.ts upgrades `/chat?sessionId&executionId`;
    /// chat-service.ts `startSession` closes with 1008 without both ids, and for an execution
    /// it cannot find sends `Execution with id "…" does not exist` and closes with 1008.
    static func chat(_ request: TestRequest, _ response: ResponseWriter, box: Box) {
        guard let peer = TestWebSocketPeer(request: request, writer: response) else { return }
        defer { peer.finish() }
        box.connected(peer)
        guard let session = request.query["sessionId"], !session.isEmpty,
              let executionID = request.query["executionId"], !executionID.isEmpty else {
            peer.close(code: 1008)
            return
        }
        guard let steps = box.chat(executionID) else {
            peer.send(text: "Execution with id \"\(executionID)\" does not exist")
            peer.close(code: 1008)
            _ = peer.readFrame()
            return
        }
        for step in steps {
            switch step {
            case .heartbeat:
                peer.send(text: "n8n|heartbeat")
                guard peer.readText() == "n8n|heartbeat-ack" else { return peer.drop() }
            case .message(let text, let fragments):
                let bytes = Array(text.utf8)
                let size = max(1, (bytes.count + fragments - 1) / max(fragments, 1))
                let pieces = stride(from: 0, to: bytes.count, by: size).map { Array(bytes[$0..<min($0 + size, bytes.count)]) }
                var frames: [UInt8] = []
                for (index, piece) in pieces.enumerated() {
                    if index > 0 { frames += TestWebSocketPeer.frame(opcode: 0x9, Array("ping \(index)".utf8)) }
                    frames += TestWebSocketPeer.frame(opcode: index == 0 ? 0x1 : 0x0, fin: index == pieces.count - 1, piece)
                }
                peer.write(frames)
            case .messageThenContinue(let text):
                peer.write(TestWebSocketPeer.frame(opcode: 0x1, Array(text.utf8)),
                           TestWebSocketPeer.frame(opcode: 0x1, Array("n8n|continue".utf8)))
            case .awaitAnswer:
                guard let text = peer.readText(), let answer = try? JSON.parse(Array(text.utf8)) else { return peer.drop() }
                box.answered(answer)
            case .close:
                peer.close()
                _ = peer.readFrame()
            case .terminate:
                peer.drop()
            }
        }
    }

    public func history(_ sessionID: String) -> [(human: Bool, text: String)] { box.history(sessionID) }

    final class Box: @unchecked Sendable {
        private let lock = NSLock()
        private var memory: [String: [(human: Bool, text: String)]] = [:]
        private var executions: [String: [ChatStep]] = [:]
        private var connectedPeers: [TestWebSocketPeer] = []
        private var receivedAnswers: [JSON] = []

        func remember(_ session: String, human: String, reply: String) {
            lock.withLock { memory[session, default: []] += [(true, human), (false, reply)] }
        }

        func history(_ session: String) -> [(human: Bool, text: String)] { lock.withLock { memory[session] ?? [] } }
        func start(_ execution: String, chat: [ChatStep]) { lock.withLock { executions[execution] = chat } }
        func chat(_ execution: String) -> [ChatStep]? { lock.withLock { executions[execution] } }
        func connected(_ peer: TestWebSocketPeer) { lock.withLock { connectedPeers.append(peer) } }
        var peers: [TestWebSocketPeer] { lock.withLock { connectedPeers } }
        func answered(_ answer: JSON) { lock.withLock { receivedAnswers.append(answer) } }
        var answers: [JSON] { lock.withLock { receivedAnswers } }
    }
}
