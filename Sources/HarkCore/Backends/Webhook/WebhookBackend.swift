import FoundationEssentials
import Glibc

/// An n8n Chat Trigger, or any webhook that takes a message and answers it.
///
/// Sends `{"action":"sendMessage","sessionId":…,"chatInput":…,"metadata":{…}}` (key names
/// configurable, as they are on the n8n node); files go as multipart with `metadata` as a
/// JSON string. The sessionId is the thread's server id, so the agent's memory follows the
/// thread. Asks for a stream with `Accept: text/plain` and reads whatever comes back: what
/// n8n sends is decided by the trigger's response mode, not by the request. A trigger in
/// "Using Response Nodes" mode answers over its chat WebSocket (N8NChat), which stays open
/// while the workflow waits for the user's answer in that thread.
public final class WebhookBackend: Backend, BackendKind, RemoteThreads {
    public static let name = "webhook"
    public static let summary = "an n8n Chat Trigger or any HTTP webhook"
    public static let settings: [SettingSpec] = [
        SettingSpec("url", "the webhook or Chat URL", required: true),
        SettingSpec("auth", "basic:USER:SECRET, header:NAME:SECRET or bearer:SECRET"),
        SettingSpec("stream", "on (default) asks for a streamed reply; n8n's trigger response mode decides what it sends", type: .flag),
        SettingSpec("input_key", "the message's key in the payload (default chatInput)"),
        SettingSpec("session_key", "the session id's key in the payload (default sessionId)"),
        SettingSpec("metadata", "a JSON object sent as metadata with every message"),
        SettingSpec("load_history", "on (default) loads the server's history when you open a thread", type: .flag),
    ]

    let session: SessionConfig
    let http: HTTPClient
    let auth: AuthHeaderCache
    let url: String
    let inputKey: String
    let sessionKey: String
    let metadata: JSON
    let streaming: Bool
    let loadsHistory: Bool
    let timeouts: HTTPTimeouts
    /// Chat sockets of executions that wait for the user, by thread.
    let chats = N8NOpenChats()
    let interactions: InteractionSource
    /// The session's threads, to know which one a plain line goes to.
    let history: SessionHistory?

    init(session: SessionConfig, environment: BackendEnvironment) throws {
        self.session = session
        http = environment.http
        auth = try session.authHeaders()
        url = session.url ?? ""
        inputKey = session["input_key"] ?? "chatInput"
        sessionKey = session["session_key"] ?? "sessionId"
        streaming = try session.bool("stream") ?? true
        loadsHistory = try session.bool("load_history") ?? true
        timeouts = try session.timeouts()
        interactions = environment.interactions
        history = environment.history(of: session.name)
        let reserved: Set<String> = ["action", "metadata"]
        guard inputKey != sessionKey, !reserved.contains(inputKey), !reserved.contains(sessionKey) else {
            throw HarkError.badSetting(session: session.name, problem: "input_key and session_key must differ and not be action or metadata")
        }
        if let text = session["metadata"] {
            guard let json = try? JSON.parse(text), json.object != nil else {
                throw HarkError.badSetting(session: session.name, problem: "metadata must be a JSON object, e.g. {\"team\":\"support\"}")
            }
            metadata = json
        } else {
            metadata = [:]
        }
    }

    public static func make(session: SessionConfig, environment: BackendEnvironment) throws -> any Backend {
        try WebhookBackend(session: session, environment: environment)
    }

    /// n8n keeps a chat's memory by the sessionId the client sends: hark makes one per thread.
    public func newThreadID() -> String? { UUID().uuidString.lowercased() }

    /// Files go as they are, as the chat trigger's multipart upload (`files`).
    public func fileIntake(for content: FileContent) async -> FileIntake { .files(limit: nil) }

    func headers() throws -> [(name: String, value: String)] {
        [("Accept", streaming ? "text/plain" : "application/json")] + (try auth.headers())
    }

    public func send(_ request: ChatRequest) -> AsyncThrowingStream<ReplyEvent, Error> {
        let sessionID = request.thread.backendID ?? String(request.thread.id)
        if let chat = chats.waiting(thread: request.thread.id) {
            if let choices = chat.waitingChoices {
                if let button = choices.button(named: request.text) {
                    return chat.reply(timeouts: timeouts, grace: chats.grace, pressing: button)
                }
                if choices.blockUserInput {
                    return AsyncThrowingStream { throw Self.onlyButtons(choices) }
                }
            }
            // The workflow asked the user something: the answer goes back on its socket.
            do {
                try chat.answer(request.text, attachments: request.attachments)
            } catch {
                return AsyncThrowingStream { throw error }
            }
            return chat.reply(timeouts: timeouts, grace: chats.grace)
        }
        let handOver = N8NExecutionHandOver()
        let posted = post(request, sessionID: sessionID, handOver: handOver)
        return N8NChatHandOver.stream(posted, handOver: handOver) { [self] execution in
            let chat = try await N8NChat.open(webhook: url, sessionID: sessionID, execution: execution,
                                              headers: try auth.headers(), timeouts: timeouts,
                                              tls: try session.tls(), http: http, interactions: interactions)
            chats.keep(chat, thread: request.thread.id)
            return chat.reply(timeouts: timeouts, grace: chats.grace)
        }
    }

