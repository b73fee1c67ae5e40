import FoundationEssentials
import Glibc

extension A2ABackend {
    /// The largest file /attach sends as a part (base64 in the JSON body).
    static let attachmentLimit = 20 << 20

    /// Files go as file parts with their media type, up to `attachmentLimit`.
    public func fileIntake(for content: FileContent) async -> FileIntake { .files(limit: Self.attachmentLimit) }

    /// One message: to the thread's context (its backend id), and to the task waiting for an
    /// answer there (`input-required`) if any. Streamed when the card says the agent can,
    /// resumed once with SubscribeToTask when the stream drops; else sent and polled.
    public func send(_ request: ChatRequest) -> AsyncThrowingStream<ReplyEvent, Error> {
        ProducedStream.make { [self] emit in
            try await reply(to: request, drained: { await emit.drained() }) { try await emit($0) }
        }
    }

    /// `drained`: returns once what was yielded is out, before a form is asked.
    private func reply(to request: ChatRequest, drained: @escaping @Sendable () async -> Void,
                       yield: @escaping @Sendable (ReplyEvent) async throws -> Void) async throws {
        let endpoint = try await client.endpoint()
        let context = request.thread.backendID
        let waitingTask = state.pendingTask(context: context)
        let files = try request.attachments.map { attachment -> A2AWire.OutgoingFile in
            guard attachment.size <= Self.attachmentLimit,
                  let data = FileManager.default.contents(atPath: attachment.path) else {
                throw HarkError.usage(attachment.size > Self.attachmentLimit
                    ? "\(attachment.name) is larger than \(ByteCount.format(Self.attachmentLimit)), the most hark sends to an agent"
                    : "cannot read \(attachment.path)")
            }
            return A2AWire.OutgoingFile(name: attachment.name, mediaType: attachment.mimeType, bytes: Array(data))
        }
        let message = A2AWire.message(text: request.text, files: files, messageID: UUID().uuidString.lowercased(),
                                      contextID: context, taskID: waitingTask, version: endpoint.version)
        let state = self.state
        let progress = A2AReplyProgress(knownContextID: context) { received in
            let number = state.addFile(received)
            return "file \(number): " + A2AReplyProgress.plainDescription(received.part) + "; /download \(number) saves it"
        }
        let threadID = request.thread.id
        let push = try pushConfig(for: endpoint, threadID: threadID)
        let history = self.history
        // The context's waiting task is this one if it waits for the user now, else none; a
        // request that failed before any answer leaves things as they were, for /retry. Done
        // before `.finished` is passed on: a one-shot hark exits as soon as it sees it.
        let record = {
            if let task = progress.taskID { state.noteTask(thread: threadID, taskID: task, settled: progress.isSettled) }
            if progress.taskID != nil || progress.isSettled {
                state.replyEnded(context: progress.contextID ?? context, taskID: progress.taskID, state: progress.endState)
            }
            if let push, progress.isSettled { try? history?.finishLiveWork(pushToken: push.token) }
        }
        let forward: (ReplyEvent) async throws -> Void = { event in
            switch event {
            case .backendMessageID(let task):
                state.noteTask(thread: threadID, taskID: task, settled: false)
                var details = ["task": task]
                details["context"] = progress.contextID ?? context
                if let push { try? history?.nameWork(pushToken: push.token, key: task, details: details) }
                // Found again after hark exits: `hark watch` follows the task to its end.
                try await yield(.resumable(ResumePoint(kind: "task", key: task, details: details)))
            case .finished: record()
            default: break
            }
            try await yield(event)
        }
        defer { record() }
        let params = A2AWire.sendParams(message: message, streaming: endpoint.card.streaming, tenant: endpoint.tenant,
                                        version: endpoint.version, push: push)
        try await exchange(params, endpoint: endpoint, progress: progress, yield: forward)
        try await answerForms(endpoint: endpoint, progress: progress, drained: drained, yield: forward)
    }

    /// One message's events until its task settles: streamed, or sent and polled.
    func exchange(_ params: JSON, endpoint: A2AClient.Endpoint, progress: A2AReplyProgress,
                  yield: (ReplyEvent) async throws -> Void) async throws {
        do {
            if endpoint.card.streaming {
                try await stream(.stream, params: params, endpoint: endpoint, progress: progress, yield: yield)
            } else {
                try await sendAndPoll(params: params, endpoint: endpoint, progress: progress, yield: yield)
            }
        } catch let error as HarkError {
            if case .http(let status, _, _) = error, [404, 405, 410].contains(status) { state.forgetCard() }
            throw error
        }
    }

