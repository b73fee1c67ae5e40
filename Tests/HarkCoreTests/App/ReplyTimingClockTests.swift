import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// A reply's timings (first byte, stream) are read on the workspace's clock, so what they
/// hold can be told exactly.
@Suite struct ReplyTimingClockTests {
    /// A clock whose durations move one second at each reading: the reply is sent at 1, its
    /// first text comes at 2, and it ends at 3.
    final class Ticking: @unchecked Sendable {
        private let lock = NSLock()
        private var ticks = 0.0

        var clock: HarkClock {
            HarkClock(now: { Date(timeIntervalSince1970: 1_767_225_600) }, sleep: { _ in }, uptime: { [self] in
                lock.withLock {
                    ticks += 1
                    return ticks
                }
            })
        }
    }

    @Test func aRepliesTimingsAreMeasuredOnTheWorkspacesClock() async throws {
        let server = try TestOpenAIServer(script: TestOpenAIServer.streaming(["one ", "two"]))
        let workspace = try WorkspaceTranscriptTests.home(server).workspace(clock: Ticking().clock)
        try workspace.switchSession(to: "llama")
        guard case .reply(let job) = try await workspace.execute("hello") else {
            Issue.record("a message to a model session starts a reply")
            return
        }
        #expect(await job.wait() == .complete)
        let reply = try #require(try workspace.store.lastMessage(session: "llama", role: .assistant))
        #expect(reply.text == "one two")
        #expect(reply.timing == ReplyTiming(firstByteMilliseconds: 1000, streamMilliseconds: 1000))
    }
}
