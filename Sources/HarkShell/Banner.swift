import HarkCore

/// What the shell says when it starts: the version and session, how to get help and leave,
/// a first step for a new user of the offline session, and the config's warnings.
enum Banner {
    static func document(_ workspace: Workspace) -> Document {
        let session = workspace.currentConfig
        var lines: Document = [StyledLine([Span("hark \(HarkVersion.string)", .bold),
                                           Span(" · session \(session.name) (\(session.kind)) · /help for commands, Ctrl-D to quit", .dim)])]
        lines += workspace.greeting()
        for warning in workspace.warnings { lines.append(StyledLine("warning: " + warning, .warning)) }
        return lines
    }
}
