import FoundationEssentials
import Glibc

/// The chat WebSocket of one execution, as n8n's own chat widget uses it
/// (packages/frontend/@n8n/chat/src/components/Input.vue, packages/cli/src/chat/chat-service.ts):
/// - `ws(s)://HOST/chat?sessionId=…&executionId=…&isPublic=true` on the webhook's host;
/// - `n8n|heartbeat` on connect and every 30 s, answered `n8n|heartbeat-ack` (without an answer
///   for 60 s n8n cancels the execution); answered here on the reading thread, so a chat
///   waiting for the user between replies stays alive;
/// - every other text is a message of the workflow (a JSON `with-buttons` message included);
///   `n8n|continue` right after one says the workflow goes on without the user; a message
///   not followed by it waits for the user, whose answer goes back as
///   `{"sessionId","action":"sendMessage","chatInput"}` on the same socket;
/// - the execution's end closes the socket; a failed or cancelled one drops it.
final class N8NChat: @unchecked Sendable {
    enum Event: Sendable, Equatable {
        case message(String)
        case proceeds
        case ended
        case failed(HarkError)
    }

    let sessionID: String
    let execution: N8NExecution
    private var socket: WebSocketClient?
    private let inbox: N8NChatInbox
    private let lock = Lock()
    private var open = true
    private var waiting = false

    private init(sessionID: String, execution: N8NExecution, clock: HarkClock) {
        self.sessionID = sessionID
        self.execution = execution
        inbox = N8NChatInbox(clock: clock)
    }

    /// The socket's URL: the webhook's origin, `/chat`, the session and the execution.
    static func url(webhook: String, sessionID: String, execution: N8NExecution) throws -> String {
        guard var components = URLComponents(string: webhook), let scheme = components.scheme?.lowercased() else {
            throw HarkError.usage("the webhook URL \(webhook.prefix(80)) is not a valid URL")
        }
        components.scheme = scheme == "https" ? "wss" : "ws"
        components.path = "/chat"
        components.fragment = nil
        var items = [URLQueryItem(name: "sessionId", value: sessionID), URLQueryItem(name: "executionId", value: execution.id),
                     URLQueryItem(name: "isPublic", value: "true")]
        if let token = execution.token { items.append(URLQueryItem(name: "token", value: token)) }
        components.queryItems = items
        guard let url = components.string else { throw HarkError.usage("cannot make the chat URL of \(webhook.prefix(80))") }
        return url
    }

    static func open(webhook: String, sessionID: String, execution: N8NExecution, headers: [(name: String, value: String)],
                     timeouts: HTTPTimeouts, tls: TLSOptions, http: HTTPClient) async throws -> N8NChat {
        let chat = N8NChat(sessionID: sessionID, execution: execution, clock: http.clock)
        let request = HTTPRequest(url: try url(webhook: webhook, sessionID: sessionID, execution: execution),
                                  headers: headers, timeouts: timeouts, tls: tls)
        let socket = try await WebSocketClient.connect(request, userAgent: http.userAgent, transport: http.transport) { [weak chat] socket, incoming in
            chat?.received(incoming, on: socket)
        }
        chat.lock.withLock { chat.socket = socket }
        return chat
    }

    static let heartbeat = "n8n|heartbeat"
    static let heartbeatAck = "n8n|heartbeat-ack"
    static let proceed = "n8n|continue"

    /// On the socket's reading thread.
    private func received(_ incoming: WebSocketClient.Incoming, on socket: WebSocketClient) {
        switch incoming {
        case .text(Self.heartbeat):
            try? socket.send(text: Self.heartbeatAck)
        case .text(Self.proceed):
            inbox.push(.proceeds)
        case .text(let text):
            // chat-service.ts: an execution it cannot find is named in a text, then closed (1008).
            if text.hasPrefix("Execution with id \""), text.hasSuffix("\" does not exist") {
                inbox.push(.failed(.backend("n8n: " + text)))
            } else {
                inbox.push(.message(text))
            }
        case .binary(let data):
            inbox.push(.message(String(decoding: data, as: UTF8.self)))
        case .closed(let code, let reason):
            lock.withLock { open = false }
            if code == 1008 {
                inbox.push(.failed(.backend("n8n refused the chat connection" + (reason.isEmpty ? "" : ": " + reason))))
            } else {
                inbox.push(.ended)
            }
        case .dropped:
            // chat-service.ts terminates the socket (no close frame) when the execution fails,
            // is cancelled or crashes.
            lock.withLock { open = false }
            inbox.push(.failed(.backend("n8n: the workflow stopped before it finished (it failed or was cancelled)")))
        case .failed(let error):
            lock.withLock { open = false }
            inbox.push(.failed(error))
        }
    }

