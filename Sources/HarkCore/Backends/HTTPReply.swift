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
        let pump = ReplyPump(http: http, makeRequest: makeRequest, decoder: decoder)
        return AsyncThrowingStream { try await pump.next() }
    }
}

/// One reply's pipeline state, advanced by `next()` calls (one at a time, by the consumer).
private final class ReplyPump<Decoder: ReplyDecoder>: @unchecked Sendable {
    private let http: HTTPClient
    private let makeRequest: @Sendable () throws -> HTTPRequest
    private var decoder: Decoder
    private var request: HTTPRequest?
    private var body: HTTPStream?
    private var iterator: HTTPStream.AsyncIterator?
    private var head: HTTPResponseHead?
    private var errorBody: [UInt8] = []
    /// Decoded events not yet handed out, and the failure to raise once they have been: one
    /// network read can hold both the last words of a reply and the error that ends it.
    private var pending: [ReplyEvent] = []
    private var pendingIndex = 0
    private var failure: Error?
    private var ended = false
    /// Bodies decoded, handed back to the transfer at the next read: by then nothing here
    /// refers to them (the event that carried one is gone), so the transfer refills the same
    /// storage instead of copying it into a fresh allocation, page fault by page fault.
    private var readBodies: [[UInt8]] = []

    init(http: HTTPClient, makeRequest: @escaping @Sendable () throws -> HTTPRequest, decoder: Decoder) {
        self.http = http
        self.makeRequest = makeRequest
        self.decoder = decoder
    }

    /// A consumer that stops listening drops the stream, and with it this: the connection closes.
    deinit { body?.cancel() }

    func next() async throws -> ReplyEvent? {
        while true {
            if pendingIndex < pending.count {
                defer { pendingIndex += 1 }
                return pending[pendingIndex]
            }
            if let failure {
                self.failure = nil
                ended = true
                body?.cancel()
                throw failure
            }
            if ended { return nil }
            do {
                try await advance()
            } catch {
                failure = error
            }
        }
    }

    /// Reads one HTTP event and decodes what it completes into `pending`.
    private func advance() async throws {
        if iterator == nil {
            let request = try makeRequest()
            let stream = try http.stream(request)
            self.request = request
            body = stream
            iterator = stream.makeAsyncIterator()
        }
        if !readBodies.isEmpty { body?.recycle(&readBodies) }
        var produced: [ReplyEvent] = []
        defer {
            pending = ReplyEvent.coalesced(produced)
            pendingIndex = 0
        }
        guard let event = try await iterator?.next() else {
            ended = true
            let host = request?.displayHost ?? "the server"
            guard let head else { throw HarkError.protocolViolation("\(host) sent no response") }
            guard head.isSuccess else {
                throw ServerMessage.error(status: head.status, host: host, body: errorBody,
                                          contentType: head.header("content-type"))
            }
            try decoder.finish(into: &produced)
            return
        }
        switch event {
        case .head(let received):
            head = received
            if received.isSuccess { try decoder.start(head: received) }
        case .body(let bytes):
            if head?.isSuccess == true {
                try decoder.feed(bytes, into: &produced)
                readBodies.append(bytes)
                // What arrived meanwhile goes into the same events: a server that writes one
                // event per packet would otherwise cost a history commit and a terminal write
                // for each. Only what is already there (no waiting), up to about a megabyte,
                // so the first of it is not held back.
                var taken = bytes.count
                while taken < 1 << 20, let more = body?.nextIfReady() {
                    guard case .body(let next) = more else { break }
                    try decoder.feed(next, into: &produced)
                    readBodies.append(next)
                    taken += next.count
                }
            } else if errorBody.count < 65536 {
                errorBody += bytes.prefix(65536 - errorBody.count)
            }
        }
    }
}
