import FoundationEssentials
import Glibc

/// A task left running when hark exited. Its end comes by push notification (`hark watch
/// --listen`, for a task sent with `push_url`), by SubscribeToTask (the agent streams), or by
/// GetTask; it is recorded with the task's final message and artifacts.
extension A2ABackend: FollowsWork {
    public var followInterval: Double { max(pollInterval, 0.05) }

    public func look(at work: FollowedWork, updates: [String], askServer: Bool) async throws -> WorkEnd? {
        guard let taskID = work.key else { return nil }
        let pushed = updates.compactMap { try? JSON.parse($0) }.compactMap { try? A2AWire.event(fromResult: $0) }
        let pushedEnd = pushed.last.flatMap(Self.state(of:)).map { $0.isTerminal || $0.isInterrupted } ?? false
        guard askServer || pushedEnd else { return nil }
        do {
            let endpoint = try await client.endpoint()
            let answer = try await client.call(.get, params: A2AWire.taskParams(taskID, method: .get, tenant: endpoint.tenant,
                                                                                 version: endpoint.version), to: endpoint)
            if case .task(let task) = answer, task.status.state.isTerminal || task.status.state.isInterrupted {
                return Self.end(of: [.task(task)], taskID: taskID)
            }
            return pushedEnd ? Self.end(of: pushed, taskID: taskID) : nil
        } catch {
            // The agent said how it ended; what it pushed is the record when it cannot be asked.
            guard pushedEnd else { throw error }
            return Self.end(of: pushed, taskID: taskID)
        }
    }

    /// SubscribeToTask: the agent streams the task's events until it ends. nil when the
    /// stream ends without an end (the caller looks again later).
    public func waitForEnd(of work: FollowedWork) async throws -> WorkEnd? {
        guard let taskID = work.key else { return nil }
        let endpoint = try await client.endpoint()
        guard endpoint.card.streaming else { return nil }
        let progress = A2AReplyProgress()
        let client = self.client
        let params = A2AWire.taskParams(taskID, method: .subscribe, tenant: endpoint.tenant, version: endpoint.version)
        let events = HTTPReply.stream(client.http, { client.request(.subscribe, params: params, to: endpoint) },
                                      decoder: A2AStreamDecoder(progress: progress))
        var collected: [ReplyEvent] = []
        do {
            for try await event in events { collected.append(event) }
        } catch let failure as HarkError where progress.endState == .failed {
            return WorkEnd(text: Self.text(of: collected), headline: "task failed: " + failure.message, status: .failed,
                           backendID: taskID, error: failure.message)
        }
        guard let state = progress.endState else { return nil }
        return Self.end(text: Self.text(of: collected), state: state, taskID: taskID)
    }

    static func state(of event: A2AWire.Event) -> A2AWire.TaskState? {
        switch event {
        case .task(let task): return task.status.state
        case .status(_, _, let status): return status.state
        case .message: return .completed
        case .artifact: return nil
        }
    }

    /// The record of a task's end from its events (a snapshot, or the updates pushed).
    static func end(of wireEvents: [A2AWire.Event], taskID: String) -> WorkEnd {
        let progress = A2AReplyProgress()
        var events: [ReplyEvent] = []
        for event in wireEvents {
            do { try progress.apply(event, into: &events) } catch {
                let reason = (error as? HarkError)?.message ?? error.userMessage
                return WorkEnd(text: text(of: events), headline: "task failed: " + reason, status: .failed, backendID: taskID,
                               error: reason)
            }
        }
        return end(text: text(of: events), state: progress.endState ?? .unknown, taskID: taskID)
    }

    static func end(text: String, state: A2AWire.TaskState, taskID: String) -> WorkEnd {
        let first = text.lineSlices(keepingEmpty: false).first.map { String($0).trimmingSpaces } ?? ""
        let what: String
        switch state {
        case .inputRequired: what = "task asks for input"
        case .authRequired: what = "task asks for authorization"
        default: what = "task " + state.rawValue
        }
        let status: MessageStatus = [.failed, .rejected].contains(state) ? .failed : .complete
        return WorkEnd(text: text.isEmpty ? what + "\n" : text, headline: what + (first.isEmpty ? "" : ": " + first),
                       status: status, backendID: taskID)
    }

    /// The reply text of some events: the text, and each file listed on a line of its own.
    static func text(of events: [ReplyEvent]) -> String {
        var text = ""
        for event in events {
            switch event {
            case .text(let piece): text += piece
            case .notice(let line):
                if !text.isEmpty, !text.hasSuffix("\n") { text += "\n" }
                text += line + "\n"
            default: break
            }
        }
        return text
    }
}
