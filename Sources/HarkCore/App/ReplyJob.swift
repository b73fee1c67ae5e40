import FoundationEssentials
import Glibc
import Dispatch

/// How a reply ended.
public enum ReplyOutcome: Sendable, Equatable {
    case complete
    case stopped
    /// Failed; `hadText` says whether part of a reply had arrived (kept as `partial`).
    case failed(HarkError, hadText: Bool)

    public var status: MessageStatus {
        switch self {
        case .complete: return .complete
        case .stopped: return .stopped
        case .failed(_, let hadText): return hadText ? .partial : .failed
        }
    }
}

/// Receives a running reply's events. Called on the job's task, in order, each event after it
/// has been stored.
public protocol ReplyObserver: AnyObject, Sendable {
    func reply(_ job: ReplyJob, event: ReplyEvent)
    func replyEnded(_ job: ReplyJob, outcome: ReplyOutcome)
}

/// One reply being received: consumes a backend's event stream, writes it to the history as it
/// arrives, and passes each event to whoever watches (the shell in the foreground). Without a
/// watcher it runs on in the background, and its end is announced.
public final class ReplyJob: @unchecked Sendable {
    public let id: Int
    public let session: String
    public let kind: String
    public let thread: ChatThread
    public let userMessageID: Int64?
    public private(set) var replyMessageID: Int64?
    public private(set) var text = ""
    public private(set) var usage: Usage?
    /// Ctrl-C detaches instead of stopping (a Jenkins build's console): set by the command
    /// that started it, or by the backend's `.detachable` event.
    public var interruptDetaches: Bool {
        get { lock.withLock { detachable } }
        set { lock.withLock { detachable = newValue } }
    }
    private var detachable = false
    /// The last notice the backend sent: the one-line summary when it ends unwatched.
    public private(set) var lastNotice: String?
    /// The backend's reason for the end (`stop`, `length`, a build's `SUCCESS`…).
    public private(set) var finishReason: String?
    // Recursive: observers are called with it held (to keep replayed and live events in
    // order) and may read the job's properties.
    private let lock = Lock(recursive: true)
    private var observer: ReplyObserver?
    /// Events held until the caller decides to watch (attach) or not (detach), so a watcher
    /// that attaches just after the reply started misses nothing.
    private var early: [ReplyEvent]? = []
    private var finalOutcome: ReplyOutcome?
    private var stopRequested = false
    private var task: Task<Void, Never>?
    private var waiters: [CheckedContinuation<ReplyOutcome, Never>] = []
    /// Keep the reply text in memory up to this size (for /pipe, /forward, speech); beyond it
    /// the history holds it.
    private let textLimit = 1 << 20

    init(id: Int, session: String, kind: String, thread: ChatThread, userMessageID: Int64?) {
        self.id = id
        self.session = session
        self.kind = kind
        self.thread = thread
        self.userMessageID = userMessageID
    }

    public var outcome: ReplyOutcome? { lock.withLock { finalOutcome } }
    public var isRunning: Bool { outcome == nil }
    /// True while someone shows the reply (or may still attach to it).
    public var isWatched: Bool { lock.withLock { observer != nil || early != nil } }

    /// Starts delivering events to `observer`, beginning with any that arrived before.
    /// Returns the outcome if the reply had already ended.
    public func attach(_ observer: ReplyObserver) {
        lock.lock()
        defer { lock.unlock() }
        let held = early ?? []
        early = nil
        for event in held { observer.reply(self, event: event) }
        if let ended = finalOutcome {
            observer.replyEnded(self, outcome: ended)
        } else {
            self.observer = observer
        }
    }

    /// Stops showing the reply; it goes on in the background.
    public func detach() {
        lock.withLock {
            observer = nil
            early = nil
        }
    }

    /// The user asked to stop: what arrived is kept, marked `stopped`.
    public func stop() {
        let task: Task<Void, Never>? = lock.withLock {
            stopRequested = true
            return self.task
        }
        task?.cancel()
    }

    public func wait() async -> ReplyOutcome {
        await withCheckedContinuation { continuation in
            lock.lock()
            if let finalOutcome {
                lock.unlock()
                continuation.resume(returning: finalOutcome)
            } else {
                waiters.append(continuation)
                lock.unlock()
            }
        }
    }

    /// Blocks the calling thread (never a concurrency-pool thread) until the reply ends.
    public func waitBlocking() -> ReplyOutcome {
        let semaphore = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: ReplyOutcome = .complete
        Task.detached {
            result = await self.wait()
            semaphore.signal()
        }
        semaphore.wait()
        return result
    }

