/// The slash-commands every session has, each with the workspace method that runs it. Kinds add
/// their own (BackendKind.commands); a kind may also declare a core name to replace it for its
/// sessions (Nyla's server-side prompt library).
public enum CoreCommands {
    public static let groups = ["general", "sessions", "threads", "history", "messages", "files", "pending edits",
                                "voice", "prompts and forms"]

    /// A handler that runs a workspace method: `run: core(Workspace.showHistory)`.
    static func core(_ method: @escaping @Sendable (Workspace) -> (CommandContext) async throws -> CommandOutcome)
        -> CommandHandler {
        { context in try await method(context.workspace)(context) }
    }

    static let voiceKeys = ArgumentCompletion.choices(["rate=", "pitch="])

    public static let all: [CommandSpec] = [
        CommandSpec("help", [.optional("COMMAND", .commands)], "list commands, or explain one", group: "general",
                    run: core(Workspace.help)),
        CommandSpec("info", "show the session, backend, thread and model", group: "general", run: core(Workspace.info)),
        CommandSpec("quit", "leave hark (Ctrl-D on an empty line does too)", group: "general", run: { _ in .quit }),
        CommandSpec("clear", "clear the screen", group: "general", run: { _ in .clearScreen }),

        CommandSpec("sessions", "list sessions with kind, unread replies and running replies", group: "sessions",
                    run: core(Workspace.listSessions)),
        CommandSpec("session", [.one("NAME", .sessions)], "switch session (showing what arrived), or add, edit, remove one",
                    group: "sessions", subcommands: [
                        CommandSpec("add", [.one("NAME"), .any("KEY=VALUE")], "add a session", options: SessionEditing.addOptions,
                                    run: core(Workspace.addSession)),
                        CommandSpec("edit", [.one("NAME", .sessions), .any("KEY=VALUE")],
                                    "change settings (KEY= removes one); without any, open the config in $EDITOR",
                                    options: SessionEditing.editOptions, run: core(Workspace.editSession)),
                        CommandSpec("rm", [.one("NAME", .sessions)], "remove a session from the config (its history stays)",
                                    run: core(Workspace.removeSession)),
                    ], bare: core(Workspace.listSessions), run: core(Workspace.switchSession)),
        CommandSpec("next", "jump to the session with the oldest unread reply", group: "sessions", run: core(Workspace.nextUnread)),
        CommandSpec("inbox", [.optional("ID")], "what is unread across the sessions, oldest first; /inbox ID opens one",
                    group: "sessions", options: [OptionSpec(["--all"], nil, "the newest 50 replies, read or not")],
                    run: core(Workspace.showInbox)),

        CommandSpec("threads", "list this session's threads (the server's, where it keeps them)", group: "threads",
                    run: core(Workspace.listThreads)),
        CommandSpec("thread", [.text("NAME|ID", .threads)], "switch thread, start a new one, rename or delete one",
                    group: "threads", subcommands: [
                        CommandSpec("new", [.optionalText("TITLE")], "start a thread", run: core(Workspace.newThread)),
                        CommandSpec("rename", [.text("TITLE")], "rename this thread", run: core(Workspace.renameThread)),
                        CommandSpec("rm", [.optionalText("ID", .threads)], "delete a thread (this one by default)",
                                    run: core(Workspace.removeThread)),
                        CommandSpec("fork", [.optional("N")],
                                    "a new thread with this thread's messages up to message N (all by default); this one stays",
                                    hint: "/history numbers the messages", run: core(Workspace.forkThread)),
                    ], bare: core(Workspace.listThreads), run: core(Workspace.openThread)),

        CommandSpec("history", [.optional("N")], "show the last N messages of this thread (default 20), numbered",
                    group: "history",
                    options: [OptionSpec(["--all"], nil, "also the messages /edit last replaced")], run: core(Workspace.showHistory)),
        CommandSpec("search", [.text("TEXT")], "full-text search over every session's history", group: "history",
                    run: core(Workspace.searchCommand)),
        CommandSpec("export", [.optionalChoice(["md", "json"]), .optional("FILE", .files)],
                    "write this thread as Markdown or JSON (to stdout without FILE)", group: "history",
                    run: core(Workspace.exportCommand)),

        CommandSpec("retry", "send your last message again", group: "messages", run: core(Workspace.retry)),
        CommandSpec("stop", "stop this session's reply that is still streaming", group: "messages",
                    run: core(Workspace.stopReplies)),
        CommandSpec("continue", "ask for more of a reply that was cut off", group: "messages", run: core(Workspace.continueReply)),
        CommandSpec("edit", "write the message in $EDITOR (starts from the unsent draft)", group: "messages", subcommands: [
                        CommandSpec("last", "change your last message and ask again; the old message and reply are kept",
                                    run: core(Workspace.editLast)),
                    ], run: { _ in .editDraft("") }),
        CommandSpec("pipe", [.text("COMMAND")], "run a shell command with the last reply on its stdin", group: "messages",
                    hint: "e.g. /pipe wc -w", run: core(Workspace.pipe)),
        CommandSpec("forward", [.one("SESSION", .sessions)], "send the last reply on to another session", group: "messages",
                    run: core(Workspace.forward)),
        CommandSpec("save", [.one("FILE", .files)], "write the last reply to FILE, as it arrived", group: "messages",
                    run: core(Workspace.saveReply)),
        CommandSpec("copy", "put the last reply on the clipboard", group: "messages", subcommands: [
                        CommandSpec("code", [.optional("N")], "the Nth code block of the last reply (the last by default), "
                                    + "without its fences", run: core(Workspace.copyCode)),
                    ], run: core(Workspace.copyReply)),

        CommandSpec("attach", [.optionalText("PATH", .files)], "send a file with the next message (alone: what is attached)",
                    group: "files", run: core(Workspace.attach)),

        CommandSpec("listen", "dictate into the input line; a pause or a key ends it (Ctrl-G does this too)",
                    group: "voice", run: core(Workspace.listen)),
        CommandSpec("talk", [], "talk hands-free: each pause sends what you said, the reply is read aloud, then it listens again",
                    group: "voice",
                    options: [OptionSpec(["--wake"], nil, "wait for the wake phrase (wake_word, \"hey hark\") before listening")],
                    hint: "say \"stop talking\" (talk_stop_word), or press Esc or Ctrl-C, to end; "
                        + "F5 or Ctrl-G pauses and resumes listening",
                    run: core(Workspace.talk)),
        CommandSpec("speak", [.optionalChoice(["on", "off"])],
                    "read this session's replies aloud as they stream (this run)", group: "voice", run: core(Workspace.speak)),
        CommandSpec("voice", [.optional("NAME", Self.voiceKeys), .optional("rate=WPM", Self.voiceKeys),
                                      .optional("pitch=0-99", Self.voiceKeys)],
                    "list the installed voices, or choose one, its speed and pitch", group: "voice",
                    run: core(Workspace.voiceCommand)),
        CommandSpec("mute", "stop speaking now (Ctrl-C and sending a message do too)", group: "voice", run: core(Workspace.mute)),

        CommandSpec("tools", [.optional("SERVER")], "list the MCP servers and their tools: running or not, asking or allowed",
                    group: "sessions", hint: "servers are [mcp NAME] sections of the config (docs/mcp.md)",
                    run: core(Workspace.listTools)),
        CommandSpec("prompts", "list the prompt library (Markdown files in prompts/)", group: "prompts and forms",
                    run: core(Workspace.listPrompts)),
        CommandSpec("prompt", [.one("NAME", .prompts), .any("KEY=VALUE")], "put a library prompt in the input line, or send it",
                    group: "prompts and forms", options: [OptionSpec(["--send"], nil, "send it at once")],
                    hint: "/prompts lists the names", run: core(Workspace.promptCommand)),
    ]
}
