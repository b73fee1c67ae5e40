import Foundation
import HarkCore
import HarkShell

/// A private XDG home for one test: its own config file and history database.
public final class TestHome: @unchecked Sendable {
    public let directory = TemporaryDirectory("hark-home")
    public let paths: Paths

    /// `config` is the text of the config file; nil leaves hark to write its default.
    /// `sharedPrompts` are the folders of shipped prompts and forms (none unless asked for:
    /// `[TestHome.shippedPrompts]` is the repository's).
    public init(config: String? = nil, sharedPrompts: [String] = []) {
        paths = Paths(configDirectory: directory.path + "/config/hark", dataDirectory: directory.path + "/data/hark",
                      sharedPromptDirectories: sharedPrompts)
        if let config {
            try? FileManager.default.createDirectory(atPath: paths.configDirectory, withIntermediateDirectories: true)
            _ = FileManager.default.createFile(atPath: paths.configFile, contents: Data(config.utf8),
                                           attributes: [.posixPermissions: 0o600])
        }
    }

    /// The repository's `prompts/` folder: the prompts and forms hark ships.
    public static let shippedPrompts = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("prompts").path

    /// Writes a file under the user's prompts folder (`forms/x.json`, `x.md`).
    @discardableResult
    public func writePrompt(_ relativePath: String, _ text: String) -> String {
        let path = paths.configDirectory + "/prompts/" + relativePath
        try? FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                 withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        return path
    }

    public func workspace(clock: HarkClock = .system) throws -> Workspace {
        try Workspace(paths: paths, clock: clock)
    }

    /// The environment that points a hark process at this home.
    public var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = directory.path + "/config"
        environment["XDG_DATA_HOME"] = directory.path + "/data"
        environment["NO_COLOR"] = "1"
        environment["HARK_PROMPTS"] = paths.sharedPromptDirectories.first
        return environment
    }
}

/// The golden-transcript harness: the shipped `Shell` runs on a thread of its own with a
/// `FakeTerminal`, and the test types lines at it and reads what a user would read (no
/// colours; a typed line shows as "> line"). Everything between the keys and the screen is
/// the shell's own: the presenter, the reply watch, Ctrl-C and Ctrl-Z, the notices of replies
/// that ended in the background.
public final class Transcript: @unchecked Sendable {
    public let workspace: Workspace
    public let terminal: FakeTerminal
    private let shell: Shell
    /// The shell's own questions at the terminal (the test chooses: `answerAtTheTerminal`).
    private let terminalInteraction: Interaction
    private let lock = NSLock()
    private var start: Int?

    /// Questions a command asks go to the interaction the test put on the workspace
    /// (`ScriptedInteraction`, a person answering; `NonInteractive` by default, as in a pipe)
    /// unless the test calls `answerAtTheTerminal`.
    /// What the user leaves in the editor when a command opens it (`/edit last`); nil keeps the
    /// text as it was.
    public var editorText: String? {
        didSet {
            let text = editorText
            terminal.editor = { text ?? $0 }
        }
    }

    public init(_ workspace: Workspace, size: TerminalSize = FakeTerminal.wide) {
        self.workspace = workspace
        terminal = FakeTerminal(size: size)
        let chosen = workspace.interaction
        // The fake terminal's line input cannot fail to load, as libedit can.
        shell = try! Shell(workspace: workspace, terminal: terminal)
        terminalInteraction = workspace.interaction
        workspace.interaction = chosen
        // Handed to its own thread, which alone uses it from here on.
        nonisolated(unsafe) let shell = self.shell
        let terminal = self.terminal
        Threads.start(name: "hark-test-shell") {
            _ = shell.run()
            terminal.shellEnded()
        }
    }

    deinit { terminal.closeKeyboard() }

    /// What the shell showed before its first prompt: the greeting and the config's warnings.
    public var greeting: String {
        get async {
            await started()
            return String(terminal.text.prefix(lock.withLock { start ?? 0 }))
        }
    }

    /// Everything shown since the first prompt.
    public var text: String { String(terminal.text.dropFirst(lock.withLock { start ?? 0 })) }

    private func started() async {
        await terminal.until { $0.prompts > 0 || $0.ended }
        lock.withLock { if start == nil { start = terminal.text.count } }
    }

    /// Types one line (pastes it when it has several) and presses Enter, then waits until the
    /// shell is back at the prompt; returns what it showed meanwhile. `whileStreaming` runs once the shell watches the reply the line started
    /// (with the reply, to wait for its text), e.g. to press Ctrl-C or Ctrl-Z.
    @discardableResult
    public func type(_ line: String, whileStreaming: (@Sendable (ReplyJob) async -> Void)? = nil) async -> String {
        await started()
        let before = terminal.current
        let mark = terminal.text.count
        let earlier = Set(workspace.runningJobs.map(\.id))
        // A message of several lines is pasted, then sent with Enter.
        terminal.type(line.contains("\n") ? "\u{1B}[200~" + line + "\u{1B}[201~\n" : line + "\n")
        if let whileStreaming {
            await terminal.until { $0.keyModes > before.keyModes || $0.prompts > before.prompts || $0.ended }
            if let job = workspace.runningJobs.first(where: { !earlier.contains($0.id) }) { await whileStreaming(job) }
        }
        await terminal.until { $0.prompts > before.prompts || $0.ended }
        return String(terminal.text.dropFirst(mark))
    }

    /// Keys a person presses at the terminal.
    public enum Key: UInt8, Sendable {
        case ctrlC = 0x03, ctrlD = 0x04, ctrlU = 0x15, ctrlZ = 0x1A
    }

    /// Presses a key (Ctrl-C during a reply stops it, Ctrl-Z sends it to the background; at
    /// the prompt Ctrl-C drops the line and the draft) and waits until the shell is back at
    /// the prompt.
    public func press(_ key: Key) async {
        await started()
        let before = terminal.current
        terminal.type(String(UnicodeScalar(key.rawValue)))
        await terminal.until { $0.prompts > before.prompts || $0.ended }
    }

    /// Questions from here on are asked at the terminal, as the shell asks them, and answered
    /// with these lines typed as each question shows.
    public func answerAtTheTerminal(_ answers: [String]) {
        workspace.interaction = terminalInteraction
        terminal.answer(answers)
    }

    /// Waits for every reply still running in the background and for the shell to have shown
    /// their notices above the prompt.
    public func settle() async {
        await started()
        for job in workspace.runningJobs { _ = await job.wait() }
        // The end is announced just after the waiters are resumed.
        while !workspace.isIdle { await Task.yield() }
        // The notices are posted to the shell by now; a no-op key typed after them passes the
        // line input only once the shell has taken them.
        let before = terminal.current.syncs
        terminal.type("\u{0}")
        await terminal.until { $0.syncs > before || $0.ended }
    }
}
