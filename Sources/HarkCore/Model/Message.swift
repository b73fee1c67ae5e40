import FoundationEssentials
import Glibc

public enum MessageRole: String, Sendable, CaseIterable {
    /// `tool`: a tool call the model made and its result (ToolResult, in `tool_call`).
    case user, assistant, system, tool
}

/// How a stored message ended. `partial` means the writer died or the connection broke
/// mid-reply; `stopped` means the user stopped it.
public enum MessageStatus: String, Sendable, CaseIterable {
    case complete, partial, stopped, failed
}

public struct Usage: Sendable, Equatable {
    public var promptTokens: Int?
    public var completionTokens: Int?
    public var totalTokens: Int?

    public init(promptTokens: Int? = nil, completionTokens: Int? = nil, totalTokens: Int? = nil) {
        self.promptTokens = promptTokens
        self.completionTokens = completionTokens
        self.totalTokens = totalTokens
    }
}

public struct Message: Sendable, Equatable {
    public var id: Int64
    public var threadID: Int64
    public var session: String
    public var role: MessageRole
    public var text: String
    public var status: MessageStatus
    public var createdAt: Date
    public var backendID: String?
    public var usage: Usage?
    public var error: String?
    public var model: String?
    /// What the reply came with besides its text, one line each ("AI Agent failed: …").
    public var notes: [String]
    /// The message that replaced this one (`/edit last`): kept, shown by `/history --all`,
    /// never sent again.
    public var supersededBy: Int64?
    /// hark's guess of the prompt this reply answered, before calibration.
    public var promptEstimate: Int?
    /// How long this reply took to start and to stream.
    public var timing: ReplyTiming?
    /// A message sent with text piped into hark: where its piped part begins in `text` (a
    /// byte offset; 0 when all of it was piped).
    public var pipedFrom: Int?

    public init(id: Int64, threadID: Int64, session: String, role: MessageRole, text: String,
                status: MessageStatus, createdAt: Date, backendID: String? = nil, usage: Usage? = nil,
                error: String? = nil, model: String? = nil, notes: [String] = [], supersededBy: Int64? = nil,
                promptEstimate: Int? = nil, timing: ReplyTiming? = nil, pipedFrom: Int? = nil) {
        self.id = id
        self.threadID = threadID
        self.session = session
        self.role = role
        self.text = text
        self.status = status
        self.createdAt = createdAt
        self.backendID = backendID
        self.usage = usage
        self.error = error
        self.model = model
        self.notes = notes
        self.supersededBy = supersededBy
        self.promptEstimate = promptEstimate
        self.timing = timing
        self.pipedFrom = pipedFrom
    }

    /// The part of `text` that was piped into hark, when some was.
    public var pipedText: Substring? {
        guard let pipedFrom, pipedFrom <= text.utf8.count else { return nil }
        return Substring(text.utf8[text.utf8.index(text.utf8.startIndex, offsetBy: pipedFrom)...])
    }
}

/// How long a reply took: from sending to its first byte, then from there to its end.
public struct ReplyTiming: Sendable, Equatable {
    public var firstByteMilliseconds: Int
    public var streamMilliseconds: Int

    public init(firstByteMilliseconds: Int, streamMilliseconds: Int) {
        self.firstByteMilliseconds = firstByteMilliseconds
        self.streamMilliseconds = streamMilliseconds
    }

    /// Tokens a second while it streamed; nil for a reply too short to time.
    public func tokensPerSecond(_ tokens: Int?) -> Double? {
        guard let tokens, tokens > 0, streamMilliseconds > 0 else { return nil }
        return Double(tokens) * 1000 / Double(streamMilliseconds)
    }
}

public struct ChatThread: Sendable, Equatable {
    public var id: Int64
    public var session: String
    public var title: String
    /// The backend's own id for the thread: the n8n sessionId, a Nyla workflow id.
    public var backendID: String?
    public var createdAt: Date
    public var updatedAt: Date
    public var messageCount: Int

    public init(id: Int64, session: String, title: String, backendID: String?, createdAt: Date,
                updatedAt: Date, messageCount: Int = 0) {
        self.id = id
        self.session = session
        self.title = title
        self.backendID = backendID
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.messageCount = messageCount
    }
}

/// One turn of a conversation: an earlier one, as sent to a backend that needs the context,
/// or one of a server's thread, kept when the thread is opened here (with the server's date).
public struct Turn: Sendable, Equatable {
    public var role: MessageRole
    public var text: String
    public var createdAt: Date?
    /// An assistant turn that called tools: the calls of one round with their results, in
    /// order (its `text` is what the model wrote before calling them, often nothing).
    public var tools: [ToolResult]

    public init(role: MessageRole, text: String, createdAt: Date? = nil, tools: [ToolResult] = []) {
        self.role = role
        self.text = text
        self.createdAt = createdAt
        self.tools = tools
    }
}

/// A search hit: the message and a snippet with the match marked.
/// One message a search found. `message.text` is empty: a hit holds the snippet, and the size
/// of the text in bytes (`length`); `HistoryStore.message(id:)` reads the whole text.
public struct SearchHit: Sendable, Equatable {
    public var message: Message
    public var threadTitle: String
    public var snippet: String
    public var length: Int
}

/// How many of a thread's newest turns go with a message: at most `messages` of them, and at
/// most `bytes` of text together when a budget is given.
public struct TurnWindow: Sendable, Equatable {
    public var messages: Int
    public var bytes: Int?

    public init(messages: Int, bytes: Int? = nil) {
        self.messages = messages
        self.bytes = bytes
    }

    /// No history at all: for kinds whose server keeps the conversation, or that need none.
    public static let none = TurnWindow(messages: 0)
}
