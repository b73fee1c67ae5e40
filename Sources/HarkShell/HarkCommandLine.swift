import FoundationEssentials
import Glibc
import HarkCore

/// The `hark` command: parses the arguments (as CLICommands describes them) and runs the
/// shell, a one-shot message or a subcommand on the real terminal. Returns the process exit code.
public struct HarkCommandLine {
    let terminal: Terminal

    public static func run(_ arguments: [String]) -> Int32 {
        Signals.quitEndsLikeTerm()
        let terminal = SystemTerminal(sanitizing: arguments.contains("--sanitize"))
        var arguments = arguments
        // `hark --no-pager …`, as `git --no-pager …`: long output is printed, never paged.
        if arguments.first == "--no-pager" {
            arguments.removeFirst()
            terminal.pagingOff = true
        }
        terminal.configuredPager = { (try? ConfigFile.load(paths: Paths.fromEnvironment()))?.global["pager"] }
        return HarkCommandLine(terminal: terminal).run(arguments)
    }

    func run(_ arguments: [String]) -> Int32 {
        do {
            return Signals.exitStatus(try dispatch(arguments))
        } catch {
            if Signals.terminating == 0 || error.exitCode != .interrupted { terminal.showError(error) }
            return Signals.exitStatus(error.exitCode.rawValue)
        }
    }

    func dispatch(_ arguments: [String]) throws -> Int32 {
        if let first = arguments.first, let command = CLICommands.command(named: first) {
            return try subcommand(command, Array(arguments.dropFirst()))
        }
        let parsed = try OptionParser.parse(arguments, options: CLICommands.messageOptions, help: "hark --help")
        let options = try MessageOptions(parsed)
        if parsed.flag("--no-pager") { (terminal as? SystemTerminal)?.pagingOff = true }
        if options.help {
            terminal.showLong(CLICommands.document(CLICommands.usage()))
            return 0
        }
        if options.version {
            terminal.write("hark \(HarkVersion.string)\n")
            return 0
        }
        let workspace = try openWorkspace()
        if let session = options.session { try workspace.switchSession(to: session) }
        workspace.tools.allow(options.yesTools)
        workspace.tools.questions.use(options.answers)
        try selectThread(options, workspace: workspace)
        var message = options.words.joined(separator: " ")
        // `-` as the message: read it from stdin, even from a terminal (to Ctrl-D).
        let messageOnStdin = options.words == ["-"]
        if messageOnStdin {
            if options.noStdin { throw HarkError.usage("- reads the message from stdin; leave out --no-stdin") }
            message = ""
        }
        if options.listen {
            guard message.isEmpty && !messageOnStdin else { throw HarkError.usage("give a message or --listen, not both") }
            guard let dictated = try dictateMessage(workspace) else { return HarkError.ExitCode.interrupted.rawValue }
            message = dictated
        }
        if options.speak {
            // Checked before anything is sent: a missing espeak-ng or sound server is one clear error.
            _ = try workspace.voice.replySpeaker(for: workspace.currentConfig, config: workspace.config,
                                                 paths: workspace.paths, forced: true)
            if !message.isEmpty || !terminal.hasKeyboard || messageOnStdin {
                try workspace.voice.prepareOutput(for: try workspace.voiceSettings().parameters)
            }
        }
        let piped = readPiped(options, message: message, messageOnStdin: messageOnStdin)
        if message.isEmpty && piped == nil {
            if messageOnStdin { throw HarkError.usage("- reads the message from stdin, and nothing came") }
            if !terminal.hasKeyboard {
                throw HarkError.usage("no message: give one as an argument or on stdin (or run hark in a terminal for the shell)")
            }
            if options.json { throw HarkError.usage("--json needs a message") }
            if options.code { throw HarkError.usage("--code needs a message") }
            if options.speak {
                var overrides = workspace.voice.overrides(for: workspace.currentSession)
                overrides.speak = true
                workspace.voice.setOverrides(overrides, for: workspace.currentSession)
            }
            let code = try Shell(workspace: workspace, terminal: terminal).run()
            finishIndexing(workspace)
            return code
        }
        workspace.deferIndexing()
        let code = OneShot(workspace: workspace, terminal: terminal, json: options.json, speak: options.speak,
                           codeOnly: options.code).run(message, piped: piped)
        indexInBackground(workspace)
        return code
    }

    /// What came on stdin to go with the message, as llm, mods and aichat read it: all of it,
    /// when stdin is not a terminal (or the message is `-`). Not read with `--no-stdin` (a
    /// loop reading its own input), for `--listen`, or for a `/command`, which takes none.
    func readPiped(_ options: MessageOptions, message: String, messageOnStdin: Bool) -> PipedInput? {
        let isCommand = message.hasPrefix("/") && !message.hasPrefix("//")
        guard messageOnStdin || (!terminal.hasKeyboard && !options.noStdin && !options.listen && !isCommand) else { return nil }
        let bytes = terminal.readToEnd()
        return bytes.isEmpty ? nil : PipedInput(bytes: bytes, truncation: options.truncate)
    }

