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
    /// Where its work can be found again after hark exits (a build, an A2A task), if anywhere.
    public var resumePoint: ResumePoint? { lock.withLock { resumable } }
    private var resumable: ResumePoint?
    /// Stopped because hark exits and its work is followed: the server's work is left running.
    private var leftRunning = false
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
    let summaryOf: (throughMessageID: Int64, turns: Int)?
    /// The reply's timings (first byte, stream) are measured on it.
    private let clock: HarkClock

    /// `interruptDetaches`: Ctrl-C lets it go on in the background from the start.
    init(id: Int, session: String, kind: String, thread: ChatThread, userMessageID: Int64?, label: String,
         summaryOf: (throughMessageID: Int64, turns: Int)? = nil, interruptDetaches: Bool = false, clock: HarkClock = .system) {
        self.id = id
        self.clock = clock
        self.summaryOf = summaryOf
        detachable = interruptDetaches
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

    /// hark exits while this reply runs and its work is followed (`hark watch` records its
    /// end): stop receiving it, without stopping it at its server.
    public func leaveRunning() {
        lock.withLock { leftRunning = true }
        stop()
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
            if outcome == .stopped, let backend, !lock.withLock({ leftRunning }) {
                // Not on this (cancelled) task: the stop request must not be cancelled with it.
                let thread = self.thread
                await Task.detached { await backend.stop(thread: thread) }.value
            }
            let watched = finish(outcome)
            onEnd(self, watched)
        }
        lock.withLock { self.task = task }
    }

    /// The start of `piece` that fits in `bytes` of UTF-8, ending where a scalar starts. By
    /// bytes, not characters: counting a megabyte-long piece's characters to cut it took longer
    /// than the rest of its reply's reading.
    static func leading(_ piece: String, bytes: Int) -> Substring {
        let utf8 = piece.utf8
        var end = utf8.index(utf8.startIndex, offsetBy: min(bytes, utf8.count))
        while end > utf8.startIndex, end < utf8.endIndex, UTF8.isContinuation(utf8[end]) { end = utf8.index(before: end) }
        return piece[..<end]
    }

    private func record(_ events: AsyncThrowingStream<ReplyEvent, Error>, store: HistoryStore,
                        model: String?) async -> ReplyOutcome {
        let summary = summaryOf.map { SummaryRecord(store: store, threadID: thread.id, throughMessageID: $0.throughMessageID,
                                                    turns: $0.turns) }
        var reply = ReplyRecord(store: store, thread: thread, session: session, model: model, clock: clock,
                                storesText: summary == nil) { [self] id in lock.withLock { replyMessageID = id } }
        var outcome: ReplyOutcome
        do {
            for try await event in events {
                // Stored before it is shown: what the user saw is always in the history.
                try reply.apply(event, usage: lock.withLock { usage })
                keep(event)
                receive(event)
                if case .finished = event { break }
            }
            outcome = lock.withLock { stopRequested } ? .stopped : .complete
        } catch is CancellationError {
            outcome = .stopped
        } catch let unshowable as UnshowableReply {
            // Stored, not shown: the text of something that is no text (a webhook's image).
            reply.keepUnshown(unshowable.received)
            outcome = .failed(unshowable.error, hadText: false)
        } catch HarkError.interrupted {
            // hark is ending (SIGTERM while a `cmd:` secret ran): stopped, not failed.
            outcome = .stopped
        } catch let error as HarkError {
            outcome = lock.withLock { stopRequested } ? .stopped : .failed(error, hadText: reply.hasText)
        } catch {
            outcome = lock.withLock { stopRequested }
                ? .stopped : .failed(.backend(error.userMessage), hadText: reply.hasText)
        }
        if Task.isCancelled && lock.withLock({ stopRequested }) { outcome = .stopped }
        do {
            if let summary {
                try summary.close(outcome, text: lock.withLock { text })
            } else {
                try reply.close(outcome, usage: lock.withLock { usage }, userMessageID: userMessageID)
            }
        } catch {
            outcome = .failed(error as? HarkError ?? .storage(error.userMessage), hadText: reply.hasText)
        }
        return outcome
    }

    /// What the job keeps of an event for those who read it while it runs: the text (up to
    /// `textLimit`), the usage, the last notice, whether Ctrl-C detaches, where its work can be
    /// found again, and why it ended (set before its watcher sees the end, so one that reads
    /// it right then, or a waiter it wakes, finds it).
    private func keep(_ event: ReplyEvent) {
        switch event {
        case .text(let piece):
            lock.withLock {
                // Whole pieces while they fit: one 30 MB piece must not be copied here.
                if text.utf8.count + piece.utf8.count <= textLimit { text += piece }
                else if text.utf8.count < textLimit { text += Self.leading(piece, bytes: textLimit - text.utf8.count) }
            }
        case .usage(let reported): lock.withLock { usage = reported }
        case .notice(let text): lock.withLock { lastNotice = text }
        case .detachable: interruptDetaches = true
        case .resumable(let point): lock.withLock { resumable = point }
        case .finished(let reason): lock.withLock { finishReason = reason }
        default: break
        }
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
