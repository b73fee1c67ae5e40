import Foundation
import Testing
@testable import HarkCore

/// The producer helper every push-style backend uses: order, the end and its error, a bounded
/// buffer (the producer waits, it does not run ahead), and a consumer that leaves stopping it.
@Suite struct ProducedStreamTests {
    struct Broke: Error, Equatable {}

    @Test func elementsArriveInOrderAndAnErrorAfterThem() async throws {
        let stream = ProducedStream.make(buffer: 3) { (emit: ProducedStream.Emitter<Int>) in
            for number in 1...10 { try await emit(number) }
            throw Broke()
        }
        var seen: [Int] = []
        do {
            for try await number in stream { seen.append(number) }
            Issue.record("the error was not thrown")
        } catch {
            #expect(error as? Broke == Broke())
        }
        #expect(seen == Array(1...10), "everything emitted before the error is handed out")
    }

    /// `drained` returns once the consumer has handled everything emitted and waits for more:
    /// a producer that asks the user something after its text asks it after the text is out.
    @Test func drainedWaitsUntilTheConsumerHandledEverything() async throws {
        let handled = Locked(0), handledAtDrain = Locked(-1)
        let stream = ProducedStream.make(buffer: 8) { (emit: ProducedStream.Emitter<Int>) in
            for number in 1...3 { try await emit(number) }
            await emit.drained()
            handledAtDrain.update { $0 = handled.read { $0 } }
            try await emit(4)
        }
        var seen: [Int] = []
        for try await number in stream {
            seen.append(number)
            handled.update { $0 += 1 }
        }
        #expect(seen == [1, 2, 3, 4])
        #expect(handledAtDrain.read { $0 } == 3)
    }

    /// With a buffer of 4 and nobody reading, the producer's fourth emit waits: three returned,
    /// the fourth is in, nothing more is made. (AsyncThrowingStream's own buffer let it make
    /// all 1,000 at once.)
    @Test func aProducerWaitsWhileTheBufferIsFull() async throws {
        let attempted = Locked(0), returned = Locked(0)
        let stream = ProducedStream.make(buffer: 4) { (emit: ProducedStream.Emitter<Int>) in
            for number in 0..<1000 {
                attempted.update { $0 += 1 }
                try await emit(number)
                returned.update { $0 += 1 }
            }
        }
        while attempted.read({ $0 }) < 4 { await Task.yield() }
        for _ in 0..<200 { await Task.yield() }
        #expect(attempted.read { $0 } == 4)
        #expect(returned.read { $0 } == 3)
        var iterator = stream.makeAsyncIterator()
        #expect(try await iterator.next() == 0)
        // Taking one lets the waiting emit return and the next one be made.
        while attempted.read({ $0 }) < 5 { await Task.yield() }
        #expect(returned.read { $0 } == 4)
        var rest: [Int] = []
        while let number = try await iterator.next() { rest.append(number) }
        #expect(rest == Array(1..<1000))
    }

    /// A consumer that stops listening (drops the stream) cancels the producer, whose waiting
    /// emit throws: a build follower or a task poller does not go on unseen.
    @Test func droppingTheStreamStopsTheProducer() async throws {
        let (ended, signal) = AsyncStream.makeStream(of: String.self)
        do {
            let stream = ProducedStream.make(buffer: 2) { (emit: ProducedStream.Emitter<Int>) in
                do {
                    var number = 0
                    while true {
                        try await emit(number)
                        number += 1
                    }
                } catch {
                    signal.yield(error is CancellationError ? "cancelled" : "other: \(error)")
                    signal.finish()
                }
            }
            var iterator = stream.makeAsyncIterator()
            #expect(try await iterator.next() == 0)
            #expect(try await iterator.next() == 1)
        }
        var reasons: [String] = []
        for await reason in ended { reasons.append(reason) }
        #expect(reasons == ["cancelled"])
    }

    /// Cancelling the consumer's task while it waits for an element ends its loop and the
    /// producer's.
    @Test func cancellingTheConsumerEndsBoth() async throws {
        let (ended, signal) = AsyncStream.makeStream(of: Bool.self)
        let (started, startedSignal) = AsyncStream.makeStream(of: Void.self)
        let stream = ProducedStream.make { (emit: ProducedStream.Emitter<Int>) in
            startedSignal.finish()
            do {
                // Produces nothing until cancelled.
                try await withTaskCancellationHandler {
                    try await Task.sleep(for: .seconds(3600))
                } onCancel: {}
            } catch {
                signal.yield(error is CancellationError)
                signal.finish()
                throw error
            }
        }
        for await _ in started {}
        let consumer = Task {
            var count = 0
            for try await _ in stream { count += 1 }
            return count
        }
        consumer.cancel()
        #expect(try await consumer.value == 0)
        var cancelled: [Bool] = []
        for await value in ended { cancelled.append(value) }
        #expect(cancelled == [true])
    }
}
