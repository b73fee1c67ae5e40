/// The few steps a reply is composed of around its HTTP stream: made on the first pull
/// (`Deferred`), events said before it (`prepending`), its failures reworded
/// (`mappingErrors`), events dropped or replaced as they pass (`compactMap`). Each is a
/// generic iterator over the one before it, so a composed reply is one iterator, pulled as
/// the consumer asks: nothing is allocated per event and no task hops in between (a 50 MB
/// reply passes through in token-sized events). `ReplyStream.pulled` hands it out as the
/// `AsyncThrowingStream` a backend returns.
enum ReplyStream {
    static func pulled<Events: AsyncIteratorProtocol & SendableMetatype>(_ events: Events) -> AsyncThrowingStream<ReplyEvent, Error>
        where Events.Element == ReplyEvent {
        let box = PulledIterator(events)
        return AsyncThrowingStream { try await box.next() }
    }

    /// The composed iterator, pulled by one consumer at a time (AsyncThrowingStream's promise).
    private final class PulledIterator<Events: AsyncIteratorProtocol>: @unchecked Sendable
        where Events.Element == ReplyEvent {
        private var events: Events

        init(_ events: Events) { self.events = events }

        func next() async throws -> ReplyEvent? { try await events.next() }
    }
}

/// An iterator made by async work (reading files, planning the context, waiting for a server)
/// when first pulled: nothing of it runs before the consumer asks for the first event.
struct Deferred<Base: AsyncIteratorProtocol>: AsyncIteratorProtocol where Base.Element == ReplyEvent {
    private var make: (@Sendable () async throws -> Base)?
    private var base: Base?

    init(_ make: @escaping @Sendable () async throws -> Base) { self.make = make }

    mutating func next() async throws -> ReplyEvent? {
        if let make {
            self.make = nil
            base = try await make()
        }
        return try await base?.next()
    }
}

/// Events handed out before the base's first (what a reply says it sent, a server starting).
struct Prepended<Base: AsyncIteratorProtocol>: AsyncIteratorProtocol where Base.Element == ReplyEvent {
    private var first: [ReplyEvent]
    private var taken = 0
    private var base: Base

    init(_ first: [ReplyEvent], _ base: Base) {
        self.first = first
        self.base = base
    }

    mutating func next() async throws -> ReplyEvent? {
        if taken < first.count {
            defer { taken += 1 }
            return first[taken]
        }
        if !first.isEmpty { first = [] }
        return try await base.next()
    }
}

/// The base's failures turned into what the user reads (a server's overflow as advice).
struct ErrorsMapped<Base: AsyncIteratorProtocol>: AsyncIteratorProtocol where Base.Element == ReplyEvent {
    private var base: Base
    private let transform: @Sendable (Error) -> Error

    init(_ base: Base, _ transform: @escaping @Sendable (Error) -> Error) {
        self.base = base
        self.transform = transform
    }

    mutating func next() async throws -> ReplyEvent? {
        do { return try await base.next() } catch { throw transform(error) }
    }
}

/// Each event of the base kept, replaced or dropped (nil), with state carried between them.
struct CompactMapped<Base: AsyncIteratorProtocol, State>: AsyncIteratorProtocol where Base.Element == ReplyEvent {
    private var base: Base
    private var state: State
    private let transform: @Sendable (inout State, ReplyEvent) -> ReplyEvent?

    init(_ base: Base, state: State, _ transform: @escaping @Sendable (inout State, ReplyEvent) -> ReplyEvent?) {
        self.base = base
        self.state = state
        self.transform = transform
    }

    mutating func next() async throws -> ReplyEvent? {
        while let event = try await base.next() {
            if let kept = transform(&state, event) { return kept }
        }
        return nil
    }
}

extension AsyncIteratorProtocol where Element == ReplyEvent {
    func prepending(_ events: [ReplyEvent]) -> Prepended<Self> { Prepended(events, self) }

    func mappingErrors(_ transform: @escaping @Sendable (Error) -> Error) -> ErrorsMapped<Self> {
        ErrorsMapped(self, transform)
    }

    func compactMap<State>(state: State, _ transform: @escaping @Sendable (inout State, ReplyEvent) -> ReplyEvent?)
        -> CompactMapped<Self, State> {
        CompactMapped(self, state: state, transform)
    }
}
