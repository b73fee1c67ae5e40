import FoundationEssentials
import Glibc

/// The chat WebSocket of one execution, as n8n's own chat widget uses it
/// (packages/frontend/@n8n/chat/src/components/Input.vue, packages/cli/src/chat/chat-service.ts):
/// - `ws(s)://HOST/chat?sessionId=…&executionId=…&isPublic=true` on the webhook's host (with
///   `token=` the trigger's `resumeToken`, which newer n8n checks);
/// - a heartbeat on connect and every 30 s, answered at once on the reading thread (without
///   an answer for 60 s n8n cancels the execution), so a chat waiting for the user between
///   replies stays alive; frames are read in the generation the first one shows (N8NChatFrame);
/// - a node's message, followed by a "continue" when the workflow goes on without the user;
///   a message not followed by one waits for the user, whose answer goes back as
///   `{"sessionId","action":"sendMessage","chatInput"}` on the same socket; a message with
///   buttons waits for one of them, pressed by a GET of its link (MessageWithButtons.vue);
/// - the execution's end closes the socket; a failed or cancelled one drops it.
final class N8NChat: @unchecked Sendable {
    enum Event: Sendable, Equatable {
        case message(String)
        case choices(N8NChoices)
        case proceeds
        case ended
        case failed(HarkError)
    }

    let sessionID: String
    let execution: N8NExecution
    private var socket: WebSocketClient?
    private let inbox: N8NChatInbox
    private let http: HTTPClient
    private let tls: TLSOptions
    private let interactions: InteractionSource
    private let lock = Lock()
    private var open = true
    private var waiting = false
    private var generation: N8NChatFrame.Generation?
    /// The buttons the workflow waits for, while it does.
    private var choices: N8NChoices?

    private init(sessionID: String, execution: N8NExecution, http: HTTPClient, tls: TLSOptions, interactions: InteractionSource) {
        self.sessionID = sessionID
        self.execution = execution
        self.http = http
        self.tls = tls
        self.interactions = interactions
        inbox = N8NChatInbox(clock: http.clock)
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
                     timeouts: HTTPTimeouts, tls: TLSOptions, http: HTTPClient, interactions: InteractionSource) async throws -> N8NChat {
        let chat = N8NChat(sessionID: sessionID, execution: execution, http: http, tls: tls, interactions: interactions)
        let request = HTTPRequest(url: try url(webhook: webhook, sessionID: sessionID, execution: execution),
                                  headers: headers, timeouts: timeouts, tls: tls)
        let socket = try await WebSocketClient.connect(request, userAgent: http.userAgent, transport: http.transport) { [weak chat] socket, incoming in
            chat?.received(incoming, on: socket)
        }
        chat.lock.withLock { chat.socket = socket }
        return chat
    }

