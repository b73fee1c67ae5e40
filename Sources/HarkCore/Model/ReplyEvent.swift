/// What a backend produces while it answers. The shell renders these, the store records them,
/// the speaker reads the text aloud; a backend never prints.
public enum ReplyEvent: Sendable, Equatable {
    /// A piece of the reply text.
    case text(String)
    /// Model reasoning: shown dim, never stored as the reply, never spoken.
    case reasoning(String)
    /// Progress ("tool: search", "waiting in queue"): a dim line, not part of the reply.
    case status(String)
    /// A compact notice that belongs with the reply ("file created: report.pdf").
    case notice(String)
    /// Token counts, whenever the backend reports them.
    case usage(Usage)
    /// The backend's id for this reply.
    case backendMessageID(String)
    /// The backend's id for the thread, learned during the reply (a new Nyla workflow).
    case backendThreadID(String)
    /// A named piece of the answer begins (an A2A artifact); its text follows as `.text`.
    /// Shown only in `--json`, so scripts can tell the pieces apart.
    case artifact(id: String, name: String?)
    /// The model that answered.
    case model(String)
    /// The reply ended normally; the reason is the backend's (`stop`, `length`, `SUCCESS`…).
    case finished(reason: String?)
    /// The reply goes on whether or not anyone watches (a Jenkins build): Ctrl-C leaves it
    /// running in the background instead of stopping it. Sent before the reply's text.
    case detachable
    /// The model asks for a tool. From a decoder: the call as the model wrote it, handled by
    /// the ToolLoop; from the loop: about to be asked about and run (shown dim, kept).
    case toolCall(ToolCall)
    /// A tool call's result, error or refusal, as the model is told (shown dim, kept).
    case toolResult(ToolResult)
    /// hark's guess of the prompt's tokens (before calibration), sent before the request: kept
    /// with the reply, so the server's `prompt_tokens` for it calibrates the next guess.
    case promptEstimate(Int)
    /// The work behind the reply goes on at its server and can be found again after hark
    /// exits (a build, an A2A task): recorded as followed work if hark exits before it ends.
    case resumable(ResumePoint)
}
