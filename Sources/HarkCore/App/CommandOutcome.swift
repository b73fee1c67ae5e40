/// What running a line produced. The shell (or the one-shot runner) acts on it; handlers never
/// print.
public enum CommandOutcome: Sendable {
    case none
    /// Lines to show.
    case output(Document)
    /// A reply started; render its events until it ends.
    case reply(ReplyJob)
    /// Events from a backend command, to be recorded in the history as a reply to
    /// `recordAs` (the command line) and rendered. The workspace turns this into `.reply`.
    /// With `detachOnInterrupt`, Ctrl-C leaves it running in the background (a Jenkins build's
    /// console) instead of stopping it.
    case events(AsyncThrowingStream<ReplyEvent, Error>, recordAs: String?, detachOnInterrupt: Bool = false)
    /// A summary of `thread`'s turns up to `throughMessageID` (`/compact`), streamed: shown as
    /// a reply, kept as the thread's summary instead of a message. The workspace turns this
    /// into `.reply`.
    case summary(AsyncThrowingStream<ReplyEvent, Error>, thread: ChatThread, throughMessageID: Int64, turns: Int)
    /// Open $EDITOR on this text, then send what comes back.
    case editDraft(String)
    /// Open $EDITOR on this text (the input line when no editor is set) and hand what comes
    /// back to `then`, whose outcome is acted on (`/edit last`).
    case editMessage(String, then: @Sendable (String) async throws -> CommandOutcome)
    /// Put this text on the clipboard: OSC 52 on a terminal, else wl-copy, xclip or xsel.
    /// `what` names it in the line that says where it went ("the last reply").
    case copy(String, what: String)
    /// Open the config file in $EDITOR, then reload it.
    case editConfig
    /// Put this text in the input line for the user to edit and send.
    case prefill(String)
    /// Dictate into the input line (the shell listens; checked beforehand that it can).
    case listen
    /// Talk hands-free: listen, send, hear the reply, listen again (checked beforehand that it
    /// can); with `wake`, only after the wake phrase.
    case talk(wake: Bool)
    /// Long text to read (a finished build's console): through $PAGER on a terminal,
    /// printed as is elsewhere. Not recorded.
    case page(String)
    case clearScreen
    case quit
}

/// Questions a command may need to ask (a missing build parameter, a password). The shell
/// answers through libedit; in a pipe there is nobody to ask and `ask` returns nil.
public protocol Interaction: Sendable {
    var isInteractive: Bool { get }
    func ask(_ prompt: String, secret: Bool) async -> String?
    /// One of `options` (single characters, lowercase), or nil when the question was
    /// dismissed (Ctrl-C, end of input). Asking before a tool call runs.
    func choose(_ prompt: String, options: [Character]) async -> Character?
    /// An agent's form asked field by field; nil when nobody could be asked (the reply is not
    /// watched at a terminal), for the caller to decline it and say so.
    func fill(_ question: QuestionConversation) async -> QuestionOutcome?
    /// Whether a reply's task can ask someone now (a person watches the reply at a terminal).
    var asksDuringReply: Bool { get }
    /// A line for the person watching a reply, shown at once (the page to open that a server
    /// asked for), while the reply's task goes on.
    func tell(_ line: String)
}

extension Interaction {
    /// By default a line's first character, when it is one of the options.
    public func choose(_ prompt: String, options: [Character]) async -> Character? {
        guard let answer = await ask(prompt, secret: false)?.trimmingSpaces.lowercased().first else { return nil }
        return options.contains(answer) ? answer : nil
    }

    /// By default nobody fills forms: the question is declined.
    public func fill(_ question: QuestionConversation) async -> QuestionOutcome? { nil }

    public var asksDuringReply: Bool { isInteractive }

    public func tell(_ line: String) {}
}

public struct NonInteractive: Interaction {
    public init() {}
    public var isInteractive: Bool { false }
    public func ask(_ prompt: String, secret: Bool) async -> String? { nil }
}
