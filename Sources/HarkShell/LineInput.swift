import HarkCore

/// Where the shell's lines come from: libedit on a real terminal (`LineEditor`), a scripted
/// keyboard on the tests' fake terminal. Either reads keys through the shell's event loop and
/// lets the shell act between keys (`hooks.wake`) and on keys first (`hooks.key`).
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
    /// Set while a reply streams above the line being read: what the shell writes then goes
    /// through it, above the line, which is drawn again below.
    var flow: OutputFlow? { get set }
    /// Takes the prompt and the line off the screen (before something takes the whole screen
    /// or the line is set aside); `refresh` draws them again.
    func eraseLine()
    /// The terminal was given back after a stop (`fg`) or messed up: its mode is set again,
    /// and with `clear` the screen is cleared first; `above` (the draft's lines) and the prompt
    /// and the line are drawn anew.
    func redraw(clear: Bool, above: String)
    /// Ctrl-Z at the prompt: hark stops as a job until `fg`.
    func stopForJobControl()
    /// The whole line being typed.
    var currentLine: String { get }
    /// Puts `text` in place of the line being typed, the cursor at its end; drawn by the next
    /// `refresh` (after `eraseLine`).
    func replaceLine(_ text: String)
}

public enum LineRead: Equatable, Sendable {
    case line(String)
    case endOfFile
    case interrupted
    /// A bound key asked for this (`hark-edit`: open $EDITOR on the line).
    case action(String, line: String)
    /// The read was set aside (a reply ended or went to the background, a queued message is
    /// due): the line being typed, to put back at the next read.
    case setAside(String)
}

/// What the shell decides when something wakes a read, or for a control key.
public enum ReadDecision: Sendable {
    /// Go on reading.
    case keepReading
    /// Abandon the line (Ctrl-C).
    case interrupt
    /// End the read, keeping the line for the next one (`LineRead.setAside`).
    case setAside
}

/// What the shell does for the line input.
public struct LineHooks {
    /// The prompt, with invisible sequences bracketed by "\u{1}".
    public var prompt: () -> String = { "› " }
    public var complete: (String) -> CompletionResult = { _ in CompletionResult(start: 0, candidates: []) }
    /// Pasted text that holds newlines (all of it, line ends as "\n"): the shell decides what
    /// goes into the line, which the returned text replaces (a one-line summary).
    public var multilinePaste: (String) -> String = { $0 }
    /// Something other than a key woke the read (signals, events, the timeout).
    public var wake: (EventLoop.Wake) -> ReadDecision = { _ in .keepReading }
    /// Each key before the editor sees it (the shell takes Ctrl-C, Ctrl-Z, Ctrl-L, and every
    /// key while a question is asked): nil passes it on.
    public var key: (Unicode.Scalar) -> ReadDecision? = { _ in nil }
    /// Milliseconds after which a read with no news wakes anyway (`wake` with `timedOut`); nil waits.
    public var timeout: () -> Int32? = { nil }
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
