/// What goes to the model for one message, whatever the wire format (chat completions,
/// Anthropic messages, OpenAI responses): the system text (the session's prompt and the
/// thread's summary) and the earlier turns that fit.
public struct ContextPlan: Sendable, Equatable {
    public var system: String?
    /// The newest earlier turns that fit, oldest first.
    public var turns: [Turn]
    /// Earlier turns not sent (those a summary stands for are not counted).
    public var leftOut: Int
    /// The whole prompt, guessed before calibration: recorded with the reply, so the server's
    /// count of it calibrates the next guess.
    public var rawEstimate: Int
    /// The same, calibrated.
    public var estimate: Int
}

/// Which turns of a thread are sent: the system text and the new message always, then the
/// newest earlier turns while the estimate stays within the context window less the room kept
/// for the reply. The one place that decides it, shared by every request builder.
public struct ContextBudget: Sendable, Equatable {
    /// The tokens the model holds (its context window).
    public var window: Int
    /// Kept free for the reply: `max_tokens` when set.
    public var replyRoom: Int
    /// At most this many earlier turns (`context_messages`), whatever they cost.
    public var maxTurns: Int?
    public var estimator: TokenEstimator

    /// Assumed when neither the config nor the server tells: what llama.cpp and Ollama
    /// default to is smaller (4096), hosted models larger; a server that holds less answers
    /// with a context error, which says to set `context`.
    public static let defaultWindow = 8192

    public init(window: Int, maxTokens: Int?, maxTurns: Int? = nil, estimator: TokenEstimator = TokenEstimator()) {
        self.window = window
        replyRoom = Self.replyRoom(window: window, maxTokens: maxTokens)
        self.maxTurns = maxTurns
        self.estimator = estimator
    }

    /// `max_tokens`, or a quarter of the window up to 1024 tokens: most replies are shorter,
    /// and a longer one ends with finish_reason `length` rather than failing.
    public static func replyRoom(window: Int, maxTokens: Int?) -> Int {
        if let maxTokens, maxTokens > 0 { return maxTokens }
        return min(1024, window / 4)
    }

    /// The tokens the prompt may take.
    public var promptRoom: Int { max(0, window - replyRoom) }

    /// `history` is the thread's earlier turns after the summary, oldest first;
    /// `notLoaded` counts older ones the caller did not read. `messageTokens` is the raw guess
    /// for the new message with whatever goes with it (inlined files, images).
    public func plan(system prompt: String?, summary: ThreadSummary?, history: [Turn], notLoaded: Int = 0,
                     messageTokens: Int) -> ContextPlan {
        let system = Self.systemText(prompt, summary: summary)
        var raw = messageTokens + (system.map { TokenEstimator.raw(message: $0) } ?? 0)
        var kept: [Turn] = []
        var costs: [Int] = []
        for turn in history.reversed() {
            if let maxTurns, kept.count >= maxTurns { break }
            let cost = TokenEstimator.raw(message: turn.text)
            if estimator.calibrated(raw + cost) > promptRoom { break }
            raw += cost
            kept.append(turn)
            costs.append(cost)
        }
        // A cut conversation starts with one of the user's turns: chat templates that want
        // user and assistant to alternate from a user turn reject anything else.
        if kept.count < history.count {
            while kept.last?.role == .assistant {
                kept.removeLast()
                raw -= costs.removeLast()
            }
        }
        return ContextPlan(system: system, turns: kept.reversed(), leftOut: notLoaded + history.count - kept.count,
                           rawEstimate: raw, estimate: estimator.calibrated(raw))
    }

    /// The session's system prompt with the thread's summary after it. One system message
    /// for both: some chat templates refuse a second one, or one that is not first.
    public static func systemText(_ prompt: String?, summary: ThreadSummary?) -> String? {
        guard let summary else { return prompt }
        let note = "Summary of the earlier conversation (\(summary.turns) turns), in their place:\n" + summary.text
        guard let prompt, !prompt.isEmpty else { return note }
        return prompt + "\n\n" + note
    }

    /// The dim line said once when turns are left out.
    public static func leftOutNote(_ count: Int) -> String {
        "\(count) earlier turn\(count == 1 ? "" : "s") not sent; /compact summarises them"
    }
}
