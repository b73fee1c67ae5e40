import HarkCore

/// A subcommand of the `hark` command line (`hark history`, `hark session add`), with what
/// runs it: its options parsed (OptionParser) and the exit code returned.
struct CLICommand: Sendable {
    var name: String
    var arguments: String
    var summary: String
    var options: [OptionSpec]
    var subcommands: [CLICommand]
    var completion: ArgumentCompletion
    /// What runs it, given the command line (and through it the terminal).
    var run: @Sendable (HarkCommandLine) -> (ParsedOptions) throws -> Int32

    init(_ name: String, _ arguments: String = "", _ summary: String, options: [OptionSpec] = [],
         subcommands: [CLICommand] = [], completion: ArgumentCompletion = .none,
         run: @escaping @Sendable (HarkCommandLine) -> (ParsedOptions) throws -> Int32) {
        self.name = name
        self.arguments = arguments
        self.summary = summary
        self.options = options
        self.subcommands = subcommands
        self.completion = completion
        self.run = run
    }
}

/// The command line, described once: `hark --help`, `hark help CMD`, the parser's checks,
/// what runs each subcommand, and the bash, zsh and fish completion scripts are all made from this.
enum CLICommands {
    static let sessionOption = OptionSpec(["-s", "--session"], "NAME", "the session to use (default: the config's default)",
                                          completion: .sessions)
    static let jsonOption = OptionSpec(["--json"], nil, "one JSON object per line")
    static let sanitizeOption = OptionSpec(["--sanitize"], nil,
                                           "show control sequences in what is printed as inert marks, as on a terminal "
                                           + "(a pipe otherwise gets the text as sent)")
    static let grammarOption = OptionSpec(["--grammar"], "WORD…",
                                          "recognise only these words or phrases (the words up to the next option)",
                                          takesWords: true)
    static let modelOption = OptionSpec(["--model"], "DIR", "the Vosk model folder (default: the config's vosk_model)",
                                        completion: .files)

    static let messageOptions: [OptionSpec] = [
        sessionOption,
        OptionSpec(["--thread"], "NAME|ID", "send in this thread (created when new)"),
        OptionSpec(["--new-thread"], nil, "start a new thread for this message"),
        OptionSpec(["--fork-at"], "N", "send in a fork of the thread holding its messages up to N (see /history)"),
        OptionSpec(["--code"], nil, "print only the reply's fenced code blocks, without their fences"),
        OptionSpec(["--json"], nil, "print the reply as JSON lines: text deltas, status, done with usage, error"),
        sanitizeOption,
        OptionSpec(["--speak"], nil, "also read the reply aloud (in the shell: speak this session's replies)"),
        OptionSpec(["--listen"], nil, "dictate the message from the microphone, send it, print the reply"),
        OptionSpec(["--no-stdin"], nil, "do not read stdin, even when it is not a terminal (a loop reading its own input)"),
        OptionSpec(["--truncate"], "head|tail", "piped text too long for the model: send the beginning (head) or the end (tail) that fits",
                   completion: .choices(["head", "tail"])),
        OptionSpec(["--yes-tools"], "NAME,…", "run these MCP tools without asking: SERVER, SERVER.TOOL or * (commas between)",
                   repeats: true),
        OptionSpec(["--answer"], "KEY=VALUE", "answer a question an agent asks (an MCP server's form) with this value for field KEY",
                   repeats: true),
        OptionSpec(["--answers"], "FILE.json", "answer agents' questions from a JSON object of field names and values",
                   completion: .files),
        OptionSpec(["--no-pager"], nil, "print long output (help, history, search, stats; /help in the shell) without a pager"),
        OptionSpec(["-h", "--help"], nil, "show this help"),
        OptionSpec(["--version"], nil, "print the version"),
    ]

    typealias Run = HarkCommandLine

