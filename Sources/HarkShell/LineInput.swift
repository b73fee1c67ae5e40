import HarkCore

/// Where the shell's lines come from: libedit on a real terminal (`LineEditor`), a scripted
/// keyboard on the tests' fake terminal. Either reads keys through the shell's event loop and
/// lets the shell act between keys (`hooks.wake`).
public protocol LineInput: AnyObject {
    var hooks: LineHooks { get set }
    /// Shows the prompt and reads one line.
    func readLine() -> LineRead
    /// Puts text into the next line read, to edit and send (/prompt NAME, a draft kept after an error).
    func prefill(_ text: String)
    func setHistory(_ lines: [String])
    func addHistory(_ line: String)
    /// Repaints the prompt and the line after something was printed above them.
    func refresh()
    /// Starts dictation at the next read, as if its key were pressed (/listen).
    func requestListening()
}

public enum LineRead: Equatable, Sendable {
    case line(String)
    case endOfFile
    case interrupted
    /// A bound key asked for this (`hark-edit`: open $EDITOR on the line).
    case action(String, line: String)
}

/// What the shell does for the line input.
public struct LineHooks {
    /// The prompt, with invisible sequences bracketed by "\u{1}".
    public var prompt: () -> String = { "› " }
    public var complete: (String) -> CompletionResult = { _ in CompletionResult(start: 0, candidates: []) }
    /// Pasted text that holds newlines: the shell keeps all but the last line as its draft.
    public var multilinePaste: ([String]) -> Void = { _ in }
    /// Something other than a key woke the read (signals, a reply that ended in the background);
    /// true abandons the line being typed.
    public var wake: (EventLoop.Wake) -> Bool = { _ in false }
    /// Dictation into the line (`hark-listen`); runs inside libedit until it ends.
    var listen: (LineEditor) -> ListenEnd = { _ in .keep }

    public init() {}
}

enum ListenEnd {
    /// Back to editing the line.
    case keep
    /// Send the line now (auto-send, or the send word).
    case send
}
