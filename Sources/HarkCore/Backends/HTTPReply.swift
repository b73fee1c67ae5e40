import FoundationEssentials
import Glibc

/// The request-to-events pipeline every HTTP backend shares: send, map a non-2xx status to a
/// readable error (with the server's own message), feed the body through the decoder, and
/// close the connection when the consumer stops listening.
///
/// It is pulled, not pushed: the next chunk of the body is read only when the consumer asks
/// for more events. A consumer that falls behind (a slow pipe, a loaded machine) holds the
/// transfer back through the HTTP channel's bounded buffer, so memory stays flat however long
/// the reply; pushing into an AsyncThrowingStream buffered all a slow consumer had not taken.
public enum HTTPReply {
    public static func stream<Decoder: ReplyDecoder>(
        _ http: HTTPClient, _ makeRequest: @escaping @Sendable () throws -> HTTPRequest, decoder: Decoder
    ) -> AsyncThrowingStream<ReplyEvent, Error> {
        let pump = ReplyPump(opening: .request(http, makeRequest), decoder: decoder)
        return AsyncThrowingStream { try await pump.next() }
    }

    /// A reply whose response takes steps to open (a login, finding the instance, waiting out
    /// a rate limit) before its body is read: `open` runs on the first `next()`, and what it
    /// says meanwhile (`say`: status lines, notices) comes before the body's events, as it is
    /// said. From then on the body is pulled as above.
    public static func stream<Decoder: ReplyDecoder>(
        decoder: Decoder, open: @escaping @Sendable (_ say: ProducedStream.Emitter<ReplyEvent>) async throws -> Opened
    ) -> AsyncThrowingStream<ReplyEvent, Error> {
        let pump = ReplyPump(opening: .steps(open), decoder: decoder)
        return AsyncThrowingStream { try await pump.next() }
    }

    /// A response whose head may already have been read (and checked), with what to do around
    /// its events.
    public struct Opened: Sendable {
        let stream: HTTPStream
        let body: HTTPStream.AsyncIterator
        let head: HTTPResponseHead?
        /// Who answered, for errors.
        let host: String
        /// Called with each of the body's events as it is handed out (to note a thread's new id).
        public var seeing: (@Sendable (ReplyEvent) -> Void)?
        /// When set, the decoder's `.finished` ends the reply at once (the rest of the body is not
        /// waited for) and the events this returns go just before it.
        public var lastly: (@Sendable () async -> [ReplyEvent])?

        /// A response whose head has been read (a status other than 2xx still fails the reply).
        public init(_ response: HTTPOpenResponse, host: String) {
            head = response.head
            stream = response.stream
            body = response.body
            self.host = host
        }

        init(stream: HTTPStream, host: String) {
            head = nil
            self.stream = stream
            body = stream.makeAsyncIterator()
            self.host = host
        }
    }
}

/// What to do on the first `next()` to have a response.
private enum Opening: Sendable {
    case request(HTTPClient, @Sendable () throws -> HTTPRequest)
    case steps(@Sendable (ProducedStream.Emitter<ReplyEvent>) async throws -> HTTPReply.Opened)
}

/// The response an opener's steps produced, handed from their task to the pump. Closed if the
/// pump never takes it (the consumer went while the steps ran).
private final class OpenedSlot: Sendable {
    private let value = Locked<HTTPReply.Opened?>(nil)

    func put(_ opened: HTTPReply.Opened) { value.update { $0 = opened } }
    func take() -> HTTPReply.Opened? { value.update { slot in defer { slot = nil }; return slot } }
    deinit { value.read { $0?.stream.cancel() } }
}

/// One reply's pipeline, advanced by `next()` calls (one at a time, by the consumer). Where it
/// is, and so what a pull does, is its `ReplyPumpPhase`; this holds what the phase acts on.
private final class ReplyPump<Decoder: ReplyDecoder>: @unchecked Sendable {
    private let opening: Opening
    private var phase = ReplyPumpPhase()
    private var decoder: Decoder
    /// An opener's steps while they run: what they say, and the slot they leave the response in.
    private var steps: (said: AsyncThrowingStream<ReplyEvent, Error>.AsyncIterator, slot: OpenedSlot)?
    /// The response once open, and its body as far as it has been read.
    private var opened: HTTPReply.Opened?
    private var body: HTTPStream.AsyncIterator?
    /// Decoded events not yet handed out.
    private var pending: [ReplyEvent] = []
    private var pendingIndex = 0
    /// Bodies decoded, handed back to the transfer at the next read: by then nothing here
    /// refers to them (the event that carried one is gone), so the transfer refills the same
    /// storage instead of copying it into a fresh allocation, page fault by page fault.
    private var readBodies: [[UInt8]] = []