    /// A line typed while the thread's workflow waits for a button and takes nothing else is
    /// refused before it is recorded or sent.
    public func command(forMessage text: String) async throws -> CommandInvocation? {
        guard let thread = try history?.currentThread(), let choices = chats.waiting(thread: thread.id)?.waitingChoices,
              choices.blockUserInput, choices.button(named: text) == nil else { return nil }
        throw Self.onlyButtons(choices)
    }

    static func onlyButtons(_ choices: N8NChoices) -> HarkError {
        .usage("the workflow waits for a button and takes no other answer: type \(choices.labels)")
    }

    private func post(_ request: ChatRequest, sessionID: String,
                      handOver: N8NExecutionHandOver) -> AsyncThrowingStream<ReplyEvent, Error> {
        let payloadMetadata = metadata
        return HTTPReply.stream(http, { [self] in
            var outgoing: HTTPRequest
            if request.attachments.isEmpty {
                var fields: [String: JSON] = ["action": "sendMessage", "metadata": payloadMetadata]
                fields[sessionKey] = .string(sessionID)
                fields[inputKey] = .string(request.text)
                let body = JSON.object(fields)
                outgoing = HTTPRequest.json(url: url, body: body, headers: try headers(), timeouts: timeouts)
            } else {
                var parts = [
                    MultipartPart(name: "action", content: .text("sendMessage")),
                    MultipartPart(name: sessionKey, content: .text(sessionID)),
                    MultipartPart(name: inputKey, content: .text(request.text)),
                    MultipartPart(name: "metadata", content: .text(payloadMetadata.encoded())),
                ]
                for file in request.attachments {
                    parts.append(MultipartPart(name: "files", content: .file(path: file.path), filename: file.name,
                                               contentType: file.mimeType))
                }
                outgoing = HTTPRequest(method: "POST", url: url, headers: try headers(), body: .multipart(parts),
                                       timeouts: timeouts)
            }
            outgoing.tls = try session.tls()
            return outgoing
        }, decoder: N8NReplyDecoder(handOver: handOver))
    }

    /// n8n's `loadPreviousSession`: the chat memory of a sessionId, LangChain messages, human
    /// when the id names a HumanMessage (packages/@n8n/nodes-langchain/nodes/trigger/ChatTrigger/
    /// ChatTrigger.node.ts answers `{data: memory.chatHistory.getMessages().map(toJSON)}` in
    /// "memory" mode). In "manually" mode the request runs the workflow like a message, so a
    /// streaming trigger answers with a stream: that is no history, not an error. n8n cannot
    /// list its sessions, so an unknown id typed with `/thread` is adopted and loaded this way.
    public func loadThread(id sessionID: String, _ context: CommandContext) async throws -> [Turn] {
        guard loadsHistory else { return [] }
        var fields: [String: JSON] = ["action": "loadPreviousSession", "metadata": metadata]
        fields[sessionKey] = .string(sessionID)
        let body = JSON.object(fields)
        var request = HTTPRequest.json(url: url, body: body, headers: [("Accept", "application/json")] + (try auth.headers()),
                                       timeouts: timeouts)
        request.tls = try session.tls()
        let response = try await http.fetch(request)
        guard response.head.isSuccess else {
            throw ServerMessage.error(status: response.status, host: request.displayHost, body: response.body,
                                      contentType: response.head.header("content-type"))
        }
        return try Self.turns(fromHistory: response.body, host: request.displayHost)
    }

    static func turns(fromHistory body: [UInt8], host: String) throws -> [Turn] {
        let firstLine = Array(body.drop(while: N8NReplyDecoder.isSpace).prefix(while: { $0 != 0x0A }))
        if N8NReplyDecoder.startsStream(firstLine) { return [] }
        let json: JSON
        do { json = try JSON.parse(body) } catch {
            throw HarkError.protocolViolation("\(host) answered loadPreviousSession with something that is not JSON")
        }
        guard let items = json["data"]?.array else { return [] }
        return items.compactMap { item in
            let id = item["id"]?.array?.compactMap(\.string).joined(separator: ".") ?? item["id"]?.string ?? ""
            let content = item["kwargs"]?["content"] ?? item["content"] ?? item["data"]?["content"]
            guard let text = content.flatMap(Self.text(ofContent:)), !text.isEmpty else { return nil }
            return Turn(role: id.contains("HumanMessage") ? .user : .assistant, text: text)
        }
    }

    /// A LangChain message's content: a string, or a list of parts whose text parts are joined
    /// (as BaseMessage.text does); other parts (tool calls, images) have no text to show.
    static func text(ofContent content: JSON) -> String? {
        if let text = content.string { return text }
        guard let parts = content.array else { return nil }
        return parts.compactMap { part in
            part.string ?? (part["type"]?.string == "text" ? part["text"]?.string : nil)
        }.joined()
    }

    public func info() async -> [(String, String)] {
        var facts = [("payload", "\(inputKey) + \(sessionKey)\(streaming ? ", streamed" : "")")]
        let waiting = chats.waitingExecutions
        if !waiting.isEmpty { facts.append(("waiting", "execution " + waiting.joined(separator: ", ") + " waits for your answer")) }
        return facts
    }
}
