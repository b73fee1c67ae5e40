import FoundationEssentials
import Glibc

/// A thread as the server lists it.
public struct RemoteThread: Sendable, Equatable {
    public var id: String
    public var title: String
    public var updatedAt: Date?

    public init(id: String, title: String, updatedAt: Date? = nil) {
        self.id = id
        self.title = title
        self.updatedAt = updatedAt
    }
}

/// How a server starts a thread asked for with `/thread new TITLE`.
public enum NewRemoteThread: Sendable, Equatable {
    /// Made now; the local thread holds its id.
    case created(RemoteThread)
    /// Made with the first message (its id then arrives as `.backendThreadID`, or is the one
    /// `newThreadID()` gave); the note tells the user so.
    case withFirstMessage(note: String?)
}

/// The capability of a kind whose threads live on its server (Nyla's workflows, n8n's chat
/// sessions, an A2A agent's contexts). The core `/threads` and `/thread new|rename|rm|ID`
/// call these for the server's side and keep a local thread per server thread (its
/// `backendID`), so history and search work offline and every kind behaves alike. A kind
/// conforms and implements what its server can do; it declares no thread commands.
public protocol RemoteThreads: Backend {
    /// The server as the user hears of it: "the gateway".
    var threadServer: String { get }

    /// The id a new thread gets before its first message, made here (n8n's sessionId); nil
    /// when the server names it.
    func newThreadID() -> String?

    /// The server's threads, newest first; nil when the server cannot list them (then
    /// `/threads` lists the local ones and `/thread ID` adopts an unknown ID as the server's).
    func listThreads(_ context: CommandContext) async throws -> [RemoteThread]?

    func createThread(title: String, _ context: CommandContext) async throws -> NewRemoteThread

    /// Renames the thread on the server; a note when the server keeps its own name.
    func renameThread(id: String, to title: String, _ context: CommandContext) async throws -> String?

    /// Deletes the thread on the server; false when the server cannot (it goes here only).
    func deleteThread(id: String, _ context: CommandContext) async throws -> Bool

    /// The server's copy of a thread, when it is opened and nothing of it is kept here yet.
    func loadThread(id: String, _ context: CommandContext) async throws -> [Turn]
}

extension RemoteThreads {
    public var threadServer: String { "the server" }
    public func newThreadID() -> String? { nil }
    public func listThreads(_ context: CommandContext) async throws -> [RemoteThread]? { nil }
    public func createThread(title: String, _ context: CommandContext) async throws -> NewRemoteThread {
        .withFirstMessage(note: nil)
    }
    public func renameThread(id: String, to title: String, _ context: CommandContext) async throws -> String? { nil }
    public func deleteThread(id: String, _ context: CommandContext) async throws -> Bool { false }
    public func loadThread(id: String, _ context: CommandContext) async throws -> [Turn] { [] }
}
