import Testing
@testable import HarkCore

/// The steps a reply is composed of, over a plain list of events: what each hands out, in
/// which order, and what becomes of a failure.
@Suite struct ReplyOperatorsTests {
    /// Events, then (if set) a failure, as a base iterator.
    struct Listed: AsyncIteratorProtocol {
        var events: [ReplyEvent]
        var failure: HarkError?
        var pulls = 0

        mutating func next() async throws -> ReplyEvent? {
            pulls += 1
            if !events.isEmpty { return events.removeFirst() }
            if let failure {
                self.failure = nil
                throw failure
            }
            return nil
        }
    }

    static func drained(_ events: AsyncThrowingStream<ReplyEvent, Error>) async -> (events: [ReplyEvent], failure: Error?) {
        var seen: [ReplyEvent] = []
        do {
            for try await event in events { seen.append(event) }
            return (seen, nil)
        } catch {
            return (seen, error)
        }
    }

    @Test func prependedEventsComeBeforeTheBasesAndOnlyOnce() async throws {
        var reply = Listed(events: [.text("a")]).prepending([.promptEstimate(7), .status("s")])
        var seen: [ReplyEvent] = []
        while let event = try await reply.next() { seen.append(event) }
        #expect(seen == [.promptEstimate(7), .status("s"), .text("a")])
        #expect(try await reply.next() == nil)
    }

    @Test func errorsAreMappedButEventsBeforeThemPassAsTheyAre() async {
        let reply = Listed(events: [.text("part")], failure: .backend("raw"))
            .mappingErrors { _ in HarkError.backend("advice") }
            .prepending([.status("sent")])
        let (events, failure) = await Self.drained(ReplyStream.pulled(reply))
        #expect(events == [.status("sent"), .text("part")])
        #expect(failure as? HarkError == .backend("advice"))
    }

    @Test func aCompactMapKeepsItsStateBetweenEvents() async {
        let reply = Listed(events: [.reasoning("a"), .text("x"), .reasoning("b"), .text("y")])
            .compactMap(state: 0) { seen, event in
                guard case .reasoning = event else { return event }
                seen += 1
                return seen == 1 ? .status("thinking") : nil
            }
        let (events, failure) = await Self.drained(ReplyStream.pulled(reply))
        #expect(events == [.status("thinking"), .text("x"), .text("y")])
        #expect(failure == nil)
    }

    @Test func aDeferredReplyIsMadeAtTheFirstPullAndItsFailureEndsIt() async {
        let made = Locked(0)
        let reply = Deferred { () async throws -> Listed in
            made.update { $0 += 1 }
            return Listed(events: [.text("late")])
        }
        let stream = ReplyStream.pulled(reply)
        #expect(made.read { $0 } == 0, "nothing is made before the consumer asks")
        let (events, _) = await Self.drained(stream)
        #expect(events == [.text("late")])
        #expect(made.read { $0 } == 1)

        let failing = Deferred { () async throws -> Listed in throw HarkError.backend("no file") }
        let (none, failure) = await Self.drained(ReplyStream.pulled(failing.prepending([.status("before")])))
        #expect(none == [.status("before")], "what is prepended outside the deferred work still comes first")
        #expect(failure as? HarkError == .backend("no file"))
    }
}
