import FoundationEssentials

/// What the shell and the command line read from the history and record in it, through the
/// workspace: the history is written by the workspace and what it runs (replies, commands,
/// backends), never by the terminal layer, so there is one place to look for what a typed
/// line leaves behind.
extension Workspace {
    // MARK: Typed lines

    /// Keeps a line typed in the current session for the line editor's history (Up, Ctrl-R).
    /// The caller has checked it holds no literal secret (InputRecording).
    public func recordInputLine(_ line: String) throws {
        try store.addInputLine(session: currentSession, line: line)
    }

    /// The lines typed in a session (the current one by default), oldest first.
    public func inputHistory(session: String? = nil) throws -> [String] {
        try store.inputHistory(session: session ?? currentSession)
    }

    // MARK: Messages and unread replies

    public func message(id: Int64) throws -> Message? {
        try store.message(id: id)
    }

    /// The user has seen the session's replies up to this message.
    public func markRead(session: String, upTo messageID: Int64) throws {
        try store.markRead(session: session, upTo: messageID)
    }

    /// Replies that finished in each session since the user last looked at it.
    public func unreadCounts() throws -> [String: Int] {
        try store.unreadCounts()
    }

    // MARK: Threads chosen on the command line

    /// The session's next message starts a new thread.
    public func leaveThread(session: String) throws {
        try store.setCurrentThread(session: session, threadID: nil)
    }

    /// Makes the thread `reference` (an id, a title or a title's unique start) the session's
    /// current one. When none matches, a new thread of that title is made (the server's id
    /// for it too, where the session keeps threads on its server), unless `mustExist`.
    public func selectThread(_ reference: String, session: String, mustExist: Bool) throws {
        if let thread = try store.findThread(session: session, reference) {
            try store.setCurrentThread(session: session, threadID: thread.id)
        } else if mustExist {
            throw HarkError.unknownThread(reference)
        } else {
            let backend = try backend(for: session)
            try store.createThread(session: session, title: reference, backendID: (backend as? RemoteThreads)?.newThreadID())
        }
    }

    // MARK: The full-text index

    /// What opening the history changed (a data folder others could open, made private), to say once.
    public var historyNotices: [String] { store.notices }

    /// A one-shot run leaves the index passes of long replies for `hark index`, so that it can
    /// exit as soon as its reply is stored.
    public func deferIndexing() {
        store.indexer.deferPasses()
    }

    /// Whether this run left text for the index (see `deferIndexing`).
    public var hasDeferredIndexing: Bool { store.indexer.hasDeferredWork }

    /// Waits until every stored reply of this run is in the full-text index.
    public func finishIndexing() throws {
        try store.finishIndexing()
    }
}
