import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// What a reply leaves in the history, event by event: the record is fed events here as the
/// job's task feeds them, with no task, backend or terminal.
@Suite struct ReplyRecordTests {
    let directory = TemporaryDirectory()

    func makeStore() throws -> (HistoryStore, ChatThread) {
        let store = try HistoryStore(path: directory.file("history.db"))
        try store.ensureSession("bot", kind: "openai")
        return (store, try store.createThread(session: "bot", title: "t", backendID: "server-1"))
    }

    @Test func aReplysEventsMakeItsMessage() throws {
        let (store, thread) = try makeStore()
        let clock = TestClock()
        var opened: [Int64] = []
        var record = ReplyRecord(store: store, thread: thread, session: "bot", model: "asked", clock: clock.clock) { opened.append($0) }
        try record.apply(.promptEstimate(42), usage: nil)
        try record.apply(.model("answered"), usage: nil)
        #expect(!record.hasText)
        clock.advance(by: 0.25)
        try record.apply(.text("Hello "), usage: nil)
        #expect(record.hasText && opened.count == 1)
        try record.apply(.notice("two\nlines"), usage: nil)
        clock.advance(by: 1.5)
        try record.apply(.text("world"), usage: nil)
        try record.apply(.backendMessageID("m-7"), usage: nil)
        try record.apply(.backendThreadID("server-2"), usage: nil)
        try record.close(.complete, usage: Usage(promptTokens: 40, completionTokens: 2, totalTokens: 42), userMessageID: nil)
        let reply = try #require(try store.lastMessage(session: "bot", role: .assistant))
        #expect(reply.id == opened.first)
        #expect(reply.text == "Hello world")
        #expect(reply.status == .complete)
        #expect(reply.model == "answered")
        #expect(reply.backendID == "m-7")
        #expect(reply.notes == ["two lines"])
        #expect(reply.promptEstimate == 42)
        #expect(reply.usage?.completionTokens == 2)
        #expect(reply.timing == ReplyTiming(firstByteMilliseconds: 250, streamMilliseconds: 1500))
        #expect(try store.thread(id: thread.id)?.backendID == "server-2")
    }

    /// A tool call closes what the model wrote before it: the call's result and the rest of the
    /// reply follow as messages of their own.
    @Test func aToolCallClosesTheTextBeforeIt() throws {
        let (store, thread) = try makeStore()
        var record = ReplyRecord(store: store, thread: thread, session: "bot", model: "m", clock: TestClock().clock)
        try record.apply(.text("Let me look."), usage: nil)
        try record.apply(.toolCall(ToolCall(id: "c1", name: "time_now", arguments: "{}")), usage: nil)
        #expect(!record.hasText)
        try record.apply(.text("It is noon."), usage: nil)
        try record.close(.complete, usage: nil, userMessageID: nil)
        let texts = try store.messages(threadID: thread.id).filter { $0.role == .assistant }.map(\.text)
        #expect(texts == ["Let me look.", "It is noon."])
    }

    /// A failure is kept even when no text came, with the error; a stop keeps what came.
    @Test func aFailureWithoutTextIsKeptWithItsError() throws {
        let (store, thread) = try makeStore()
        var failed = ReplyRecord(store: store, thread: thread, session: "bot", model: "m", clock: TestClock().clock)
        try failed.close(.failed(.backend("the slot crashed"), hadText: false), usage: nil, userMessageID: nil)
        let reply = try #require(try store.lastMessage(session: "bot", role: .assistant))
        #expect(reply.status == .failed)
        #expect(reply.error == "the slot crashed")
        #expect(reply.timing == nil)
    }

    /// A summary is kept only whole and only with text; nothing of it is a message.
    @Test func aSummaryIsKeptOnlyWhenComplete() throws {
        let (store, thread) = try makeStore()
        let record = SummaryRecord(store: store, threadID: thread.id, throughMessageID: 9, turns: 3)
        try record.close(.stopped, text: "half a summ")
        #expect(try store.summary(threadID: thread.id) == nil)
        try record.close(.complete, text: "  ")
        #expect(try store.summary(threadID: thread.id) == nil)
        try record.close(.complete, text: " The user asked about refunds. ")
        #expect(try store.summary(threadID: thread.id) == ThreadSummary(text: "The user asked about refunds.", turns: 3,
                                                                        throughMessageID: 9))
        #expect(try store.messages(threadID: thread.id).isEmpty)
    }
}