    /// Whether the workflow waits for the user's answer on a connection still open.
    var isWaiting: Bool { lock.withLock { open && waiting } }

    func close() {
        let socket = lock.withLock { () -> WebSocketClient? in
            open = false
            return self.socket
        }
        socket?.close()
    }

    /// Sends the user's answer to the workflow waiting for it.
    func answer(_ text: String, attachments: [Attachment]) throws {
        var message: [String: JSON] = ["sessionId": .string(sessionID), "action": "sendMessage", "chatInput": .string(text)]
        if !attachments.isEmpty {
            message["files"] = .array(try attachments.map { file in
                guard let data = FileManager.default.contents(atPath: file.path) else { throw HarkError.io("cannot read \(file.path)") }
                return ["name": .string(file.name), "type": .string(file.mimeType), "data": .string(data.base64EncodedString())]
            })
        }
        guard let socket = lock.withLock({ open ? socket : nil }) else {
            throw HarkError.network(host: "n8n", reason: "the chat connection is closed")
        }
        lock.withLock { waiting = false }
        try socket.send(text: JSON.object(message).encoded())
    }

    /// The workflow's messages until it waits for the user (no `n8n|continue` within `grace`
    /// after a message) or the execution ends.
    func reply(timeouts: HTTPTimeouts, grace: Double) -> AsyncThrowingStream<ReplyEvent, Error> {
        let state = ReplyState()
        return AsyncThrowingStream { [self] in
            try await next(state, timeouts: timeouts, grace: grace)
        }
    }

    private final class ReplyState: @unchecked Sendable {
        var pending: [ReplyEvent] = []
        var sawMessage = false
        var proceeding = false
        var done = false
    }

    private func next(_ state: ReplyState, timeouts: HTTPTimeouts, grace: Double) async throws -> ReplyEvent? {
        while state.pending.isEmpty {
            if state.done { return nil }
            let waitsForUser = state.sawMessage && !state.proceeding
            let event = await inbox.next(timeout: waitsForUser ? grace : timeouts.firstByte)
            if Task.isCancelled {
                close()
                throw CancellationError()
            }
            switch event {
            case .message(let text):
                if state.sawMessage { state.pending.append(.text("\n\n")) }
                state.pending.append(.text(Self.display(text)))
                state.sawMessage = true
                state.proceeding = false
            case .proceeds:
                state.proceeding = true
            case .ended:
                state.done = true
                if !state.sawMessage { state.pending.append(.notice("no response")) }
                state.pending.append(.finished(reason: nil))
            case .failed(let error):
                close()
                throw error
            case nil where waitsForUser:
                lock.withLock { waiting = true }
                state.done = true
                state.pending += [.notice("the workflow waits for your answer: your next message in this thread goes to it"),
                                  .finished(reason: "waiting")]
            case nil:
                close()
                throw HarkError.timeout(host: "n8n", phase: "waiting for the workflow's message", seconds: timeouts.firstByte)
            }
        }
        return state.pending.removeFirst()
    }

    /// A message as shown: text as it is; a `with-buttons` message (utils.ts of @n8n/chat) as
    /// its text and one line per button.
    static func display(_ text: String) -> String {
        guard text.hasPrefix("{"), let json = try? JSON.parse(Array(text.utf8)), json["type"]?.string == "with-buttons",
              let body = json["text"]?.string else { return text }
        let buttons = (json["buttons"]?.array ?? []).compactMap { button -> String? in
            guard let label = button["text"]?.string else { return nil }
            return "- " + label + (button["link"]?.string.map { ": " + $0 } ?? "")
        }
        return ([body] + buttons).joined(separator: "\n")
    }
}

/// Events from the socket's thread, taken one at a time by the reply, with a timeout.
final class N8NChatInbox: @unchecked Sendable {
    private let lock = Lock()
    private var events: [N8NChat.Event] = []
    private var waiter: CheckedContinuation<N8NChat.Event?, Never>?
    private var timer: Task<Void, Never>?
    private var generation = 0
    /// The grace and first-byte waits: the HTTP client's clock, the workspace's.
    private let clock: HarkClock

    init(clock: HarkClock) {
        self.clock = clock
    }

    func push(_ event: N8NChat.Event) {
        lock.lock()
        if let waiter {
            self.waiter = nil
            let timer = self.timer
            self.timer = nil
            lock.unlock()
            timer?.cancel()
            waiter.resume(returning: event)
            return
        }
        events.append(event)
        lock.unlock()
    }

