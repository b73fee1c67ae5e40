/// The slash-commands every session has. Kinds add their own (BackendKind.commands); a kind
/// may also declare a core name to replace it for its sessions (Nyla's server-side /threads).
public enum CoreCommands {
    public static let groups = ["general", "sessions", "threads", "history", "messages", "files", "pending edits",
                                "voice", "prompts and forms"]

    public static let all: [CommandSpec] = [
        CommandSpec("help", "[COMMAND]", "list commands, or explain one", group: "general", completions: [.commands]),
        CommandSpec("info", "", "show the session, backend, thread and model", group: "general"),
        CommandSpec("quit", "", "leave hark (Ctrl-D on an empty line does too)", group: "general"),
        CommandSpec("clear", "", "clear the screen", group: "general"),

        CommandSpec("sessions", "", "list sessions with kind, unread replies and running replies", group: "sessions"),
        CommandSpec("session", "NAME | add NAME --kind K … | edit NAME [K=V…] | rm NAME",
                    "switch session (showing what arrived), or add, edit, remove one", group: "sessions",
                    completions: [.sessions],
                    subcommands: ["add": [.none, .choices(["--kind", "--url", "--auth", "--model", "--system", "--set"])],
                                  "edit": [.sessions, .none], "rm": [.sessions]]),
        CommandSpec("next", "", "jump to the session with the oldest unread reply", group: "sessions"),

        CommandSpec("threads", "", "list this session's threads", group: "threads"),
        CommandSpec("thread", "NAME|ID | new [TITLE] | rename TITLE | rm [ID]",
                    "switch thread, start a new one, rename or delete one", group: "threads",
                    completions: [.threads], subcommands: ["new": [.none], "rename": [.none], "rm": [.threads]]),

        CommandSpec("history", "[N]", "show the last N messages of this thread (default 20)", group: "history"),
        CommandSpec("search", "TEXT", "full-text search over every session's history", group: "history"),
        CommandSpec("export", "[md|json] [FILE]", "write this thread as Markdown or JSON (to stdout without FILE)",
                    group: "history", completions: [.choices(["md", "json"]), .files]),

        CommandSpec("retry", "", "send your last message again", group: "messages"),
        CommandSpec("stop", "", "stop this session's reply that is still streaming", group: "messages"),
        CommandSpec("continue", "", "ask for more of a reply that was cut off", group: "messages"),
        CommandSpec("edit", "", "write the message in $EDITOR (starts from the unsent draft)", group: "messages"),
        CommandSpec("pipe", "COMMAND", "run a shell command with the last reply on its stdin", group: "messages"),
        CommandSpec("forward", "SESSION", "send the last reply on to another session", group: "messages",
                    completions: [.sessions]),

        CommandSpec("attach", "PATH", "send a file with the next message", group: "files", completions: [.files]),

        CommandSpec("listen", "", "dictate into the input line; a pause or a key ends it (Ctrl-G does this too)",
                    group: "voice"),
        CommandSpec("speak", "[on|off]", "read this session's replies aloud as they stream (this run)", group: "voice",
                    completions: [.choices(["on", "off"])]),
        CommandSpec("voice", "[NAME] [rate=WPM] [pitch=0-99]", "list the installed voices, or choose one, its speed and pitch",
                    group: "voice", completions: [.choices(["rate=", "pitch="])]),
        CommandSpec("mute", "", "stop speaking now (Ctrl-C and sending a message do too)", group: "voice"),

        CommandSpec("prompts", "", "list the prompt library (Markdown files in prompts/)", group: "prompts and forms"),
        CommandSpec("prompt", "NAME [KEY=VALUE…] [--send]", "put a library prompt in the input line, or send it",
                    group: "prompts and forms", completions: [.prompts, .none]),
    ]

    /// Every spec: core plus each kind's own.
    public static func table() -> [CommandSpec] {
        var specs = all
        for kind in BackendRegistry.kinds {
            for var spec in kind.commands {
                spec.kinds = spec.kinds ?? [kind.name]
                specs.append(spec)
            }
        }
        return specs
    }

    /// The spec that applies to `name` in a session of `kind`: the kind's own first.
    public static func lookup(_ name: String, kind: String, in table: [CommandSpec]) -> CommandSpec? {
        table.first { $0.name == name && $0.kinds?.contains(kind) == true } ?? table.first { $0.name == name && $0.kinds == nil }
    }
}
