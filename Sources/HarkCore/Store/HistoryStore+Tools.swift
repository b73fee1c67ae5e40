import FoundationEssentials
import Glibc

/// Tool calls in the history: each call with its result is a message of role `tool`, its
/// text readable (`/history`, search, exports) and its `tool_call` column the ToolResult, so
/// a later request replays the call as the model made it.
extension HistoryStore {
    /// Records one tool call and its result in the thread.
    @discardableResult
    public func addToolResult(_ result: ToolResult, threadID: Int64, session: String) throws -> Int64 {
        try wrap {
            try database.transaction {
                try database.run("""
                    INSERT INTO messages(thread_id, session, role, text, status, created_at, updated_at, tool_call)
                    VALUES (?, ?, 'tool', ?, ?, ?, ?, ?)
                    """, .integer(threadID), .text(session), .text(result.summary), .text(MessageStatus.complete.rawValue),
                    timestamp, timestamp, .text(result.json.encoded()))
                let id = database.lastInsertRowID
                try database.run("UPDATE threads SET updated_at = ? WHERE id = ?", timestamp, .integer(threadID))
                return id
            }
        }
    }

    /// The tool calls of a thread, by message id.
    func toolResults(threadID: Int64) throws -> [Int64: ToolResult] {
        try wrap {
            var results: [Int64: ToolResult] = [:]
            for row in try database.query("SELECT id, tool_call FROM messages WHERE thread_id = ? AND role = 'tool'",
                                          .integer(threadID)) {
                guard let id = row["id"].int64, let text = row["tool_call"].string, let json = try? JSON.parse(text),
                      let result = ToolResult(json: json) else { continue }
                results[id] = result
            }
            return results
        }
    }

    /// Messages of a thread as turns for a backend, with the id of each turn's last message
    /// (`/compact` says which it summarised); a thread's tool calls are read only when some
    /// are among them.
    func turns(of messages: [Message], threadID: Int64) throws -> (turns: [Turn], ids: [Int64]) {
        let tools = messages.contains { $0.role == .tool } ? try toolResults(threadID: threadID) : [:]
        return Self.turns(of: messages, toolResults: tools)
    }

    /// The messages as context for a backend: stopped and partial replies count (the user saw
    /// them), failed and empty ones do not. The tool calls of one round join the assistant
    /// turn that made them: the text the model wrote just before them, if any, else a turn
    /// of their own.
    static func turns(of messages: [Message], toolResults: [Int64: ToolResult]) -> (turns: [Turn], ids: [Int64]) {
        var turns: [Turn] = []
        var ids: [Int64] = []
        /// Whether the last turn may take this round's calls: the reply text written right
        /// before them, or a turn holding earlier calls of the same round.
        var openRound: Int?
        var lastWasReplyText = false
        for message in messages {
            if message.role == .tool {
                guard let result = toolResults[message.id] else { continue }
                if openRound == result.round || (lastWasReplyText && openRound == nil), !turns.isEmpty {
                    turns[turns.count - 1].tools.append(result)
                    ids[ids.count - 1] = message.id
                } else {
                    turns.append(Turn(role: .assistant, text: "", tools: [result]))
                    ids.append(message.id)
                }
                openRound = result.round
                lastWasReplyText = false
                continue
            }
            openRound = nil
            lastWasReplyText = false
            guard message.status != .failed, !message.text.isEmpty else { continue }
            turns.append(Turn(role: message.role, text: message.text))
            ids.append(message.id)
            lastWasReplyText = message.role == .assistant
        }
        return (turns, ids)
    }
}
