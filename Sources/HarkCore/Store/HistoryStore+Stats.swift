import FoundationEssentials
import Glibc

/// The numbers of a session or a thread, from what was recorded at reply time: for `/info`
/// and `hark stats`.
public struct UsageStats: Sendable, Equatable {
    /// Every message kept, those `/edit last` replaced too (they were sent and paid for).
    public var messages = 0
    public var replies = 0
    /// The servers' counts (`usage`), summed over the replies that had one.
    public var promptTokens = 0
    public var completionTokens = 0
    /// Medians over the last `recent` replies that were timed.
    public var firstByteSeconds: Double?
    public var tokensPerSecond: Double?
    /// The last reply's prompt, as the server counted it.
    public var lastPromptTokens: Int?

    public static let recent = 10

    public init() {}
}

extension HistoryStore {
    public func stats(session: String) throws -> UsageStats {
        try stats(filter: "session = ?", .text(session))
    }

    public func stats(threadID: Int64) throws -> UsageStats {
        try stats(filter: "thread_id = ?", .integer(threadID))
    }

    /// Sessions that have messages, by name.
    public func sessionsWithMessages() throws -> [String] {
        try wrap { try database.query("SELECT DISTINCT session FROM messages ORDER BY session").compactMap { $0["session"].string } }
    }

    private func stats(filter: String, _ value: SQLValue) throws -> UsageStats {
        try wrap {
            var stats = UsageStats()
            if let row = try database.query("""
                SELECT count(*) AS messages, coalesce(sum(role = 'assistant'), 0) AS replies,
                       coalesce(sum(prompt_tokens), 0) AS prompt_tokens, coalesce(sum(completion_tokens), 0) AS completion_tokens
                FROM messages WHERE \(filter)
                """, value).first {
                stats.messages = row["messages"].int ?? 0
                stats.replies = row["replies"].int ?? 0
                stats.promptTokens = row["prompt_tokens"].int ?? 0
                stats.completionTokens = row["completion_tokens"].int ?? 0
            }
            stats.lastPromptTokens = try database.scalar("""
                SELECT prompt_tokens FROM messages WHERE \(filter) AND prompt_tokens IS NOT NULL ORDER BY id DESC LIMIT 1
                """, value).int
            let timed = try database.query("""
                SELECT first_byte_ms, stream_ms, completion_tokens FROM messages
                WHERE \(filter) AND first_byte_ms IS NOT NULL ORDER BY id DESC LIMIT \(UsageStats.recent)
                """, value)
            stats.firstByteSeconds = Self.median(timed.compactMap { $0["first_byte_ms"].int.map { Double($0) / 1000 } })
            stats.tokensPerSecond = Self.median(timed.compactMap { row in
                ReplyTiming(firstByteMilliseconds: row["first_byte_ms"].int ?? 0, streamMilliseconds: row["stream_ms"].int ?? 0)
                    .tokensPerSecond(row["completion_tokens"].int)
            })
            return stats
        }
    }

    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}

extension UsageStats {
    /// "12 messages · 3456 tokens in · 789 out" (the tokens where the server counted any).
    public var summary: String {
        "\(messages) message\(messages == 1 ? "" : "s")"
            + (promptTokens + completionTokens > 0 ? " · \(promptTokens) tokens in · \(completionTokens) out" : "")
    }

    /// "first byte 0.42 s · 35.1 tokens/s", or nil before a timed reply.
    public var speed: String? {
        var parts: [String] = []
        if let firstByteSeconds { parts.append("first byte " + String(cFormat: "%.2f", firstByteSeconds) + " s") }
        if let tokensPerSecond { parts.append(String(cFormat: "%.1f", tokensPerSecond) + " tokens/s") }
        return parts.isEmpty ? nil : parts.joined(separator: " · ")
    }

    public var json: JSON {
        ["messages": .number(Double(messages)), "replies": .number(Double(replies)),
         "prompt_tokens": .number(Double(promptTokens)), "completion_tokens": .number(Double(completionTokens)),
         "last_prompt_tokens": JSON(lastPromptTokens), "first_byte_seconds": JSON(firstByteSeconds),
         "tokens_per_second": JSON(tokensPerSecond)]
    }
}
