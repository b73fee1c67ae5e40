import FoundationEssentials
import Glibc

/// One session's threads and messages: what a command or a backend may read and change in the
/// history, instead of the whole HistoryStore. Replies are recorded by the workspace, never
/// through this.
public struct SessionHistory: Sendable {
    let store: HistoryStore
    public let session: String

    init(store: HistoryStore, session: String) {
        self.store = store
        self.session = session
    }

    public func threads() throws -> [ChatThread] { try store.threads(session: session) }

    public func currentThread() throws -> ChatThread? { try store.currentThread(session: session) }

    /// nil: the next message starts a new thread.
    public func setCurrentThread(_ id: Int64?) throws { try store.setCurrentThread(session: session, threadID: id) }

    /// A new thread, which becomes the current one.
    @discardableResult
    public func createThread(title: String, backendID: String? = nil) throws -> ChatThread {
        try store.createThread(session: session, title: title, backendID: backendID)
    }

    /// By id, exact title, unique title prefix, or server id.
    public func findThread(_ reference: String) throws -> ChatThread? { try store.findThread(session: session, reference) }

    /// The local thread that holds a server thread.
    public func thread(serverID: String) throws -> ChatThread? { try threads().first { $0.backendID == serverID } }

    public func renameThread(_ id: Int64, to title: String) throws { try store.renameThread(id: id, title: title) }

    public func deleteThread(_ id: Int64) throws { try store.deleteThread(id: id) }

    /// The thread's messages, oldest first; with `limit`, the latest that many. Those
    /// `/edit last` replaced only with `superseded`.
    public func messages(threadID: Int64, limit: Int? = nil, superseded: Bool = false) throws -> [Message] {
        try store.messages(threadID: threadID, limit: limit, superseded: superseded)
    }

    /// Waits until what was written is in the full-text index (before a search of the notes).
    public func finishIndexing() throws { try store.finishIndexing() }

    /// The thread's turns as a model session sends them: the summary, the turns after it, the
    /// calibrated token guess.
    public func context(threadID: Int64, window: TurnWindow) throws -> ThreadContext {
        try store.context(threadID: threadID, session: session, window: window)
    }

    /// A server thread's messages, added as the server dated them and marked read: they are
    /// shown as they arrive, so they are not news.
    public func importMessages(_ messages: [Turn], into threadID: Int64) throws {
        var last: Int64?
        for message in messages {
            last = try store.addMessage(threadID: threadID, session: session, role: message.role, text: message.text,
                                        createdAt: message.createdAt)
        }
        if let last { try store.markRead(session: session, upTo: last) }
    }

    /// A file for the session's next message, kept until that message is sent (in this run
    /// or the next).
    public func attach(_ attachment: Attachment) throws { try store.addPendingAttachment(attachment, session: session) }

    /// The files waiting for the next message.
    public func pendingAttachments() throws -> [Attachment] { try store.pendingAttachments(session: session) }

    /// A push token stored before the request that carries it goes out (A2A push notifications).
    public func registerPushToken(_ token: String, threadID: Int64) throws {
        try store.registerPushToken(token, session: session, threadID: threadID)
    }

    /// The server named the work the token was sent for.
    public func nameWork(pushToken token: String, key: String, details: [String: String]) throws {
        try store.nameWork(pushToken: token, key: key, details: details)
    }

    /// The reply that carried the token ended here; later pushes for it are dropped.
    public func finishLiveWork(pushToken token: String) throws { try store.finishLiveWork(pushToken: token) }

    /// The tables a kind adds for itself by migration (the local kind's form progress).
    public func tables<T>(_ body: (Database) throws -> T) throws -> T { try store.wrap { try body(store.database) } }
}