    func start(events: AsyncThrowingStream<ReplyEvent, Error>, backend: (any Backend)?, store: HistoryStore,
               model: String?, onEnd: @escaping @Sendable (ReplyJob, _ watched: Bool) -> Void) {
        let task = Task.detached { [self] in
            let outcome = await record(events, store: store, model: model)
            if outcome == .stopped, let backend {
                // Not on this (cancelled) task: the stop request must not be cancelled with it.
                let thread = self.thread
                await Task.detached { await backend.stop(thread: thread) }.value
            }
            let watched = finish(outcome)
            onEnd(self, watched)
        }
        lock.withLock { self.task = task }
    }

    private func deliver(_ event: ReplyEvent) {
        lock.lock()
        defer { lock.unlock() }
        if early != nil {
            early!.append(event)
        } else {
            observer?.reply(self, event: event)
        }
    }

    private func record(_ events: AsyncThrowingStream<ReplyEvent, Error>, store: HistoryStore,
                        model: String?) async -> ReplyOutcome {
        var writer: ReplyWriter?
        var backendMessageID: String?
        var answeredBy = model
        func openWriter() throws -> ReplyWriter {
            if let writer { return writer }
            let opened = try store.beginReply(threadID: thread.id, session: session, model: answeredBy)
            writer = opened
            lock.withLock { replyMessageID = opened.messageID }
            return opened
        }
        var outcome: ReplyOutcome
        do {
            for try await event in events {
                switch event {
                case .text(let piece):
                    // Stored before it is shown: what the user saw is always in the history.
                    try openWriter().append(piece)
                    lock.withLock { if text.utf8.count < textLimit { text += piece } }
                case .usage(let reported):
                    lock.withLock { usage = reported }
                case .backendMessageID(let id):
                    backendMessageID = id
                case .backendThreadID(let id):
                    if id != thread.backendID { try store.setThreadBackendID(id: thread.id, backendID: id) }
                case .model(let name):
                    answeredBy = name
                case .notice(let text):
                    lock.withLock { lastNotice = text }
                case .detachable:
                    interruptDetaches = true
                case .reasoning, .status, .finished, .toolCall:
                    break
                }
                deliver(event)
                if case .finished(let reason) = event {
                    lock.withLock { finishReason = reason }
                    break
                }
            }
            outcome = lock.withLock { stopRequested } ? .stopped : .complete
        } catch is CancellationError {
            outcome = .stopped
        } catch let error as HarkError {
            outcome = lock.withLock { stopRequested } ? .stopped : .failed(error, hadText: writer != nil)
        } catch {
            outcome = lock.withLock { stopRequested }
                ? .stopped : .failed(.backend(error.userMessage), hadText: writer != nil)
        }
        if Task.isCancelled && lock.withLock({ stopRequested }) { outcome = .stopped }
        do {
            var errorText: String?
            if case .failed(let error, _) = outcome { errorText = error.message }
            if writer == nil, case .failed = outcome { _ = try openWriter() }
            try writer?.finish(status: outcome.status, error: errorText, usage: lock.withLock { usage },
                               backendID: backendMessageID, model: answeredBy)
        } catch {
            outcome = .failed(error as? HarkError ?? .storage(error.userMessage), hadText: writer != nil)
        }
        return outcome
    }

    /// Records the end and tells the watcher; returns whether anyone was watching.
    private func finish(_ outcome: ReplyOutcome) -> Bool {
        lock.lock()
        let watched = observer != nil || early != nil
        finalOutcome = outcome
        let waiters = self.waiters
        self.waiters = []
        observer?.replyEnded(self, outcome: outcome)
        observer = nil
        lock.unlock()
        for waiter in waiters { waiter.resume(returning: outcome) }
        return watched
    }

    /// One line for a reply that ended while nobody watched it (shown above the prompt).
    public var endNotice: String {
        let summary = lastNotice ?? text.replacingOccurrences(of: "\n", with: " ").trimmingSpaces
        let clipped = summary.count > 60 ? String(summary.prefix(59)) + "…" : summary
        switch outcome ?? .complete {
        case .complete: return "↩ \(session) · \(thread.title): \(clipped)"
        case .stopped: return "↩ \(session) stopped"
        case .failed(let error, _): return "↩ \(session) failed: \(error.message)"
        }
    }
}
