import HarkCore

/// What the shell says when it starts: the version and session, how to get help and leave,
/// a first step for a new user of the offline session, and the config's warnings.
enum Banner {
    static func document(_ workspace: Workspace) -> Document {
        let session = workspace.currentConfig
        var lines: Document = [StyledLine([Span("hark \(HarkVersion.string)", .bold),
                                           Span(" · session \(session.name) (\(session.kind)) · /help for commands, Ctrl-D to quit", .dim)])]
        if session.kind == "local" && workspace.config.sessions.count == 1 {
            lines.append(StyledLine("This session is offline: messages are notes to self, kept and searchable. "
                + "/forms lists forms to fill in, /prompts ready-made prompts.", .dim))
            lines.append(StyledLine("Your files: /docs add PATH… makes them searchable, /ask QUESTION finds what answers it.", .dim))
            lines.append(StyledLine("Add an agent with /session add NAME --kind webhook|openai --url URL; /help lists every command.", .dim))
        }
        for warning in workspace.warnings { lines.append(StyledLine("warning: " + warning, .warning)) }
        return lines
    }
}
