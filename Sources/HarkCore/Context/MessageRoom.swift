/// How much one new message may take of a model's context, known before it is sent: the
/// prompt's room (the window less the room kept for the reply) less the system text that always
/// goes. A model session gives one only when it knows the window (its `context`, or what the
/// server said): a guess is no reason to refuse a message.
public struct MessageRoom: Sendable, Equatable {
    public var budget: ContextBudget
    /// The session's system prompt.
    public var system: String?

    public init(budget: ContextBudget, system: String?) {
        self.budget = budget
        self.system = system
    }

    /// The raw tokens (TokenEstimator.raw) the message with its files may take, in a thread
    /// with this summary and this calibration.
    public func allowance(summary: ThreadSummary?, estimator: TokenEstimator) -> Int {
        let system = ContextBudget.systemText(system, summary: summary).map { TokenEstimator.raw(message: $0) } ?? 0
        return max(0, Int((Double(budget.promptRoom) / estimator.scale).rounded(.down)) - system)
    }

    /// The one line that refuses what `subject` names with its verb ("the message and its
    /// 106.3 KB of piped text are"), of `tokens` calibrated tokens, in `session`, with what to
    /// do instead (`advice`).
    public func refusal(_ subject: String, tokens: Int, session: String, advice: String) -> HarkError {
        .usage("\(subject) about \(Self.rounded(tokens)) tokens; \(session) takes "
            + "\(ByteCount.grouped(budget.window)) (\(ByteCount.grouped(budget.replyRoom)) of them kept for the reply): " + advice)
    }

    /// A guess said as one: to the hundred above a thousand.
    static func rounded(_ tokens: Int) -> String {
        ByteCount.grouped(tokens < 1000 ? tokens : (tokens + 50) / 100 * 100)
    }
}
