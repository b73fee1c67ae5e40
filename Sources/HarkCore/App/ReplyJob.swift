import FoundationEssentials
import Glibc

/// How a reply ended.
public enum ReplyOutcome: Sendable, Equatable {
    case complete
    case stopped
    /// Failed; `hadText` says whether part of a reply had arrived (kept as `partial` when the
    /// reply was cut short, as `failed` with its text when the server reported an error).
    case failed(HarkError, hadText: Bool)

    public var status: MessageStatus {
        switch self {
        case .complete: return .complete
        case .stopped: return .stopped
        case .failed(.backend, _): return .failed
        case .failed(_, let hadText): return hadText ? .partial : .failed
        }
    }
}

/// Receives a running reply's events, in order, each event after it has been stored. Called
/// outside the job's lock (so it may read the job or stop it), one call at a time, usually on
/// the job's task; calls already decided may still arrive just after a `detach`.
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
    /// What started it, as typed, shortened: the message or the command (`/build app`).
    public let label: String
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
    private let lock = Lock()
    private var delivery = ReplyDelivery()
    /// Observer calls decided under the lock, made outside it by one thread at a time (the
    /// `delivering` one), so they keep their order.
    private var outbox: [ReplyDelivery.Action] = []
    private var delivering = false
    private var stopRequested = false
    private var task: Task<Void, Never>?
    private var waiters: [CheckedContinuation<ReplyOutcome, Never>] = []
    /// Keep the reply text in memory up to this size (for /pipe, /forward, speech); beyond it
    /// the history holds it.
    private let textLimit = 1 << 20
    /// Set for `/compact`: the reply is kept as the thread's summary, not as a message.
    var summaryOf: (throughMessageID: Int64, turns: Int)?

    init(id: Int, session: String, kind: String, thread: ChatThread, userMessageID: Int64?, label: String) {
        self.id = id
        self.session = session
        self.kind = kind
        self.thread = thread
        self.userMessageID = userMessageID
        self.label = label
    }

    public var outcome: ReplyOutcome? { lock.withLock { delivery.outcome } }
    public var isRunning: Bool { outcome == nil }

    /// Starts delivering events to `observer`, beginning with any that arrived before, and its
    /// end if it has ended.
    public func attach(_ observer: ReplyObserver) {
        deliver { $0.attach(observer) }
    }

    /// Stops showing the reply; it goes on in the background.
    public func detach() {
        lock.withLock { delivery.detach() }
    }

    /// Makes a transition and the observer calls it returns, outside the lock. A thread that
    /// finds another already delivering leaves its calls to it, behind the earlier ones.
    private func deliver(_ transition: (inout ReplyDelivery) -> [ReplyDelivery.Action]) {
        lock.lock()
        outbox += transition(&delivery)
        guard !delivering else { return lock.unlock() }
        delivering = true
        drainOutbox()
    }

    /// One event of the stream: the same as `deliver`, without an array per event (a fast
    /// stream brings millions).
    private func receive(_ event: ReplyEvent) {
        lock.lock()
        guard let action = delivery.received(event) else { return lock.unlock() }
        guard !delivering && outbox.isEmpty else {
            outbox.append(action)
            return lock.unlock()
        }
        delivering = true
        lock.unlock()
        perform(action)
        lock.lock()
        drainOutbox()
    }

    /// With the lock held and this thread delivering: makes the calls queued, then unlocks.
    private func drainOutbox() {
        while !outbox.isEmpty {
            let batch = outbox
            outbox = []
            lock.unlock()
            for action in batch { perform(action) }
            lock.lock()
        }
        delivering = false
        lock.unlock()
    }

    private func perform(_ action: ReplyDelivery.Action) {
        switch action {
        case .event(let observer, let event): observer.reply(self, event: event)
        case .end(let observer, let outcome): observer.replyEnded(self, outcome: outcome)
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
            if let finalOutcome = delivery.outcome {
                lock.unlock()
                continuation.resume(returning: finalOutcome)
            } else {
                waiters.append(continuation)
                lock.unlock()
            }
        }
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

    private func record(_ events: AsyncThrowingStream<ReplyEvent, Error>, store: HistoryStore,
                        model: String?) async -> ReplyOutcome {
        var writer: ReplyWriter?
        var backendMessageID: String?
        var answeredBy = model
        var promptEstimate: Int?
        let sentAt = ContinuousClock.now
        var firstByteAt: ContinuousClock.Instant?
        let summaryOf = self.summaryOf
        var notes: [String] = []
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
                    if firstByteAt == nil { firstByteAt = .now }
                    // Stored before it is shown: what the user saw is always in the history.
                    if summaryOf == nil { try openWriter().append(piece) }
                    lock.withLock {
                        // Whole pieces while they fit: one 30 MB piece must not be copied here.
                        if text.utf8.count + piece.utf8.count <= textLimit { text += piece }
                        else if text.utf8.count < textLimit { text += piece.prefix(textLimit - text.utf8.count) }
                    }
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
                    notes.append(text.split(whereSeparator: \.isNewline).joined(separator: " "))
                case .detachable:
                    interruptDetaches = true
                case .toolCall:
                    // What the model wrote before calling tools is a message of its own, so
                    // the calls and their results follow it in the thread, as they happened.
                    if let open = writer {
                        try open.finish(status: .complete, usage: lock.withLock { usage }, model: answeredBy, notes: notes)
                        writer = nil
                        notes = []
                    }
                case .toolResult(let result):
                    try store.addToolResult(result, threadID: thread.id, session: session)
                case .promptEstimate(let tokens):
                    promptEstimate = tokens
                case .reasoning:
                    if firstByteAt == nil { firstByteAt = .now }
                case .status, .finished, .artifact:
                    break
                }
                // The reason is the job's before its watcher sees the end: one that reads it
                // right then (or a waiter it wakes) must find it.
                if case .finished(let reason) = event { lock.withLock { finishReason = reason } }
                receive(event)
                if case .finished = event { break }
            }
            outcome = lock.withLock { stopRequested } ? .stopped : .complete
        } catch is CancellationError {
            outcome = .stopped
        } catch let unshowable as UnshowableReply {
            // Stored, not shown: the text of something that is no text (a webhook's image).
            do { try openWriter().append(unshowable.received) } catch {}
            outcome = .failed(unshowable.error, hadText: false)
        } catch HarkError.interrupted {
            // hark is ending (SIGTERM while a `cmd:` secret ran): stopped, not failed.
            outcome = .stopped
        } catch let error as HarkError {
            outcome = lock.withLock { stopRequested } ? .stopped : .failed(error, hadText: writer != nil)
        } catch {
            outcome = lock.withLock { stopRequested }
                ? .stopped : .failed(.backend(error.userMessage), hadText: writer != nil)
        }
        if Task.isCancelled && lock.withLock({ stopRequested }) { outcome = .stopped }
        let timing = firstByteAt.map { first in
            ReplyTiming(firstByteMilliseconds: Self.milliseconds(first - sentAt),
                        streamMilliseconds: Self.milliseconds(ContinuousClock.now - first))
        }
        do {
            if let summaryOf {
                // Kept only whole: a summary cut short would stand for turns it does not hold.
                let summary = lock.withLock { text }.trimmed
                if outcome == .complete, !summary.isEmpty {
                    try store.addSummary(threadID: thread.id, ThreadSummary(text: summary, turns: summaryOf.turns,
                                                                            throughMessageID: summaryOf.throughMessageID))
                }
                return outcome
            }
            var errorText: String?
            if case .failed(let error, _) = outcome { errorText = error.message }
            if writer == nil, case .failed = outcome { _ = try openWriter() }
            // A reply with notes and no text (the workflow sent none) is kept for its notes.
            if writer == nil, !notes.isEmpty { _ = try openWriter() }
            try writer?.finish(status: outcome.status, error: errorText, usage: lock.withLock { usage },
                               backendID: backendMessageID, model: answeredBy, notes: notes,
                               promptEstimate: promptEstimate, timing: timing)
            // No reply (a note to self): the message waited to be indexed with one.
            if writer == nil, let userMessageID { try store.indexNow(messageID: userMessageID) }
        } catch {
            outcome = .failed(error as? HarkError ?? .storage(error.userMessage), hadText: writer != nil)
        }
        return outcome
    }

    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }

    /// Records the end and tells the watcher; returns whether anyone was watching.
    private func finish(_ outcome: ReplyOutcome) -> Bool {
        var watched = false
        var waiters: [CheckedContinuation<ReplyOutcome, Never>] = []
        deliver { delivery in
            let (actions, wasWatched) = delivery.end(outcome)
            watched = wasWatched
            waiters = self.waiters
            self.waiters = []
            return actions
        }
        for waiter in waiters { waiter.resume(returning: outcome) }
        return watched
    }

    /// One line for a reply that ended while nobody watched it (shown above the prompt).
    public var endNotice: String {
        let summary = lastNotice ?? text.replacingOccurrences(of: "\n", with: " ").trimmingSpaces
        let clipped = summary.count > 60 ? String(summary.prefix(59)) + "…" : summary
        switch outcome ?? .complete {
        case .complete: return "↩ \(session) · \(label): \(clipped)"
        case .stopped: return "↩ \(session) stopped"
        case .failed(let error, _): return "↩ \(session) failed: \(error.message)"
        }
    }
}