    /// The next event, or nil after `timeout` seconds (or when the task is cancelled).
    func next(timeout: Double) async -> N8NChat.Event? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                lock.lock()
                if !events.isEmpty {
                    let event = events.removeFirst()
                    lock.unlock()
                    continuation.resume(returning: event)
                    return
                }
                if Task.isCancelled {
                    lock.unlock()
                    continuation.resume(returning: nil)
                    return
                }
                waiter = continuation
                generation += 1
                let mine = generation
                let clock = clock
                timer = Task { [weak self] in
                    try? await clock.sleep(timeout)
                    if !Task.isCancelled { self?.expire(mine) }
                }
                lock.unlock()
            }
        } onCancel: {
            expire(nil)
        }
    }

    /// Wakes the waiter with nil: the one of `generation` (a timeout), or any (cancelled).
    private func expire(_ generation: Int?) {
        lock.lock()
        guard let waiter, generation == nil || generation == self.generation else {
            lock.unlock()
            return
        }
        self.waiter = nil
        let timer = self.timer
        self.timer = nil
        lock.unlock()
        if generation == nil { timer?.cancel() }
        waiter.resume(returning: nil)
    }
}

/// A webhook session's chat sockets, by thread: one whose workflow waits for the user's
/// answer stays open until the answer goes to it (or a new execution of that thread replaces it).
final class N8NOpenChats: @unchecked Sendable {
    private let lock = Lock()
    private var chats: [Int64: N8NChat] = [:]
    private var graceSeconds = 1.0

    deinit {
        for chat in chats.values { chat.close() }
    }

    /// How long after a workflow's message an `n8n|continue` may still come (n8n sends it
    /// right after the message) before the workflow is taken to wait for the user.
    var grace: Double {
        get { lock.withLock { graceSeconds } }
        set { lock.withLock { graceSeconds = newValue } }
    }

    func keep(_ chat: N8NChat, thread: Int64) {
        let replaced = lock.withLock { () -> N8NChat? in
            defer { chats[thread] = chat }
            return chats[thread]
        }
        if replaced !== chat { replaced?.close() }
    }

    /// The thread's chat when its workflow waits for an answer; one that does not is closed.
    func waiting(thread: Int64) -> N8NChat? {
        let (chat, stale) = lock.withLock { () -> (N8NChat?, N8NChat?) in
            guard let chat = chats[thread] else { return (nil, nil) }
            if chat.isWaiting { return (chat, nil) }
            chats[thread] = nil
            return (nil, chat)
        }
        stale?.close()
        return chat
    }

    var waitingExecutions: [String] {
        lock.withLock { chats.values.filter(\.isWaiting).map(\.execution.id).sorted() }
    }
}

/// The webhook's reply, followed, when it handed an execution over, by the chat socket's.
enum N8NChatHandOver {
    typealias Opener = @Sendable (N8NExecution) async throws -> AsyncThrowingStream<ReplyEvent, Error>

    static func stream(_ posted: AsyncThrowingStream<ReplyEvent, Error>, handOver: N8NExecutionHandOver,
                       open: @escaping Opener) -> AsyncThrowingStream<ReplyEvent, Error> {
        let state = State(posted: posted, handOver: handOver, open: open)
        return AsyncThrowingStream { try await state.next() }
    }

    /// Advanced by one consumer, one call at a time.
    private final class State: @unchecked Sendable {
        private var posted: AsyncThrowingStream<ReplyEvent, Error>.AsyncIterator
        private var chat: AsyncThrowingStream<ReplyEvent, Error>.AsyncIterator?
        private let handOver: N8NExecutionHandOver
        private let open: Opener
        private var postedEnded = false

        init(posted: AsyncThrowingStream<ReplyEvent, Error>, handOver: N8NExecutionHandOver, open: @escaping Opener) {
            self.posted = posted.makeAsyncIterator()
            self.handOver = handOver
            self.open = open
        }

        func next() async throws -> ReplyEvent? {
            if chat != nil { return try await chat!.next() }
            if !postedEnded {
                let event = try await posted.next()
                // The webhook's own end stands unless the execution went over to the socket.
                if case .finished = event, handOver.execution != nil { postedEnded = true } else if event != nil { return event }
                postedEnded = true
            }
            guard let execution = handOver.execution else { return nil }
            chat = try await open(execution).makeAsyncIterator()
            return .backendMessageID(execution.id)
        }
    }
}
