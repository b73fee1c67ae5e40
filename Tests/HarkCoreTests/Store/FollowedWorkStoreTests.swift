import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// The inbox and the followed work in a real SQLite file: what is unread, an end recorded
/// once however many watchers race for it, push tokens named and finished.
@Suite struct FollowedWorkStoreTests {
    let directory = TemporaryDirectory()

    func makeStore() throws -> HistoryStore {
        let store = try HistoryStore(path: directory.file("history.db"))
        try store.ensureSession("ci", kind: "jenkins")
        try store.ensureSession("agent", kind: "a2a")
        return store
    }

    @Test func theInboxListsUnreadRepliesOldestFirstAndOpeningOneReadsItAlone() throws {
        let store = try makeStore()
        let builds = try store.createThread(session: "ci", title: "/build app")
        let tasks = try store.createThread(session: "agent", title: "book a flight")
        let first = try store.addMessage(threadID: builds.id, session: "ci", role: .assistant, text: "Started\nFinished: SUCCESS\n")
        try store.database.run("UPDATE messages SET notes = ? WHERE id = ?", "app #1 SUCCESS in 3s", .integer(first))
        let second = try store.addMessage(threadID: tasks.id, session: "agent", role: .assistant, text: "Booked.\nDetails follow")
        let third = try store.addMessage(threadID: builds.id, session: "ci", role: .assistant, text: "\u{1B}[31mred\u{7} text")

        let items = try store.inbox()
        #expect(items.map(\.message.id) == [first, second, third])
        #expect(items.map(\.kind) == ["build", "task", "build"])
        #expect(items[0].headline == "app #1 SUCCESS in 3s", "a build says its result, not its console's first line")
        #expect(items[1].headline == "Booked.")
        #expect(items[2].headline == "␛[31mred␇ text", "no control character reaches a line: \(items[2].headline.debugDescription)")
        #expect(try store.unreadCount() == 3)

        try store.markMessageRead(second)
        #expect(try store.inbox().map(\.message.id) == [first, third])
        #expect(try store.unreadCounts() == ["ci": 2])
        #expect(try store.inbox(all: true).map(\.read) == [false, true, false])

        try store.markRead(session: "ci")
        #expect(try store.unreadCount() == 0)
        #expect(try store.inbox().isEmpty)
    }

    @Test func anEndIsRecordedOnceHoweverManyWatchersRaceForIt() async throws {
        let store = try makeStore()
        let thread = try store.createThread(session: "ci", title: "/build app")
        try store.follow(ResumePoint(kind: "build", key: "app#7", details: ["job": "app", "number": "7"]), session: "ci",
                         threadID: thread.id)
        let work = try #require(try store.followedWork().first)
        #expect(work.details == ["job": "app", "number": "7"])
        #expect(work.label == "app#7")

        // Eight watchers, each on a connection of its own, as eight hark processes would be.
        let path = directory.file("history.db")
        let end = WorkEnd(text: "app #7 SUCCESS in 2s\n", headline: "app #7 SUCCESS in 2s", backendID: "app#7")
        let recorded = try await withThrowingTaskGroup(of: Int64?.self) { group in
            for _ in 0..<8 {
                group.addTask { try HistoryStore(path: path).recordEnd(of: work, end) }
            }
            return try await group.reduce(into: [Int64]()) { if let id = $1 { $0.append(id) } }
        }
        #expect(recorded.count == 1)
        let messages = try store.messages(threadID: thread.id)
        #expect(messages.count == 1)
        #expect(messages.first?.text == "app #7 SUCCESS in 2s\n")
        #expect(try store.followedWork().isEmpty)
        #expect(try store.inbox(recordedByWatch: true).map(\.message.id) == recorded)
        // Followed again (the same task answered and left running again): followed once more.
        try store.follow(ResumePoint(kind: "build", key: "app#7"), session: "ci", threadID: thread.id)
        #expect(try store.followedWork().count == 1)
    }

    @Test func aPushTokenIsStoredFirstThenNamedAndFinished() throws {
        let store = try makeStore()
        let thread = try store.createThread(session: "agent", title: "later")
        try store.registerPushToken("t-1", session: "agent", threadID: thread.id)
        #expect(try store.work(pushToken: "t-1")?.state == .live)
        #expect(try store.followedWork().isEmpty, "a live task is the running hark's, not the watcher's")
        try store.nameWork(pushToken: "t-1", key: "task-a", details: ["task": "task-a", "context": "c-1"])
        try store.storeUpdate(workID: try #require(try store.work(pushToken: "t-1")).id, body: "{\"statusUpdate\":{}}")

        // The same task answered in a new exchange, with a new token: the older row gives way.
        try store.registerPushToken("t-2", session: "agent", threadID: thread.id)
        try store.nameWork(pushToken: "t-2", key: "task-a", details: ["task": "task-a"])
        #expect(try store.work(pushToken: "t-1") == nil)
        try store.follow(ResumePoint(kind: "task", key: "task-a", details: ["task": "task-a"]), session: "agent",
                         threadID: thread.id)
        let followed = try #require(try store.followedWork().first)
        #expect(followed.pushToken == "t-2", "following keeps the token the pushes carry")
        #expect(try store.updates(workID: followed.id).isEmpty)

        try store.registerPushToken("t-3", session: "agent", threadID: thread.id)
        try store.finishLiveWork(pushToken: "t-3")
        #expect(try store.work(pushToken: "t-3")?.state == .done)
    }
}
