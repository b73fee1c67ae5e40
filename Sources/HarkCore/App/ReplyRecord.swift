import FoundationEssentials

/// What a reply leaves in the history, built one event at a time: its text (stored before
/// anyone sees it), the server's ids, the model that answered, notes, the messages a tool call
/// closes and the tools' results, and the reply's timings. A value fed events by `apply`: the
/// job's task drives it, a test drives it alone.
struct ReplyRecord {
    let store: HistoryStore
    let thread: ChatThread
    let session: String
    /// False for a `/compact` reply: its text becomes the thread's summary at the end
    /// (SummaryRecord), never a message.
    let storesText: Bool
    private let clock: HarkClock
    /// Told the reply's message id when its row is opened (the job shows it at once).
    private let opened: (Int64) -> Void
    private(set) var writer: ReplyWriter?
    private(set) var backendMessageID: String?
    /// The model that answered: the session's until the server names another.
    private(set) var model: String?
    private(set) var promptEstimate: Int?
    /// The backend's notices, one line each, kept with the message they came with.
    private(set) var notes: [String] = []
    private let sentAt: Double
    private var firstByteAt: Double?

    init(store: HistoryStore, thread: ChatThread, session: String, model: String?, clock: HarkClock,
         storesText: Bool = true, opened: @escaping (Int64) -> Void = { _ in }) {
        self.store = store
        self.thread = thread
        self.session = session
        self.storesText = storesText
        self.model = model
        self.clock = clock
        self.opened = opened
        sentAt = clock.uptime()
    }

    /// Whether part of a reply was stored (a failure then keeps it as `partial`).
    var hasText: Bool { writer != nil }

    /// Stores what `event` leaves in the history. `usage`: what the server reported so far,
    /// kept with a message a tool call closes (read only then: a stream brings millions of events).
    mutating func apply(_ event: ReplyEvent, usage: @autoclosure () -> Usage?) throws {
        switch event {
        case .text(let piece):
            markFirstByte()
            if storesText { try openWriter().append(piece) }
        case .reasoning:
            markFirstByte()
        case .backendMessageID(let id):
            backendMessageID = id
        case .backendThreadID(let id):
            if id != thread.backendID { try store.setThreadBackendID(id: thread.id, backendID: id) }
        case .model(let name):
            model = name
        case .notice(let text):
            notes.append(text.split(whereSeparator: \.isNewline).joined(separator: " "))
        case .toolCall:
            // What the model wrote before calling tools is a message of its own, so the calls
            // and their results follow it in the thread, as they happened.
            if let open = writer {
                try open.finish(status: .complete, usage: usage(), model: model, notes: notes)
                writer = nil
                notes = []
            }
        case .toolResult(let result):
            try store.addToolResult(result, threadID: thread.id, session: session)
        case .promptEstimate(let tokens):
            promptEstimate = tokens
        case .usage, .detachable, .resumable, .status, .finished, .artifact:
            break
        }
    }

    /// Keeps text that is stored but not shown (what a webhook sent for an image).
    mutating func keepUnshown(_ text: String) {
        do { try openWriter().append(text) } catch {}
    }

    /// Closes the reply's message as `outcome` says, with its timings. A failure is kept even
    /// without text, and notes without text too; with nothing at all (a note to self), the
    /// user's message, which waited to be indexed with a reply, is indexed now.
    mutating func close(_ outcome: ReplyOutcome, usage: Usage?, userMessageID: Int64?) throws {
        let timing = firstByteAt.map { first in
            ReplyTiming(firstByteMilliseconds: Self.milliseconds(first - sentAt),
                        streamMilliseconds: Self.milliseconds(clock.uptime() - first))
        }
        var errorText: String?
        if case .failed(let error, _) = outcome { errorText = error.message }
        if writer == nil, case .failed = outcome { _ = try openWriter() }
        if writer == nil, !notes.isEmpty { _ = try openWriter() }
        try writer?.finish(status: outcome.status, error: errorText, usage: usage, backendID: backendMessageID, model: model,
                           notes: notes, promptEstimate: promptEstimate, timing: timing)
        if writer == nil, let userMessageID { try store.indexNow(messageID: userMessageID) }
    }

    /// Whole milliseconds of a duration in seconds (cut, not rounded).
    static func milliseconds(_ seconds: Double) -> Int {
        Int((max(0, seconds) * 1000).rounded(.down))
    }

    private mutating func markFirstByte() {
        if firstByteAt == nil { firstByteAt = clock.uptime() }
    }

    private mutating func openWriter() throws -> ReplyWriter {
        if let writer { return writer }
        let made = try store.beginReply(threadID: thread.id, session: session, model: model)
        writer = made
        opened(made.messageID)
        return made
    }
}

/// What a `/compact` reply leaves: the thread's summary, kept only whole (a summary cut short
/// would stand for turns it does not hold). Nothing is stored while it streams.
struct SummaryRecord {
    let store: HistoryStore
    let threadID: Int64
    let throughMessageID: Int64
    let turns: Int

    func close(_ outcome: ReplyOutcome, text: String) throws {
        let summary = text.trimmed
        guard outcome == .complete, !summary.isEmpty else { return }
        try store.addSummary(threadID: threadID, ThreadSummary(text: summary, turns: turns, throughMessageID: throughMessageID))
    }
}
