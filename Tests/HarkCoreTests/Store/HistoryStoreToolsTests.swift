import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// Tool calls in the history: kept as messages of role `tool`, read back as the assistant turn
/// of their round (with what the model wrote just before them), so the next request replays
/// them as each API expects.
@Suite struct HistoryStoreToolsTests {
    static func result(_ id: String, round: Int, outcome: ToolResult.Outcome = .ok) -> ToolResult {
        ToolResult(call: ToolCall(id: id, name: "time__get_current_time", arguments: #"{"timezone":"UTC"}"#,
                                  server: "time", tool: "get_current_time"),
                   outcome: outcome, text: outcome == .ok ? "12:00" : "not allowed", round: round)
    }

    @Test func roundsJoinTheirAssistantTurnAndKeepTheirMessageIDs() throws {
        let directory = TemporaryDirectory()
        let store = try HistoryStore(path: directory.file("history.db"))
        let thread = try store.createThread(session: "llama", title: "t")
        try store.addMessage(threadID: thread.id, session: "llama", role: .user, text: "time?")
        let before = try store.beginReply(threadID: thread.id, session: "llama")
        try before.append("Let me look.")
        try before.finish(status: .complete)
        try store.addToolResult(Self.result("a", round: 1), threadID: thread.id, session: "llama")
        try store.addToolResult(Self.result("b", round: 1, outcome: .refused), threadID: thread.id, session: "llama")
        let second = try store.addToolResult(Self.result("c", round: 2), threadID: thread.id, session: "llama")
        let answer = try store.beginReply(threadID: thread.id, session: "llama")
        try answer.append("It is noon.")
        try answer.finish(status: .complete)

        let messages = try store.messages(threadID: thread.id)
        #expect(messages.map(\.role) == [.user, .assistant, .tool, .tool, .tool, .assistant])
        #expect(messages[3].text == "time.get_current_time {\"timezone\":\"UTC\"}\n→ refused")

        let (turns, ids) = try store.turns(of: messages, threadID: thread.id)
        #expect(turns.map(\.role) == [.user, .assistant, .assistant, .assistant])
        #expect(turns[1].text == "Let me look.")
        #expect(turns[1].tools.map(\.call.id) == ["a", "b"])
        #expect(turns[1].tools.map(\.outcome) == [.ok, .refused])
        #expect(turns[2].text.isEmpty && turns[2].tools.map(\.call.id) == ["c"])
        #expect(turns[3].text == "It is noon." && turns[3].tools.isEmpty)
        #expect(ids == [messages[0].id, messages[3].id, second, messages[5].id])
    }
}
