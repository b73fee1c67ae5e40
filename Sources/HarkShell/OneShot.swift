import FoundationEssentials
import Glibc
import HarkCore

/// `hark -s NAME "message"` and `… | hark -s NAME ["message"]`: one line through the workspace
/// with what was piped in, the reply on stdout, the exit code telling how it went.
public struct OneShot {
    let workspace: Workspace
    let terminal: Terminal
    let json: Bool
    /// Also read the reply aloud (`--speak`), and wait until it has been heard.
    let speak: Bool
    /// Print only the reply's fenced code blocks (`--code`), once it is whole.
    let codeOnly: Bool

    public init(workspace: Workspace, terminal: Terminal, json: Bool, speak: Bool = false, codeOnly: Bool = false) {
        self.workspace = workspace
        self.terminal = terminal
        self.json = json
        self.speak = speak
        self.codeOnly = codeOnly
    }

    /// `piped`: what came on stdin, sent with the message (or as it, when `line` is empty).
    public func run(_ line: String, piped: PipedInput? = nil) -> Int32 {
        terminal.catchSignals([SIGINT, SIGTERM, SIGHUP])
        let loop = EventLoop(terminal: terminal)
        if terminal.hasKeyboard {
            // On a terminal a tool call is asked about, as in the shell (nothing else asks here).
            let asker = TerminalInteraction(terminal: terminal, loop: loop)
            workspace.tools.setInteraction { asker }
        }
        if speak {
            let inbox = loop.inbox
            workspace.voice.onSpeechEvent = { event in
                if case .failed(let error) = event { inbox.post(.speechFailed(error)) }
            }
        }
        let presenter = OutcomePresenter(workspace: workspace, terminal: terminal, loop: loop,
                                         mode: .oneShot(json: json, speak: speak))
        presenter.codeOnly = codeOnly
        defer { workspace.prepareForExit() }
        return presenter.run(line, piped: piped)
    }
}