    /// With `push_url` and an agent whose card says it sends push notifications: a token made
    /// for this task alone, stored before the request goes out.
    private func pushConfig(for endpoint: A2AClient.Endpoint, threadID: Int64) throws -> A2AWire.PushConfig? {
        guard let pushURL, endpoint.card.pushNotifications, let history else { return nil }
        var generator = SystemRandomNumberGenerator()
        let token = (0..<4).map { _ in
            let hex = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
        try history.registerPushToken(token, threadID: threadID)
        return A2AWire.PushConfig(url: pushURL, token: token)
    }

    /// Streams one request's events; when the stream ends or breaks before the task did, and
    /// the task is known, resubscribes once.
    private func stream(_ method: A2AWire.Method, params: JSON, endpoint: A2AClient.Endpoint,
                        progress: A2AReplyProgress, yield: (ReplyEvent) async throws -> Void) async throws {
        do {
            try await pipe(method, params: params, endpoint: endpoint, progress: progress, yield: yield)
        } catch {
            guard method == .stream, Self.isDrop(error), !progress.isSettled, let taskID = progress.taskID,
                  !Task.isCancelled else { throw error }
            try await yield(.status("the stream broke (\(error.userMessage)); resubscribing to the task"))
            do {
                try await pipe(.subscribe, params: A2AWire.taskParams(taskID, method: .subscribe, tenant: endpoint.tenant,
                                                                      version: endpoint.version),
                               endpoint: endpoint, progress: progress, yield: yield)
            } catch let again as HarkError where Self.isDrop(again) {
                throw HarkError.network(host: client.host, reason: "the stream broke again after resubscribing; what arrived is kept")
            }
        }
    }

    private func pipe(_ method: A2AWire.Method, params: JSON, endpoint: A2AClient.Endpoint,
                      progress: A2AReplyProgress, yield: (ReplyEvent) async throws -> Void) async throws {
        let client = self.client
        let events = HTTPReply.stream(client.http, { client.request(method, params: params, to: endpoint) },
                                      decoder: A2AStreamDecoder(progress: progress))
        for try await event in events { try await yield(event) }
    }

    /// A broken connection or a stream that ended early, as opposed to an answer (an HTTP
    /// status, a JSON-RPC error, the task's failure).
    static func isDrop(_ error: Error) -> Bool {
        switch error as? HarkError {
        case .network?, .timeout?: return true
        case let violation? where violation == A2AStreamDecoder.cutShort: return true
        default: return false
        }
    }

    /// A non-streaming agent: SendMessage answers with the task at once, then GetTask until it
    /// ends, waiting longer each time (the clock's waits: tests take none).
    private func sendAndPoll(params: JSON, endpoint: A2AClient.Endpoint, progress: A2AReplyProgress,
                             yield: (ReplyEvent) async throws -> Void) async throws {
        var events: [ReplyEvent] = []
        do {
            try progress.apply(try await client.call(.send, params: params, to: endpoint), into: &events)
            var wait = pollInterval
            while !progress.isSettled {
                for event in ReplyEvent.coalesced(events) { try await yield(event) }
                events = []
                guard let taskID = progress.taskID else {
                    throw HarkError.protocolViolation("the agent answered without a task or a message")
                }
                try await clock.sleep(wait)
                wait = min(wait * 1.5, 5)
                let snapshot = try await client.call(.get, params: A2AWire.taskParams(taskID, method: .get, tenant: endpoint.tenant,
                                                                                       version: endpoint.version), to: endpoint)
                try progress.apply(snapshot, into: &events)
            }
        } catch {
            // What arrived before the failure is still shown (and kept) before it.
            for event in ReplyEvent.coalesced(events) { try? await yield(event) }
            throw error
        }
        for event in ReplyEvent.coalesced(events) { try await yield(event) }
    }

    /// The user stopped the reply (Ctrl-C, /stop, SIGINT): cancel its task, or the agent would
    /// go on working unseen. Runs after the stream was closed.
    public func stop(thread: ChatThread) async {
        guard let last = state.lastTask(thread: thread.id), !last.settled,
              let endpoint = try? await client.endpoint() else { return }
        let params = A2AWire.taskParams(last.taskID, method: .cancel, tenant: endpoint.tenant, version: endpoint.version)
        // Short: the user waits for this after pressing Ctrl-C.
        let canceled = try? await client.call(.cancel, params: params, to: endpoint,
                                              timeouts: HTTPTimeouts(connect: 5, firstByte: 10, idle: 10))
        state.noteTask(thread: thread.id, taskID: last.taskID, settled: true)
        if case .task(let task)? = canceled {
            state.replyEnded(context: task.contextID ?? thread.backendID, taskID: task.id, state: task.status.state)
        }
    }
}