    init(opening: Opening, decoder: Decoder) {
        self.opening = opening
        self.decoder = decoder
    }

    /// A consumer that stops listening drops the stream, and with it this: the connection closes
    /// (or the opener's steps are cancelled, and what they opened is closed with their slot).
    deinit { opened?.stream.cancel() }

    func next() async throws -> ReplyEvent? {
        while true {
            if pendingIndex < pending.count {
                defer { pendingIndex += 1 }
                opened?.seeing?(pending[pendingIndex])
                return pending[pendingIndex]
            }
            let step = phase.step()
            switch step {
            case .raise(let failure):
                opened?.stream.cancel()
                throw failure
            case .end:
                return nil
            case .open, .readSaid, .readBody:
                do { try await perform(step) } catch { phase.failed(error) }
            }
        }
    }

    private func perform(_ step: ReplyPumpPhase.Step) async throws {
        switch step {
        case .open: try await open()
        case .readSaid: try await readSaid()
        case .readBody: try await readBody()
        case .raise, .end: break
        }
    }

    /// Sends the request, or starts the opener's steps.
    private func open() async throws {
        switch opening {
        case .request(let http, let makeRequest):
            let request = try makeRequest()
            try await receive(HTTPReply.Opened(stream: try http.stream(request), host: request.displayHost))
        case .steps(let run):
            let slot = OpenedSlot()
            steps = (ProducedStream.make { say in slot.put(try await run(say)) }.makeAsyncIterator(), slot)
            phase.stepsStarted()
        }
    }

    /// One thing the opener's steps say, or, once they have ended, the response they opened.
    private func readSaid() async throws {
        guard var said = steps?.said else { return }
        if let event = try await said.next() {
            steps?.said = said
            (pending, pendingIndex) = ([event], 0)
            return
        }
        let response = steps?.slot.take()
        steps = nil
        guard let response else { throw CancellationError() }
        try await receive(response)
    }

    private func receive(_ response: HTTPReply.Opened) async throws {
        opened = response
        body = response.body
        phase.opened(host: response.host)
        if let head = response.head { try await start(head) }
    }

    private func start(_ head: HTTPResponseHead) async throws {
        switch phase.headArrived(head) {
        case .start: try decoder.start(head: head)
        case .readRefusal: phase.refused(saying: (try? await body?.collect(upTo: 65536).bytes) ?? [])
        }
    }

    /// Reads one HTTP event and decodes what it completes into `pending`.
    private func readBody() async throws {
        if !readBodies.isEmpty { opened?.stream.recycle(&readBodies) }
        var produced: [ReplyEvent] = []
        defer {
            pending = ReplyEvent.coalesced(produced)
            pendingIndex = 0
        }
        guard let event = try await body?.next() else {
            guard phase.bodyEnded() else { return }
            try decoder.finish(into: &produced)
            await endAtFinished(&produced)
            return
        }
        switch event {
        case .head(let head):
            try await start(head)
        case .body(let bytes):
            // What arrived meanwhile goes into the same events: a server that writes one
            // event per packet would otherwise cost a history commit and a terminal write
            // for each. Only what is already there (no waiting), up to about a megabyte,
            // so the first of it is not held back. The decoder is told when more follows,
            // so their text becomes one event rather than several joined.
            var current = bytes
            var taken = bytes.count
            while true {
                var next: [UInt8]?
                if taken < 1 << 20, case .body(let more)? = opened?.stream.nextIfReady() {
                    next = more
                    taken += more.count
                }
                try decoder.feed(current, into: &produced, more: next != nil)
                readBodies.append(current)
                guard let next else { break }
                current = next
            }
            await endAtFinished(&produced)
        }
    }

    /// For a reply with a last step: the decoder's `.finished` is its end, after that step's events.
    private func endAtFinished(_ produced: inout [ReplyEvent]) async {
        guard let lastly = opened?.lastly,
              let end = produced.firstIndex(where: { if case .finished = $0 { true } else { false } }) else { return }
        let finished = produced[end]
        produced.removeSubrange(end...)
        produced += await lastly() + [finished]
        phase.finishedEarly()
        opened?.stream.cancel()
    }
}