    /// On the socket's reading thread.
    private func received(_ incoming: WebSocketClient.Incoming, on socket: WebSocketClient) {
        switch incoming {
        case .text(let text):
            read(text, on: socket)
        case .binary(let data):
            read(String(decoding: data, as: UTF8.self), on: socket)
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

    private func read(_ text: String, on socket: WebSocketClient) {
        let generation = lock.withLock { () -> N8NChatFrame.Generation in
            let known = self.generation ?? .of(firstFrame: text)
            self.generation = known
            return known
        }
        switch N8NChatFrame.read(text, in: generation) {
        case .heartbeat: try? socket.send(text: generation.heartbeatAck)
        case .proceed: inbox.push(.proceeds)
        case .message(let message): inbox.push(.message(message))
        case .choices(let choices): inbox.push(.choices(choices))
        case .error(let message): inbox.push(.failed(.backend("n8n: " + message)))
        case .ignored(let frame): DebugLog.shared?.note("n8n chat: ignored a frame of a type hark does not know: " + frame)
        }
    }

    /// Whether the workflow waits for the user's answer on a connection still open.
    var isWaiting: Bool { lock.withLock { open && waiting } }

    /// The buttons the workflow waits for, when it waits for one.
    var waitingChoices: N8NChoices? { lock.withLock { open && waiting ? choices : nil } }

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
        lock.withLock {
            waiting = false
            choices = nil
        }
        try socket.send(text: JSON.object(message).encoded())
    }

    /// Presses a button as n8n's chat widget does: a GET of its link, which resumes the
    /// execution waiting for it (n8n then says "continue" on the socket).
    func press(_ button: N8NChoices.Button, timeouts: HTTPTimeouts) async throws {
        lock.withLock {
            waiting = false
            choices = nil
        }
        let request = HTTPRequest(url: button.link, timeouts: timeouts, tls: tls)
        let response = try await http.fetch(request, maxBytes: 1 << 20, retry: .never)
        guard response.head.isSuccess else {
            throw ServerMessage.error(status: response.status, host: request.displayHost, body: response.body,
                                      contentType: response.head.header("content-type"))
        }
    }

    /// The workflow's messages until it waits for the user (no "continue" within `grace`
    /// after a message, or buttons nobody pressed) or the execution ends. `pressing`: a
    /// button the user named as their answer, pressed first.
    func reply(timeouts: HTTPTimeouts, grace: Double, pressing: N8NChoices.Button? = nil) -> AsyncThrowingStream<ReplyEvent, Error> {
        let state = ReplyState()
        state.pressing = pressing
        return AsyncThrowingStream { [self] in
            try await next(state, timeouts: timeouts, grace: grace)
        }
    }

    private final class ReplyState: @unchecked Sendable {
        var pending: [ReplyEvent] = []
        var sawMessage = false
        var proceeding = false
        var done = false
        /// Buttons shown, to be asked about once the text before them is out.
        var asking: N8NChoices?
        /// The paragraph break before the question is out.
        var spaced = false
        var pressing: N8NChoices.Button?
    }

    private func next(_ state: ReplyState, timeouts: HTTPTimeouts, grace: Double) async throws -> ReplyEvent? {
        if let button = state.pressing {
            state.pressing = nil
            try await press(button, timeouts: timeouts)
            state.proceeding = true
            return .notice("you chose " + button.label.trimmingSpaces)
        }
        while state.pending.isEmpty {
            if state.done { return nil }
            if let choices = state.asking {
                let interaction = interactions.current
                if interaction.isInteractive && !state.spaced {
                    // The question and the choice stand between this message and the next.
                    state.spaced = true
                    state.pending.append(.text("\n\n"))
                    continue
                }
                state.asking = nil
                state.spaced = false
                try await ask(choices, interaction, state, timeouts: timeouts)
                continue
            }
            let waitsForUser = state.sawMessage && !state.proceeding
            let event = await inbox.next(timeout: waitsForUser ? grace : timeouts.firstByte)
            if Task.isCancelled {
                close()
                throw CancellationError()
            }
            switch event {
            case .message(let text):
                show(text, state)
            case .choices(let choices):
                show(choices.text, state)
                state.asking = choices
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

    private func show(_ text: String, _ state: ReplyState) {
        if state.sawMessage { state.pending.append(.text("\n\n")) }
        if !text.isEmpty { state.pending.append(.text(text)) }
        state.sawMessage = true
        state.proceeding = false
    }

    /// Buttons: one key picks one while the reply is watched; otherwise the workflow waits
    /// and the next message in the thread names one.
    private func ask(_ choices: N8NChoices, _ interaction: Interaction, _ state: ReplyState, timeouts: HTTPTimeouts) async throws {
        if interaction.isInteractive,
           let key = await interaction.choose(choices.prompt + " ", options: choices.buttons.map(\.key)),
           let button = choices.buttons.first(where: { $0.key == key }) {
            try await press(button, timeouts: timeouts)
            state.proceeding = true
            state.pending.append(.notice("you chose " + button.label.trimmingSpaces))
            state.sawMessage = false
            return
        }
        lock.withLock {
            waiting = true
            self.choices = choices
        }
        state.done = true
        let other = choices.blockUserInput ? "" : " (or answer in words)"
        state.pending += [.notice("the workflow waits for your choice: type \(choices.labels) as your next message in this thread" + other),
                          .finished(reason: "waiting")]
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