    static let commands: [CLICommand] = [
        CLICommand("sessions", "", "list the configured sessions",
                   options: [OptionSpec(["--names"], nil, "names only, one per line"), jsonOption], run: Run.sessions),
        CLICommand("session", "add|rm|edit …", "add, remove or edit a session in the config", subcommands: [
            CLICommand("add", "NAME --kind KIND [--url URL] [--auth SPEC] [--model M] [--system TEXT|@FILE] [--set KEY=VALUE]…",
                       "add a session", options: SessionEditing.addOptions, run: Run.addSession),
            CLICommand("rm", "NAME", "remove a session from the config (its history stays)", completion: .sessions,
                       run: Run.removeSession),
            CLICommand("edit", "NAME [--url URL] [--auth SPEC] [--model M] [--system TEXT|@FILE] [--set KEY=VALUE]… [KEY=VALUE]…",
                       "change settings of a session (KEY= removes one)", options: SessionEditing.editOptions,
                       completion: .sessions, run: Run.editSession),
        ], run: { _ in { _ in throw HarkError.usage("usage: hark session add|rm|edit …; see hark help session") } }),
        CLICommand("history", "", "print recent messages", options: [
            sessionOption, OptionSpec(["-n"], "N", "how many (default 20)"), jsonOption, sanitizeOption,
        ], run: Run.history),
        CLICommand("inbox", "[ID]", "what is unread across the sessions, oldest first; ID opens one and marks it read", options: [
            jsonOption.with(summary: "one JSON object per arrival: id, session, kind, thread, time, status, first_line"),
            OptionSpec(["--all"], nil, "the newest 50 replies, read or not"),
            OptionSpec(["--count"], nil, "print the number of unread arrivals alone (for a status bar)"),
        ], run: Run.inbox),
        CLICommand("watch", "", "follow builds and tasks left running when hark exited; record and notify each end", options: [
            OptionSpec(["--once"], nil, "look once and exit (0 when nothing is left to follow, 1 while some runs)"),
            OptionSpec(["--listen"], "HOST:PORT", "also receive A2A push notifications there (a session's push_url points at it)"),
        ], run: Run.watch),
        CLICommand("stats", "", "messages, tokens in and out, and reply speeds, per session (and its threads with -s)",
                   options: [sessionOption, jsonOption], run: Run.stats),
        CLICommand("search", "TEXT", "full-text search over the history", options: [
            sessionOption, OptionSpec(["-n"], "N", "at most N hits (default 20)"),
            jsonOption.with(summary: "one JSON object per hit: ids, snippet, length in bytes"),
            OptionSpec(["--full"], nil, "with --json, each hit's whole text too"), sanitizeOption,
        ], run: Run.search),
        CLICommand("ask", "QUESTION…", "answer from the documents and notes of a local session (stdin without QUESTION)",
                   options: [sessionOption, jsonOption], run: Run.ask),
        CLICommand("backup", "FILE", "write a consistent copy of the history, while hark runs", options: [
            OptionSpec(["--force"], nil, "replace FILE if it exists"),
        ], completion: .files, run: Run.backup),
        CLICommand("index", "", "put stored replies not yet in the search index into it (after a one-shot run hark does this in the background)",
                   run: Run.index),
        CLICommand("restore", "FILE", "check a backup and make it the history (the current one is kept beside it)",
                   completion: .files, run: Run.restore),
        CLICommand("export", "", "write threads (with their forms) and documents' metadata as Markdown or JSON", options: [
            sessionOption, OptionSpec(["--thread"], "NAME|ID", "only this thread"),
            OptionSpec(["--format"], "md|json", "the format (default md)", completion: .choices(["md", "json"])),
            OptionSpec(["-o", "--output"], "FILE", "write to FILE instead of stdout", completion: .files),
        ], run: Run.export),
        CLICommand("speak", "[TEXT…]", "read text aloud (stdin without TEXT), or write it as a WAV", options: [
            sessionOption,
            OptionSpec(["--voice"], "NAME", "the espeak-ng voice, e.g. en-us (--voices lists them)"),
            OptionSpec(["--rate"], "WPM", "words per minute, 80 to 450 (default 175)"),
            OptionSpec(["--pitch"], "N", "0 to 99 (default 50)"),
            OptionSpec(["--wav"], "FILE", "write a WAV file (- for stdout) instead of playing", completion: .files),
            OptionSpec(["--voices"], nil, "list the installed voices"),
        ], run: Run.speak),
        CLICommand("transcribe", "FILE.wav", "print the words spoken in a WAV file (any rate, any channels)", options: [
            sessionOption, modelOption, grammarOption,
            jsonOption.with(summary: "one JSON object: text, and words with start, end and confidence"),
        ], completion: .files, run: Run.transcribe),
        CLICommand("listen", "", "dictate from the microphone and print the text", options: [
            sessionOption, modelOption, grammarOption,
            OptionSpec(["--pause"], "SECONDS", "the silence that ends dictation (default 1.5)"),
            jsonOption.with(summary: "one JSON object: text, and words with start, end and confidence"),
        ], run: Run.listen),
        CLICommand("talk", "", "talk hands-free: listen, send at each pause, read the reply aloud, listen again", options: [
            sessionOption,
            OptionSpec(["--turns"], "N", "stop after N messages (default: until the stop phrase, Esc or Ctrl-C)"),
            OptionSpec(["--wake"], nil, "wait for the wake phrase (wake_word, \"hey hark\") before listening"),
        ], run: Run.talk),
        CLICommand("doctor", "", "check the voice parts: espeak-ng, audio output, libvosk, models, microphone",
                   run: Run.doctor),
        CLICommand("version", "", "print the version (hark doctor checks the voice parts)", run: { line in { _ in
            line.terminal.write("hark \(HarkVersion.string)\n")
            return 0
        } }),
        CLICommand("help", "[COMMAND]", "explain a command (or a /command of the shell)", completion: .commands, run: Run.help),
        CLICommand("completions", "bash|zsh|fish", "print a shell completion script",
                   completion: .choices(["bash", "zsh", "fish"]), run: Run.completions),
    ]

