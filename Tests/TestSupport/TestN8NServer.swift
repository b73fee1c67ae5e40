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

    /// What the chat WebSocket does, in order (packages/cli/src/chat/chat-service.ts), each in
    /// the socket's `ChatGeneration`.
    public enum ChatStep: Sendable {
        /// `startSession` ends with a heartbeat; the client answers it (the server waits for the
        /// answer here and drops the socket on anything else).
        case heartbeat
        /// `checkHeartbeats` runs every HEARTBEAT_INTERVAL (30 s in n8n, `heartbeatInterval`
        /// here): this many more heartbeats, each answered before the next interval, else the
        /// execution is cancelled and the socket terminated, as n8n does after 60 s.
        case heartbeats(Int)
        /// `processWaitingExecution`: a waiting node's message, then nothing (it waits for the
        /// user's answer). `fragments` > 1 splits it into continuation frames with a ping
        /// between them (RFC 6455 lets control frames come between fragments).
        case message(String, fragments: Int = 1)
        /// A message whose node resumes at once (`shouldResumeImmediately`): the message and
        /// a continue, written together as n8n writes them.
        case messageThenContinue(String)
        /// n8n-workflow's ChatNodeMessageWithButtons, as a send-and-wait approval node's
        /// message: `{type: "with-buttons", text, blockUserInput, buttons: [{text, link, type}]}`
        /// (@n8n/nodes-langchain ChatTrigger util's getChatMessage with n8n-nodes-base
        /// utils/sendAndWait/utils.ts getSendAndWaitConfig: each link is the signed resume URL
        /// `<webhook-waiting>/EXECUTION/NODE?approved=true|false&signature=…`).
        case buttons(String, [Button], blockUserInput: Bool)
        /// The button's GET resumes the execution (webhook-waiting), and the socket's next poll
        /// finds it running while a node waited: `sendFrame(CONTINUE)` (getExecutionOrCleanupSession).
        case awaitPress
        /// `incomingMessageHandler`: the answer the waiting node gets, read off the socket.
        case awaitAnswer
        /// json generation: `sendFrame(ws, {type: "error", message})`, then `ws.close(1008)`.
        case error(String)
        /// A frame of a type a newer n8n may add: clients ignore what they do not know.
        case unknownFrame(String)
        /// `processSuccessExecution` → `closeConnection`: `ws.close()`, a close frame with no
        /// code; then the client's close frame is read.
        case close
        /// `cleanupSession` (the execution failed or was cancelled): `ws.terminate()`, no close frame.
        case terminate
    }

    /// A button of a with-buttons message: its label, and what its resume URL says.
    public struct Button: Sendable {
        public var label: String
        public var approved: Bool
        public init(_ label: String, approved: Bool) {
            self.label = label
            self.approved = approved
        }
    }

    /// The two ways n8n has framed the chat socket (packages/cli/src/chat/chat-service.ts):
    /// `plain` control texts (`n8n|heartbeat`, `n8n|continue`, the client's `n8n|heartbeat-ack`)
    /// with a message as its raw text; `json`, where "every frame sent over the socket is JSON
    /// with a `type` discriminator" and the client answers `{"type":"heartbeat-ack"}`.
    public enum ChatGeneration: Sendable {
        case plain, json

        public var heartbeat: String { self == .plain ? "n8n|heartbeat" : #"{"type":"heartbeat"}"# }
        public var heartbeatAck: String { self == .plain ? "n8n|heartbeat-ack" : #"{"type":"heartbeat-ack"}"# }
        public var proceed: String { self == .plain ? "n8n|continue" : #"{"type":"continue"}"# }

        /// `processWaitingExecution`: a string message as it is, or as `{type: "message", text}`.
        public func message(_ text: String) -> String {
            self == .plain ? text : JSON.object(["type": "message", "text": .string(text)]).encoded()
        }

        /// `startSession` for an execution it cannot find.
        func unknownExecution(_ id: String) -> String {
            self == .plain ? "Execution with id \"\(id)\" does not exist"
                : JSON.object(["type": "error", "message": "Connection rejected"]).encoded()
        }
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
    /// The buttons pressed: each resume URL's query (`approved`, `signature`).
    public var presses: [[String: String]] { box.allPresses }
    /// The heartbeats the chat sockets sent and saw answered.
    public var heartbeatsAnswered: Int { box.answeredHeartbeats }

    /// Waits (on the server's own signal, at most 30 s) until the chat sockets saw `count`
    /// heartbeats answered in all; false if they did not.
    public func waitForHeartbeats(_ count: Int) async -> Bool {
        let box = self.box
        return await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: box.waitForHeartbeats(count)) }.start()
        }
    }

    /// `chatGeneration`: how the chat socket frames what it says. `heartbeatInterval`: n8n's
    /// 30 s between heartbeats, scaled down.
    public init(requiredHeader: (String, String)? = nil, history: HistoryMode = .memory, chatGeneration: ChatGeneration = .plain,
                heartbeatInterval: Double = 0.05, script: @escaping Script) throws {
        let box = Box()
        self.box = box
        let generation = chatGeneration
        let baseURL = Locked("")
        http = try TestHTTPServer { request, response in
            if request.path == "/chat" {
                Self.chat(request, response, box: box, generation: generation, interval: heartbeatInterval,
                          waitingURL: baseURL.read { $0 } + "/webhook-waiting")
                return
            }
            if request.path.hasPrefix("/webhook-waiting/") {
                // packages/cli/src/webhooks/waiting-webhooks.ts resumes the execution; the
                // send-and-wait node answers with its ACTION_RECORDED_PAGE.
                let execution = request.path.split(separator: "/").dropFirst().first.map(String.init) ?? ""
                box.press(execution, query: request.query)
                response.send(headers: [("Content-Type", "text/html; charset=utf-8")],
                              text: "<html><body><p>Your response has been recorded</p></body></html>")
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
        let base = http.baseURL
        baseURL.update { $0 = base }
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
    /// it cannot find says so (in the generation's words) and closes with 1008.
    static func chat(_ request: TestRequest, _ response: ResponseWriter, box: Box, generation: ChatGeneration,
                     interval: Double, waitingURL: String) {
        guard let peer = TestWebSocketPeer(request: request, writer: response) else { return }
        defer { peer.finish() }
        box.connected(peer)
        guard let session = request.query["sessionId"], !session.isEmpty,
              let executionID = request.query["executionId"], !executionID.isEmpty else {
            peer.close(code: 1008)
            return
        }
        guard let steps = box.chat(executionID) else {
            peer.send(text: generation.unknownExecution(executionID))
            peer.close(code: 1008)
            _ = peer.readFrame()
            return
        }
        func heartbeat() -> Bool {
            peer.send(text: generation.heartbeat)
            guard peer.readText() == generation.heartbeatAck else { return false }
            box.heartbeatAnswered()
            return true
        }
        for step in steps {
            switch step {
            case .heartbeat:
                guard heartbeat() else { return peer.drop() }
            case .heartbeats(let count):
                for _ in 0..<count {
                    Thread.sleep(forTimeInterval: interval)
                    guard heartbeat() else { return peer.drop() }
                }
            case .message(let text, let fragments):
                let bytes = Array(generation.message(text).utf8)
                let size = max(1, (bytes.count + fragments - 1) / max(fragments, 1))
                let pieces = stride(from: 0, to: bytes.count, by: size).map { Array(bytes[$0..<min($0 + size, bytes.count)]) }
                var frames: [UInt8] = []
                for (index, piece) in pieces.enumerated() {
                    if index > 0 { frames += TestWebSocketPeer.frame(opcode: 0x9, Array("ping \(index)".utf8)) }
                    frames += TestWebSocketPeer.frame(opcode: index == 0 ? 0x1 : 0x0, fin: index == pieces.count - 1, piece)
                }
                peer.write(frames)
            case .messageThenContinue(let text):
                peer.write(TestWebSocketPeer.frame(opcode: 0x1, Array(generation.message(text).utf8)),
                           TestWebSocketPeer.frame(opcode: 0x1, Array(generation.proceed.utf8)))
            case .buttons(let text, let buttons, let block):
                let links: [JSON] = buttons.map { button in
                    ["text": .string(button.label), "type": .string(button.approved ? "primary" : "secondary"),
                     "link": .string("\(waitingURL)/\(executionID)/node-1?approved=\(button.approved)&signature=sig-\(executionID)")]
                }
                peer.send(text: JSON.object(["type": "with-buttons", "text": .string(text), "blockUserInput": .bool(block),
                                             "buttons": .array(links)]).encoded())
            case .awaitPress:
                guard box.waitForPress(executionID) else { return peer.drop() }
                peer.send(text: generation.proceed)
            case .awaitAnswer:
                guard let text = peer.readText(), let answer = try? JSON.parse(Array(text.utf8)) else { return peer.drop() }
                box.answered(answer)
            case .error(let message):
                peer.send(text: JSON.object(["type": "error", "message": .string(message)]).encoded())
                peer.close(code: 1008)
                _ = peer.readFrame()
            case .unknownFrame(let text):
                peer.send(text: text)
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
        private var presses: [String: [[String: String]]] = [:]
        private var heartbeats = 0
        private let changed = NSCondition()

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
        func heartbeatAnswered() {
            changed.lock()
            heartbeats += 1
            changed.broadcast()
            changed.unlock()
        }

        var answeredHeartbeats: Int {
            changed.lock()
            defer { changed.unlock() }
            return heartbeats
        }

        /// Until `count` heartbeats were answered in all (false when not within 30 s).
        func waitForHeartbeats(_ count: Int) -> Bool {
            let deadline = Date().addingTimeInterval(30)
            changed.lock()
            defer { changed.unlock() }
            while heartbeats < count {
                if !changed.wait(until: deadline) { return false }
            }
            return true
        }

        func press(_ execution: String, query: [String: String]) {
            changed.lock()
            presses[execution, default: []].append(query)
            changed.broadcast()
            changed.unlock()
        }

        var allPresses: [[String: String]] {
            changed.lock()
            defer { changed.unlock() }
            return presses.keys.sorted().flatMap { presses[$0]! }
        }

        /// Until a button of `execution` is pressed (false when none is within 30 s).
        func waitForPress(_ execution: String) -> Bool {
            let deadline = Date().addingTimeInterval(120)  // a loaded test run may take its time to press
            changed.lock()
            defer { changed.unlock() }
            while presses[execution, default: []].isEmpty {
                if !changed.wait(until: deadline) { return false }
            }
            return true
        }
    }
}
