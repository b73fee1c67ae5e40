import FoundationEssentials
import Glibc

extension NylaBackend {
    /// One message: `POST …/start/stream` with the thread's workflow id (none for a new thread;
    /// the gateway then creates one and reports it), the files attached with /attach, and the
    /// reply read as SSE. After a workspace reply the pending edits are counted again, so the
    /// prompt shows what the agent proposed.
    public func send(_ request: ChatRequest) -> AsyncThrowingStream<ReplyEvent, Error> {
        let decoder = NylaEventDecoder(workflowID: request.thread.backendID, title: request.thread.title)
        return HTTPReply.stream(decoder: decoder) { [self] say in try await open(request, say: say) }
    }

    /// Everything before the reply's body: the login (renewed when it has ended), the instance,
    /// rate limits waited out, all said as they happen; then the message sent and its answer
    /// checked to be an event stream. Notes which workflow the reply belongs to (for stop) and,
    /// for a workspace, counts the pending edits again before the reply ends.
    private func open(_ request: ChatRequest, say: ProducedStream.Emitter<ReplyEvent>) async throws -> HTTPReply.Opened {
        let notes = NylaNotes(forward: { try await say(.status($0)) }, warnings: { try await say(.notice($0)) })
        if let done = try await ensureLogin(nil, notes: notes) { try await notes.add(done) }
        let (instance, feature) = try await instance(notes: notes)
        let threadID = request.thread.id
        let workflow = request.thread.backendID
        var options = self.options
        // Uploaded by /attach; the message holds them in the history, so /retry sends them again.
        options.fileIDs = request.attachments.compactMap(\.backendID)
        state.update { $0.replies[threadID] = (instance, workflow) }
        let path = NylaWire.startStream(instance, feature)
        let body = NylaWire.streamBody(prompt: request.text, workflowID: workflow, feature: feature, options: options)
        var response = try await client.open(path, notes: notes) {
            try client.request("POST", path, json: body, instance: instance, accept: "text/event-stream")
        }
        do { try await requireEventStream(response.head, body: &response.body) } catch {
            response.stream.cancel()
            throw error
        }
        var opened = HTTPReply.Opened(response, host: client.host)
        opened.seeing = { [state] event in
            if case .backendThreadID(let id) = event { state.update { $0.replies[threadID] = (instance, id) } }
        }
        opened.lastly = { [self] in
            guard feature == .workspace, let notice = await recountEdits(instance) else { return [] }
            return [.notice(notice)]
        }
        return opened
    }

    /// A 200 that is not `text/event-stream` (JSON from the gateway or a proxy in front of it)
    /// is no reply: it fails as the wrong kind of answer, with what it said.
    func requireEventStream(_ head: HTTPResponseHead, body: inout HTTPStream.AsyncIterator) async throws {
        guard let type = head.header("content-type")?.lowercased(), !type.contains("text/event-stream") else { return }
        let bytes = try await body.collect(upTo: 65536).bytes
        let said = ServerMessage.extract(from: bytes, contentType: type) ?? "an empty body"
        let kind = type.split(separator: ";").first.map { $0.trimmingSpaces } ?? type
        throw HarkError.protocolViolation("\(client.host) answered the message with \(kind), not an event stream: \(said)")
    }

    /// Refreshes the pending edits after a reply; a line when the agent proposed new ones.
    func recountEdits(_ instance: NylaInstance) async -> String? {
        let before = state.read { $0.editCounts[instance.id] } ?? 0
        guard let edits = try? await pendingEdits(instance, notes: nil), edits.count > before else { return nil }
        return edits.count == 1 ? "1 pending edit; /edits shows it" : "\(edits.count) pending edits; /edits shows them"
    }

    /// Called once a reply the user stopped has closed its connection: tells the gateway to
    /// stop the workflow too, or the agent would go on working (and spending) unseen.
    public func stop(thread: ChatThread) async {
        guard let reply = state.read({ $0.replies[thread.id] }), let feature = reply.instance.chat,
              let workflow = reply.workflow ?? thread.backendID else { return }
        // This runs on the reply's task, which the user's stop has cancelled: a request made
        // here directly would be cancelled before it is sent. A task of its own is not.
        let client = self.client
        let request = Task {
            // Short: the user waits for this after pressing Ctrl-C.
            _ = try? await client.fetch("POST", NylaWire.stop(reply.instance, feature, workflow: workflow),
                                        instance: reply.instance, timeouts: HTTPTimeouts(connect: 5, firstByte: 10, idle: 10),
                                        notes: nil)
        }
        await request.value
    }
}