    static func command(named name: String) -> CLICommand? { commands.first { $0.name == name } }

    static func usage() -> [String] {
        var lines = [
            "hark \(HarkVersion.string): a terminal messenger for agents",
            "",
            "usage: hark [-s NAME]                 open the shell",
            "       hark [OPTIONS] MESSAGE…        send one message, print the reply",
            "       COMMAND | hark [OPTIONS]       send stdin as the message (- as MESSAGE reads it too)",
            "       COMMAND | hark MESSAGE…        send MESSAGE, a blank line, then stdin (--no-stdin: not read)",
            "       hark COMMAND [ARGS]",
            "",
            "options:",
        ]
        lines += optionLines(messageOptions)
        lines.append("")
        lines.append("commands:")
        for command in commands {
            lines.append(pad("  " + command.name + (command.arguments.isEmpty ? "" : " " + command.arguments), 34) + command.summary)
        }
        lines += [
            "",
            "A MESSAGE starting with / runs that shell command (//text sends a literal /).",
            "Exit codes: 0 ok, 2 usage, 3 config, 4 network, 5 auth (401/403), 6 backend or protocol, 7 history, 130 interrupted.",
        ]
        return lines
    }

    static func help(for command: CLICommand, parent: String = "hark") -> [String] {
        var lines = ["usage: \(parent) \(command.name)" + (command.arguments.isEmpty ? "" : " " + command.arguments), "",
                     command.summary]
        if !command.options.isEmpty {
            lines += ["", "options:"] + optionLines(command.options)
        }
        if !command.subcommands.isEmpty {
            lines += ["", "subcommands:"]
            for sub in command.subcommands {
                lines.append(pad("  " + sub.name + " " + sub.arguments, 34) + sub.summary)
            }
        }
        return lines
    }

    static func optionLines(_ options: [OptionSpec]) -> [String] {
        options.map { option in
            pad("  " + option.names.joined(separator: ", ") + (option.value.map { " " + $0 } ?? ""), 34) + option.summary
        }
    }

    /// Usage lines as a document: on a terminal a description too long for the row goes on
    /// under itself, in its column.
    static func document(_ lines: [String]) -> Document {
        lines.map { line in
            var styled = StyledLine(line)
            // The description column: after the first gap of two spaces or more past the text.
            let characters = Array(line)
            let text = characters.firstIndex { $0 != " " } ?? 0
            if let gap = (text..<max(text, characters.count - 1)).first(where: { characters[$0] == " " && characters[$0 + 1] == " " }),
               let column = characters[gap...].firstIndex(where: { $0 != " " }), column >= 20 {
                styled.hangingIndent = column
            }
            return styled
        }
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + "  " : text + String(repeating: " ", count: width - text.count)
    }
}
