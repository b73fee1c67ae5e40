import FoundationEssentials
import Glibc

/// A stream whose elements an async body produces on a task of its own, with a bounded buffer
/// between it and the consumer: `emit` waits while `buffer` elements wait to be taken. The one
/// way hark's backends make an event stream that is not an HTTP body (those go through
/// `HTTPReply`, which is pulled): a build's console, a task's updates, a form's questions.
///
/// `AsyncThrowingStream`'s continuation buffers without bound, so a producer faster than its
/// consumer (a 100 MB console into a slow pipe) held everything not yet shown in memory; here
/// the producer is held back instead. When the consumer stops listening (it drops the stream,
/// or its task is cancelled), the producer's task is cancelled and a waiting `emit` throws.
public enum ProducedStream {
    public static func make<Element: Sendable>(
        buffer: Int = 64, _ body: @escaping @Sendable (Emitter<Element>) async throws -> Void
    ) -> AsyncThrowingStream<Element, Error> {
        let channel = Channel<Element>(capacity: max(1, buffer))
        let producer = Producer(channel: channel, task: Task {
            do {
                try await body(Emitter(channel: channel))
                channel.finish(nil)
            } catch {
                channel.finish(error)
            }
        })
        return AsyncThrowingStream { try await producer.next() }
    }

    /// Hands elements to the consumer.
    public struct Emitter<Element: Sendable>: Sendable {
        fileprivate let channel: Channel<Element>

        /// Hands one element on, waiting while the buffer is full; throws `CancellationError`
        /// once the consumer has gone.
        public func callAsFunction(_ element: Element) async throws {
            try await channel.send(element)
        }

        /// Returns once the consumer has taken every element handed on and waits for the next
        /// (or has gone): what came before is out before the producer asks the user something.
        public func drained() async {
            await channel.drained()
        }
    }

    /// Owned by the stream: when the stream goes, the producer's task is cancelled.
    private final class Producer<Element: Sendable>: Sendable {
        let channel: Channel<Element>
        let task: Task<Void, Never>

        init(channel: Channel<Element>, task: Task<Void, Never>) {
            self.channel = channel
            self.task = task
        }

        deinit {
            task.cancel()
            channel.cancel()
        }

        func next() async throws -> Element? {
            try await withTaskCancellationHandler {
                try await channel.next()
            } onCancel: { [task, channel] in
                task.cancel()
                channel.cancel()
            }
        }
    }

    /// The buffer and who waits on it. Every continuation is resumed outside the lock.
    fileprivate final class Channel<Element: Sendable>: Sendable {
        private struct State {
            var buffer: [Element] = []
            var head = 0
            /// Set when the producer ended: nil error for a normal end.
            var end: (error: Error?, set: Bool) = (nil, false)
            var cancelled = false
            var consumer: CheckedContinuation<Element?, Error>?
            var producer: CheckedContinuation<Void, Error>?
            /// A producer waiting for the consumer to take everything (`drained`).
            var drainer: CheckedContinuation<Void, Never>?

            var count: Int { buffer.count - head }

            mutating func take() -> Element {
                let element = buffer[head]
                head += 1
                // Compacted now and then, not at every take: O(1) amortised.
                if head > 64 && head * 2 > buffer.count {
                    buffer.removeFirst(head)
                    head = 0
                }
                return element
            }
        }

        private enum SendStep { case handed(CheckedContinuation<Element?, Error>), buffered, full, cancelled }
        private enum NextStep {
            case element(Element, CheckedContinuation<Void, Error>?), ended(Error?), wait(CheckedContinuation<Void, Never>?)
        }

        private let capacity: Int
        private let state = Locked(State())

        init(capacity: Int) {
            self.capacity = capacity
        }

        func send(_ element: Element) async throws {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (waiting: CheckedContinuation<Void, Error>) in
                    let step: SendStep = state.update { state in
                        if state.cancelled || Task.isCancelled { return .cancelled }
                        if let consumer = state.consumer {
                            state.consumer = nil
                            return .handed(consumer)
                        }
                        state.buffer.append(element)
                        if state.count < capacity { return .buffered }
                        state.producer = waiting
                        return .full
                    }
                    switch step {
                    case .handed(let consumer):
                        consumer.resume(returning: element)
                        waiting.resume()
                    case .buffered:
                        waiting.resume()
                    case .full:
                        break  // resumed by `next` when it takes one, or by `cancel`
                    case .cancelled:
                        waiting.resume(throwing: CancellationError())
                    }
                }
            } onCancel: {
                cancel()
            }
        }

        func next() async throws -> Element? {
            try await withCheckedThrowingContinuation { (waiting: CheckedContinuation<Element?, Error>) in
                let step: NextStep = state.update { state in
                    if state.count > 0 {
                        let element = state.take()
                        let producer = state.producer
                        state.producer = nil
                        return .element(element, producer)
                    }
                    if state.end.set {
                        let error = state.end.error
                        state.end.error = nil  // thrown once; then the stream is over
                        return .ended(error)
                    }
                    if state.cancelled { return .ended(nil) }
                    state.consumer = waiting
                    return .wait(state.drainer.take())
                }
                switch step {
                case .element(let element, let producer):
                    producer?.resume()
                    waiting.resume(returning: element)
                case .ended(let error):
                    if let error { waiting.resume(throwing: error) } else { waiting.resume(returning: nil) }
                case .wait(let drainer):
                    drainer?.resume()  // resumed itself by `send`, `finish` or `cancel`
                }
            }
        }

        func drained() async {
            await withCheckedContinuation { (waiting: CheckedContinuation<Void, Never>) in
                let now: Bool = state.update { state in
                    if state.cancelled || (state.count == 0 && state.consumer != nil) { return true }
                    state.drainer = waiting
                    return false
                }
                if now { waiting.resume() }
            }
        }

        /// The producer ended, with an error or not: what is buffered is still handed out.
        func finish(_ error: Error?) {
            let consumer: CheckedContinuation<Element?, Error>? = state.update { state in
                guard !state.end.set else { return nil }
                state.end = (error, true)
                guard state.count == 0, let consumer = state.consumer else { return nil }
                state.consumer = nil
                state.end.error = nil
                return consumer
            }
            if let error { consumer?.resume(throwing: error) } else { consumer?.resume(returning: nil) }
        }

        /// The consumer went: a waiting producer throws, a waiting consumer gets the end.
        func cancel() {
            let (producer, consumer, drainer) = state.update { state in
                state.cancelled = true
                defer {
                    state.producer = nil
                    state.consumer = nil
                }
                return (state.producer, state.consumer, state.drainer.take())
            }
            producer?.resume(throwing: CancellationError())
            consumer?.resume(returning: nil)
            drainer?.resume()
        }
    }
}
