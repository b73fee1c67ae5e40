import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// Who sees a reply's events: the pure state machine, then the job that performs its calls
/// outside its lock.
@Suite struct ReplyDeliveryTests {
    final class Seen: ReplyObserver, @unchecked Sendable {
        let lock = NSLock()
        var calls: [String] = []
        var onEvent: (ReplyJob) -> Void = { _ in }
        func reply(_ job: ReplyJob, event: ReplyEvent) {
            onEvent(job)
            lock.withLock { calls.append("\(event)") }
        }
        func replyEnded(_ job: ReplyJob, outcome: ReplyOutcome) { lock.withLock { calls.append("end \(outcome.status)") } }
    }

    static func names(_ action: ReplyDelivery.Action?) -> [String] { names(action.map { [$0] } ?? []) }

    static func names(_ actions: [ReplyDelivery.Action]) -> [String] {
        actions.map {
            switch $0 {
            case .event(_, let event): return "\(event)"
            case .end(_, let outcome): return "end \(outcome.status)"
            }
        }
    }

    @Test func eventsWaitForTheDecisionThenGoToTheWatcher() {
        var delivery = ReplyDelivery()
        #expect(delivery.received(.text("a")) == nil)
        #expect(delivery.received(.text("b")) == nil)
        let watcher = Seen()
        #expect(Self.names(delivery.attach(watcher)) == ["text(\"a\")", "text(\"b\")"])
        #expect(Self.names(delivery.received(.text("c"))) == ["text(\"c\")"])
        let (actions, watched) = delivery.end(.complete)
        #expect(Self.names(actions) == ["end complete"])
        #expect(watched)
        #expect(delivery.outcome == .complete)
    }

    @Test func aDetachedReplyRunsOnUnseenAndItsEndIsAnnounced() {
        var delivery = ReplyDelivery()
        _ = delivery.attach(Seen())
        delivery.detach()
        #expect(delivery.received(.text("later")) == nil)
        let (actions, watched) = delivery.end(.stopped)
        #expect(actions.isEmpty)
        #expect(!watched, "nobody watched: the shell announces it")
        // Attaching after the end still reports the end, without what nobody kept.
        #expect(Self.names(delivery.attach(Seen())) == ["end stopped"])
    }

    @Test func aReplyThatEndsBeforeAnyoneDecidesKeepsAllForTheWatcher() {
        var delivery = ReplyDelivery()
        _ = delivery.received(.text("quick"))
        let (actions, watched) = delivery.end(.complete)
        #expect(actions.isEmpty)
        #expect(watched, "someone may still attach: no notice")
        #expect(Self.names(delivery.attach(Seen())) == ["text(\"quick\")", "end complete"])
        #expect(Self.names(delivery.attach(Seen())) == ["end complete"], "replayed once")
    }

    /// An observer may use the job from another thread while it is being called: the calls are
    /// made outside the job's lock. (They were made under it: this waited forever.)
    @Test(.timeLimit(.minutes(3))) func anObserverMayUseTheJobFromAnotherThreadDuringACall() async throws {
        let directory = TemporaryDirectory()
        let store = try HistoryStore(path: directory.file("history.db"))
        try store.ensureSession("s", kind: "local")
        let job = ReplyJob(id: 1, session: "s", kind: "local", thread: try store.createThread(session: "s", title: "t"),
                           userMessageID: nil, label: "t")
        let (events, feed) = AsyncThrowingStream<ReplyEvent, Error>.makeStream()
        let seen = Seen()
        seen.onEvent = { job in
            let done = DispatchSemaphore(value: 0)
            Thread {
                _ = job.isRunning
                job.interruptDetaches = true
                done.signal()
            }.start()
            done.wait()
        }
        job.attach(seen)
        job.start(events: events, backend: nil, store: store, model: nil) { _, _ in }
        feed.yield(.text("one"))
        feed.yield(.text("two"))
        feed.finish()
        #expect(await job.wait() == .complete)
        #expect(seen.lock.withLock { seen.calls } == ["text(\"one\")", "text(\"two\")", "end complete"])
        #expect(job.interruptDetaches)
    }
}
