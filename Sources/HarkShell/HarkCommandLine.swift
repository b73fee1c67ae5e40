import FoundationEssentials
import Glibc
import HarkCore

/// The `hark` command: parses the arguments (as CLICommands describes them) and runs the
/// shell, a one-shot message or a subcommand. Returns the process exit code.
public enum HarkCommandLine {
    public static func run(_ arguments: [String]) -> Int32 {
        Signals.quitEndsLikeTerm()
        do {
            return Signals.exitStatus(try dispatch(arguments))
        } catch {
            if Signals.terminating == 0 || error.exitCode != .interrupted {
                RawOutput.write("hark: " + error.userMessage + "\n", to: STDERR_FILENO)
            }
            return Signals.exitStatus(error.exitCode.rawValue)
        }
    }

    static func dispatch(_ arguments: [String]) throws -> Int32 {
        if let first = arguments.first, let command = CLICommands.command(named: first) {
            return try subcommand(command, Array(arguments.dropFirst()))
        }
        let parsed = try OptionParser.parse(arguments, options: CLICommands.messageOptions, help: "hark --help")
        let options = MessageOptions(parsed)
        if options.help {
            RawOutput.write(CLICommands.usage().joined(separator: "\n") + "\n")
            return 0
        }
        if options.version {
            RawOutput.write("hark \(HarkVersion.string)\n")
            return 0
        }
        let workspace = try openWorkspace()
        if let session = options.session { try workspace.switchSession(to: session) }
        workspace.tools.allow(options.yesTools)
        try selectThread(options, workspace: workspace)
        var message = options.words.joined(separator: " ")
        if options.listen {
            guard message.isEmpty else { throw HarkError.usage("give a message or --listen, not both") }
            guard let dictated = try dictateMessage(workspace) else { return HarkError.ExitCode.interrupted.rawValue }
            message = dictated
        }
        if options.speak {
            // Checked before anything is sent: a missing espeak-ng or sound server is one clear error.
            _ = try workspace.voice.replySpeaker(for: workspace.currentConfig, config: workspace.config,
                                                 paths: workspace.paths, forced: true)
            if !message.isEmpty || isatty(STDIN_FILENO) == 0 { try workspace.voice.prepareOutput() }
        }
        if message.isEmpty && isatty(STDIN_FILENO) == 0 {
            let input = PosixFile(borrowing: STDIN_FILENO).readToEnd()
            message = String(decoding: input, as: UTF8.self)
            while message.hasSuffix("\n") || message.hasSuffix("\r") { message.removeLast() }
            guard !message.trimmed.isEmpty else {
                throw HarkError.usage("no message: give one as an argument or on stdin (or run hark in a terminal for the shell)")
            }
        }
        let capabilities = TerminalCapabilities.detect()
        if message.isEmpty {
            if options.json { throw HarkError.usage("--json needs a message") }
            if options.speak {
                var overrides = workspace.voice.overrides(for: workspace.currentSession)
                overrides.speak = true
                workspace.voice.setOverrides(overrides, for: workspace.currentSession)
            }
            return try Shell(workspace: workspace, capabilities: capabilities).run()
        }
        return OneShot(workspace: workspace, capabilities: capabilities, json: options.json, speak: options.speak).run(message)
    }

    /// The workspace, after saying what opening the history changed (a data folder others
    /// could open, made private).
    static func openWorkspace() throws -> Workspace {
        let workspace = try Workspace(paths: Paths.fromEnvironment())
        tell(workspace.store.notices)
        return workspace
    }

    static func tell(_ notices: [String]) {
        for notice in notices { RawOutput.write("hark: note: " + notice + "\n", to: STDERR_FILENO) }
    }

    /// `--listen`: the message, dictated; nil when cancelled (Ctrl-C or the cancel word).
    static func dictateMessage(_ workspace: Workspace) throws -> String? {
        let settings = try workspace.voiceSettings()
        _ = try workspace.voice.checkDictation(settings, paths: workspace.paths)
        if isatty(STDERR_FILENO) == 1 { RawOutput.write("loading the Vosk model…\r", to: STDERR_FILENO) }
        let model = try workspace.voice.model(for: settings, paths: workspace.paths)
        guard let recognition = try CLIDictation.run(model: model, settings: settings, devices: workspace.voice.devices) else {
            return nil
        }
        switch settings.interpret(recognition.text) {
        case .cancel: return nil
        case .send, .mute: throw HarkError.usage("heard only a command word (\(recognition.text)); nothing to send")
        case .text(let text):
            guard !text.isEmpty else { throw HarkError.io("heard nothing, so nothing was sent; speak after \"listening…\"") }
            if isatty(STDERR_FILENO) == 1 { RawOutput.write("› \(text)\n", to: STDERR_FILENO) }
            return text
        }
    }

    static func selectThread(_ options: MessageOptions, workspace: Workspace) throws {
        let session = workspace.currentSession
        if options.newThread {
            try workspace.store.setCurrentThread(session: session, threadID: nil)
        }
        if let reference = options.thread {
            if let thread = try workspace.store.findThread(session: session, reference) {
                try workspace.store.setCurrentThread(session: session, threadID: thread.id)
            } else {
                let backend = try workspace.backend(for: session)
                try workspace.store.createThread(session: session, title: reference,
                                                 backendID: (backend as? RemoteThreads)?.newThreadID())
            }
        }
    }

    /// The options of `hark [OPTIONS] MESSAGE…` (CLICommands.messageOptions), by name.
    struct MessageOptions {
        var session: String?
        var thread: String?
        var newThread = false
        var json = false
        var speak = false
        var listen = false
        /// `--yes-tools`: MCP tools that run without asking, this run.
        var yesTools: [String] = []
        var help = false
        var version = false
        var words: [String] = []

        init(_ parsed: ParsedOptions) {
            session = parsed.value("--session")
            thread = parsed.value("--thread")
            newThread = parsed.flag("--new-thread")
            json = parsed.flag("--json")
            speak = parsed.flag("--speak")
            listen = parsed.flag("--listen")
            yesTools = parsed.values("--yes-tools").flatMap { $0.split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init) }
            help = parsed.flag("--help")
            version = parsed.flag("--version")
            words = parsed.words
        }
    }
}
