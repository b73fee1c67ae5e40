import FoundationEssentials
import Glibc
import HarkCore

/// The seam between hark and the person at the terminal: keys (and the signals a terminal
/// raises) in, text out, the size, what the output can show, and the few things only a
/// terminal can do: edit a line, run an editor or a pager on it, take keys as they are
/// pressed or without echo. The shell and one-shot mode reach the screen and the keyboard only
/// through it. `SystemTerminal` is the tty, stdout and stderr; the tests drive the shipped
/// shell through a fake (`Tests/TestSupport/FakeTerminal.swift`).
public protocol Terminal: AnyObject, Sendable {
    /// What standard output can show: a TTY at all, colours.
    var capabilities: TerminalCapabilities { get }
    /// The same for the error stream, which may be a file while the output is a terminal.
    var errorCapabilities: TerminalCapabilities { get }
    /// Columns and rows.
    var size: TerminalSize { get }
    /// Keys come from a person at a keyboard; false when input is a pipe or a file.
    var hasKeyboard: Bool { get }

    /// Readable (for poll) when input waits; -1 when there is none.
    var inputDescriptor: Int32 { get }
    /// Reads what input waits, up to `limit` bytes; empty at the end of input. Blocks when
    /// nothing waits.
    func readInput(limit: Int) -> [UInt8]
    /// Readable (for poll) when a signal arrived; -1 when signals are not caught.
    var signalDescriptor: Int32 { get }
    /// From now on these signals arrive through `signalDescriptor` instead of ending hark.
    func catchSignals(_ signals: [Int32])
    /// The signals that arrived since the last call, in order.
    func takeSignals() -> [Int32]
    /// The terminal went away (its input ended or failed): hark ends as a SIGHUP ends it.
    func hangUp()
    /// hark was continued after a stop (`fg`): the terminal's key mode is set again, since
    /// the shell that stopped it restored its own.
    func resumed()
    /// Stops hark as a job (Ctrl-Z at the prompt), its process group with it, until `fg`.
    func suspend()

    func write(_ text: String)
    func writeError(_ text: String)
    func setKeyMode(_ mode: KeyMode)
    func clearScreen()

    /// The line editor the shell reads its lines with, reading keys through `loop`.
    func lineInput(loop: EventLoop) throws -> LineInput
    /// Opens `path` in the user's editor; throws when the editor fails.
    func editFile(_ path: String) throws
    /// Edits `text` in the user's editor and returns what was saved.
    func edit(_ text: String) throws -> String
    /// Whether the user named an editor ($VISUAL or $EDITOR): `/edit last` edits in the input
    /// line when not.
    var hasEditor: Bool { get }
    /// Puts `text` on the clipboard; returns the line that says how (nil when there is nothing
    /// to say), or throws saying what is missing.
    func copy(_ text: String, what: String) throws -> String?
    /// Long text to read: through the pager when it does not fit the screen (never in a pipe).
    func page(_ text: String)
    /// Asks the terminal to report focus changes (`CSI ? 1004 h`) while hark takes keys, or no longer.
    func reportFocus(_ on: Bool)
}

/// How keys reach hark.
public enum KeyMode: Sendable, Equatable {
    /// Each key as it is pressed, unechoed, Ctrl-C and Ctrl-Z as bytes: while a reply streams,
    /// and between lines (a Ctrl-D typed the moment the prompt appears must reach the line
    /// editor, not the kernel's line editing).
    case keys
    /// The user's own settings: for an editor, a pager, a question, and at exit.
    case user
    /// The user's settings without echo: a password.
    case hidden
}

public struct TerminalSize: Sendable, Equatable {
    public var columns: Int
    public var rows: Int

    public init(columns: Int, rows: Int) {
        self.columns = columns
        self.rows = rows
    }
}

extension Terminal {
    /// A terminal that cannot report focus (a test's) ignores the request.
    public func reportFocus(_ on: Bool) {}

    /// Styled lines as this terminal shows them, in one write: on a terminal, untrusted text
    /// in them made inert and every line cut to its width.
    public func show(_ document: Document) {
        let text = rendered(document)
        if !text.isEmpty { write(text + "\n") }
    }

    /// The same for long output (a command's, in the shell or at the command line): through
    /// the pager when it does not fit the screen.
    public func showLong(_ document: Document) {
        let text = rendered(document)
        if !text.isEmpty { page(text + "\n") }
    }

    /// What `show` writes (without its last line feed).
    public func rendered(_ document: Document) -> String {
        StyledLine.rendered(document, capabilities: capabilities, columns: capabilities.isTTY ? size.columns : nil)
    }

    /// Text in one style on a line (or, cut to the width, lines) of its own.
    public func show(_ text: String, _ style: Style) {
        write(rendered([StyledLine(text, style)]) + "\n")
    }

    /// The one-line message of an error, on the error stream.
    public func showError(_ error: Error) {
        let line = StyledLine("hark: " + error.userMessage, .error)
        writeError(StyledLine.rendered([line], capabilities: errorCapabilities, columns: errorCapabilities.isTTY ? size.columns : nil) + "\n")
    }

    /// A build's console (or any text that carries its own colours) as this terminal should
    /// get it: on a terminal its colours kept, every other sequence inert, lines cut to the
    /// width; in a pipe as it is.
    public func forScreen(console text: String) -> String {
        guard capabilities.sanitizes else { return text }
        var renderer = PlainTextRenderer(width: capabilities.isTTY ? size.columns : 1 << 20, colors: capabilities.colors,
                                         keepingColors: true, tracksFences: false)
        var shown = renderer.feed(text) + renderer.finish()
        if !text.hasSuffix("\n") && shown.hasSuffix("\n") { shown.removeLast() }
        return shown
    }

    /// All input up to its end (a message piped in).
    public func readToEnd() -> [UInt8] {
        var all: [UInt8] = []
        while true {
            let block = readInput(limit: 65_536)
            if block.isEmpty { return all }
            all += block
        }
    }
}
