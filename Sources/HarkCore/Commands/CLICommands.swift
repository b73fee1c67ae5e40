/// An option of the `hark` command line.
public struct CLIOption: Sendable, Equatable {
    /// The same option with another summary (for a subcommand where it means more).
    public func with(summary: String) -> CLIOption {
        var copy = self
        copy.summary = summary
        return copy
    }

    public var names: [String]
    /// The value's placeholder, or nil for a flag.
    public var value: String?
    public var summary: String
    public var completion: ArgumentCompletion

    public init(_ names: [String], _ value: String? = nil, _ summary: String, completion: ArgumentCompletion = .none) {
        self.names = names
        self.value = value
        self.summary = summary
        self.completion = completion
    }
}

/// A subcommand of the `hark` command line (`hark history`, `hark session add`).
public struct CLICommand: Sendable, Equatable {
    public var name: String
    public var arguments: String
    public var summary: String
    public var options: [CLIOption]
    public var subcommands: [CLICommand]
    public var completion: ArgumentCompletion

    public init(_ name: String, _ arguments: String = "", _ summary: String, options: [CLIOption] = [],
                subcommands: [CLICommand] = [], completion: ArgumentCompletion = .none) {
        self.name = name
        self.arguments = arguments
        self.summary = summary
        self.options = options
        self.subcommands = subcommands
        self.completion = completion
    }
}

/// The command line, described once: `hark --help`, `hark help CMD`, the parser's checks and
/// the bash, zsh and fish completion scripts are all made from this.
public enum CLICommands {
    public static let sessionOption = CLIOption(["-s", "--session"], "NAME", "the session to use (default: the config's default)",
                                                completion: .sessions)
    public static let jsonOption = CLIOption(["--json"], nil, "one JSON object per line")

    public static let messageOptions: [CLIOption] = [
        sessionOption,
        CLIOption(["--thread"], "NAME|ID", "send in this thread (created when new)"),
        CLIOption(["--new-thread"], nil, "start a new thread for this message"),
        CLIOption(["--json"], nil, "print the reply as JSON lines: text deltas, status, done with usage, error"),
        CLIOption(["--speak"], nil, "also read the reply aloud (in the shell: speak this session's replies)"),
        CLIOption(["--listen"], nil, "dictate the message from the microphone, send it, print the reply"),
        CLIOption(["-h", "--help"], nil, "show this help"),
        CLIOption(["--version"], nil, "print the version"),
    ]

    public static let commands: [CLICommand] = [
        CLICommand("sessions", "", "list the configured sessions",
                   options: [CLIOption(["--names"], nil, "names only, one per line"), jsonOption]),
        CLICommand("session", "add|rm|edit …", "add, remove or edit a session in the config", subcommands: [
            CLICommand("add", "NAME --kind KIND [--url URL] [--auth SPEC] [--model M] [--system TEXT|@FILE] [--set KEY=VALUE]…",
                       "add a session", options: [
                        CLIOption(["--kind"], "KIND", "webhook, openai, local…", completion: .kinds),
                        CLIOption(["--url"], "URL", "the server's URL"),
                        CLIOption(["--auth"], "SPEC", "basic:USER:SECRET, header:NAME:SECRET or bearer:SECRET"),
                        CLIOption(["--model"], "MODEL", "the model (openai)"),
                        CLIOption(["--system"], "TEXT|@FILE", "the system prompt (openai)", completion: .files),
                        CLIOption(["--set"], "KEY=VALUE", "any other setting"),
                       ]),
            CLICommand("rm", "NAME", "remove a session from the config (its history stays)", completion: .sessions),
            CLICommand("edit", "NAME KEY=VALUE…", "change settings of a session (KEY= removes one)", completion: .sessions),
        ]),
        CLICommand("history", "", "print recent messages", options: [
            sessionOption, CLIOption(["-n"], "N", "how many (default 20)"), jsonOption,
        ]),
        CLICommand("search", "TEXT", "full-text search over the history", options: [
            sessionOption, CLIOption(["-n"], "N", "at most N hits (default 20)"),
            CLIOption(["--json"], nil, "one JSON object per hit: ids, snippet, length in bytes"),
            CLIOption(["--full"], nil, "with --json, each hit's whole text too"),
        ]),
        CLICommand("export", "", "write threads as Markdown or JSON", options: [
            sessionOption, CLIOption(["--thread"], "NAME|ID", "only this thread"),
            CLIOption(["--format"], "md|json", "the format (default md)", completion: .choices(["md", "json"])),
            CLIOption(["-o", "--output"], "FILE", "write to FILE instead of stdout", completion: .files),
        ]),
        CLICommand("speak", "[TEXT…]", "read text aloud (stdin without TEXT), or write it as a WAV", options: [
            sessionOption,
            CLIOption(["--voice"], "NAME", "the espeak-ng voice, e.g. en-us (--voices lists them)"),
            CLIOption(["--rate"], "WPM", "words per minute, 80 to 450 (default 175)"),
            CLIOption(["--pitch"], "N", "0 to 99 (default 50)"),
            CLIOption(["--wav"], "FILE", "write a WAV file (- for stdout) instead of playing", completion: .files),
            CLIOption(["--voices"], nil, "list the installed voices"),
        ]),
        CLICommand("transcribe", "FILE.wav", "print the words spoken in a WAV file (any rate, any channels)", options: [
            sessionOption,
            CLIOption(["--model"], "DIR", "the Vosk model folder (default: the config's vosk_model)", completion: .files),
            CLIOption(["--grammar"], "WORD…", "recognise only these words or phrases (the words up to the next option)"),
            jsonOption.with(summary: "one JSON object: text, and words with start, end and confidence"),
        ], completion: .files),
        CLICommand("listen", "", "dictate from the microphone and print the text", options: [
            sessionOption,
            CLIOption(["--model"], "DIR", "the Vosk model folder (default: the config's vosk_model)", completion: .files),
            CLIOption(["--grammar"], "WORD…", "recognise only these words or phrases (the words up to the next option)"),
            CLIOption(["--pause"], "SECONDS", "the silence that ends dictation (default 1.5)"),
            jsonOption.with(summary: "one JSON object: text, and words with start, end and confidence"),
        ]),
        CLICommand("doctor", "", "check the voice parts: espeak-ng, audio output, libvosk, models, microphone"),
        CLICommand("version", "", "print the version (hark doctor checks the voice parts)"),
        CLICommand("help", "[COMMAND]", "explain a command (or a /command of the shell)", completion: .commands),
        CLICommand("completions", "bash|zsh|fish", "print a shell completion script",
                   completion: .choices(["bash", "zsh", "fish"])),
    ]

    public static func command(named name: String) -> CLICommand? { commands.first { $0.name == name } }

    /// Options whose value is every word up to the next option (`--grammar yes no`).
    public static let multiWordOptions = ["--grammar"]

    public static func usage() -> [String] {
        var lines = [
            "hark \(HarkVersion.string): a terminal messenger for agents",
            "",
            "usage: hark [-s NAME]                 open the shell",
            "       hark [OPTIONS] MESSAGE…        send one message, print the reply",
            "       COMMAND | hark [OPTIONS]       send stdin as the message",
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

    public static func help(for command: CLICommand, parent: String = "hark") -> [String] {
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

    static func optionLines(_ options: [CLIOption]) -> [String] {
        options.map { option in
            pad("  " + option.names.joined(separator: ", ") + (option.value.map { " " + $0 } ?? ""), 34) + option.summary
        }
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + "  " : text + String(repeating: " ", count: width - text.count)
    }
}