    /// A one-shot run ends as soon as its reply is out and stored: what its reply left for the
    /// full-text index (a long reply's segments) is indexed by `hark index`, started here in
    /// the background. If that cannot start, this run indexes it before it exits, as a shell does.
    func indexInBackground(_ workspace: Workspace) {
        guard workspace.hasDeferredIndexing else { return }
        if (try? Subprocess.detach([Paths.executable, "index"])) == nil { finishIndexing(workspace) }
    }

    /// Waits for the replies of this run to be in the full-text index, so that the process
    /// leaves none unindexed (a failure is left to the next start, which indexes what is left).
    func finishIndexing(_ workspace: Workspace) {
        try? workspace.finishIndexing()
    }

    /// The workspace, after saying what opening the history changed (a data folder others
    /// could open, made private).
    func openWorkspace() throws -> Workspace {
        let workspace = try Workspace(paths: Paths.fromEnvironment())
        tell(workspace.historyNotices)
        return workspace
    }

    func tell(_ notices: [String], prefix: String = "hark: note: ") {
        for notice in notices { terminal.writeError(prefix + notice + "\n") }
    }

    /// `--listen`: the message, dictated; nil when cancelled (Ctrl-C or the cancel word).
    func dictateMessage(_ workspace: Workspace) throws -> String? {
        let settings = try workspace.voiceSettings()
        _ = try workspace.voice.checkDictation(settings, paths: workspace.paths)
        if terminal.errorCapabilities.isTTY { terminal.writeError("loading the Vosk model…\r") }
        let model = try workspace.voice.model(for: settings, paths: workspace.paths)
        guard let recognition = try CLIDictation.run(model: model, settings: settings, devices: workspace.voice.devices,
                                                     terminal: terminal) else {
            return nil
        }
        switch settings.interpret(recognition.text) {
        case .cancel: return nil
        case .send, .mute: throw HarkError.usage("heard only a command word (\(recognition.text)); nothing to send")
        case .text(let text):
            guard !text.isEmpty else { throw HarkError.io("heard nothing, so nothing was sent; speak after \"listening…\"") }
            if terminal.errorCapabilities.isTTY { terminal.writeError("› \(text)\n") }
            return text
        }
    }

    func selectThread(_ options: MessageOptions, workspace: Workspace) throws {
        let session = workspace.currentSession
        if options.json && options.code { throw HarkError.usage("give --json or --code, not both") }
        if options.newThread {
            if options.forkAt != nil { throw HarkError.usage("--fork-at forks an existing thread; leave out --new-thread") }
            try workspace.leaveThread(session: session)
        }
        if let reference = options.thread {
            // --fork-at forks an existing thread; otherwise a name not found starts one.
            try workspace.selectThread(reference, session: session, mustExist: options.forkAt != nil)
        }
        if let text = options.forkAt {
            guard let count = Int(text) else { throw HarkError.usage("--fork-at takes a message's place in the thread, e.g. 4") }
            guard let thread = try workspace.currentThread() else {
                throw HarkError.usage("--fork-at needs a thread: name it with --thread NAME|ID")
            }
            let (_, lines) = try workspace.fork(thread, messages: count)
            tell(lines.map(\.plainText), prefix: "hark: ")
        }
    }

    /// The options of `hark [OPTIONS] MESSAGE…` (CLICommands.messageOptions), by name.
    struct MessageOptions {
        var session: String?
        var thread: String?
        var newThread = false
        var forkAt: String?
        var code = false
        var json = false
        var speak = false
        var listen = false
        /// `--no-stdin`: stdin is not read, even when it is not a terminal.
        var noStdin = false
        /// `--truncate head|tail`: piped text that does not fit the model is cut, keeping this end.
        var truncate: PipedText.Truncation?
        /// `--yes-tools`: MCP tools that run without asking, this run.
        var yesTools: [String] = []
        /// `--answer KEY=VALUE` and `--answers FILE.json`: answers to agents' questions.
        var answers = ScriptedAnswers()
        var help = false
        var version = false
        var words: [String] = []

        init(_ parsed: ParsedOptions) throws {
            session = parsed.value("--session")
            thread = parsed.value("--thread")
            newThread = parsed.flag("--new-thread")
            forkAt = parsed.value("--fork-at")
            code = parsed.flag("--code")
            json = parsed.flag("--json")
            speak = parsed.flag("--speak")
            listen = parsed.flag("--listen")
            noStdin = parsed.flag("--no-stdin")
            if let end = parsed.value("--truncate") {
                guard let truncation = PipedText.Truncation(rawValue: end) else {
                    throw HarkError.usage("--truncate takes head (keep the beginning) or tail (keep the end), not \(end)")
                }
                truncate = truncation
            }
            yesTools = parsed.values("--yes-tools").flatMap { $0.split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init) }
            if let file = parsed.value("--answers") { try answers.add(file: file) }
            try answers.add(pairs: parsed.values("--answer"))
            help = parsed.flag("--help")
            version = parsed.flag("--version")
            words = parsed.words
        }
    }
}
