import FoundationEssentials
import Glibc

/// The only way hark talks HTTP. `stream` yields the response head, then body bytes as they
/// arrive; `fetch` collects a whole (bounded) response.
public final class HTTPClient: Sendable {
    public enum Transport: Sendable {
        /// hark's own for plain http, libcurl for the rest.
        case automatic
        /// libcurl for everything (HARK_HTTP=curl does the same).
        case curl
    }

    public let userAgent: String
    public let transport: Transport
    /// The waits between retries, and the time a Retry-After date is read against.
    public let clock: HarkClock

    public init(userAgent: String = "hark/\(HarkVersion.string)", transport: Transport = .automatic,
                clock: HarkClock = .system) {
        self.userAgent = userAgent
        self.transport = transport
        self.clock = clock
    }

    /// Plain http goes over hark's own transport; https, proxies, redirects and uploads over
    /// libcurl (see NativeTransfer for why).
    public func stream(_ request: HTTPRequest) throws -> HTTPStream {
        try request.checkHeaders()
        BrokenPipes.ignore()
        let channel = HTTPBodyChannel()
        if transport == .automatic && NativeTransfer.canCarry(request) {
            NativeTransfer(request: request, channel: channel, userAgent: userAgent).start()
        } else {
            try CurlTransfer.loadLibrary()
            CurlTransfer(request: request, channel: channel, userAgent: userAgent).start()
        }
        return HTTPStream(channel: channel)
    }

    /// The whole response. Bodies over `maxBytes` are an error rather than unbounded memory.
    /// A GET that meets a refused or reset connection or a busy gateway is tried again after a
    /// short wait (see RetryPolicy); nothing else is.
    public func fetch(_ request: HTTPRequest, maxBytes: Int = 64 << 20, retry: RetryPolicy = .standard) async throws -> HTTPResponse {
        var attempt = 1
        while true {
            let wait: Double
            do {
                let response = try await fetchOnce(request, maxBytes: maxBytes)
                guard !response.head.isSuccess,
                      let delay = retry.verdict(status: response.status, retryAfter: response.head.header("retry-after"),
                                                method: request.method, afterTry: attempt, host: request.displayHost,
                                                now: clock.now()).wait
                else { return response }
                wait = delay
            } catch {
                guard let failure = error as? HarkError,
                      let delay = retry.verdict(transport: failure, method: request.method, afterTry: attempt,
                                                host: request.displayHost).wait
                else { throw error }
                wait = delay
            }
            attempt += 1
            try await clock.sleep(wait)
        }
    }

    private func fetchOnce(_ request: HTTPRequest, maxBytes: Int) async throws -> HTTPResponse {
        let stream = try stream(request)
        defer { stream.cancel() }
        var head: HTTPResponseHead?
        var body: [UInt8] = []
        for try await event in stream {
            switch event {
            case .head(let received): head = received
            case .body(let bytes):
                body.append(contentsOf: bytes)
                if body.count > maxBytes {
                    throw HarkError.protocolViolation("\(request.displayHost) sent more than \(maxBytes >> 20) MB")
                }
            }
        }
        guard let head else { throw HarkError.protocolViolation("\(request.displayHost) sent no response") }
        return HTTPResponse(head: head, body: body)
    }
}

/// A response in progress. Iterate it once; `cancel` (or cancelling the iterating task) aborts
/// the transfer immediately.
public struct HTTPStream: AsyncSequence, Sendable {
    public typealias Element = HTTPEvent
    let channel: HTTPBodyChannel

    public func cancel() { channel.cancel() }

    /// The next event if it has already arrived, else nil without waiting.
    func nextIfReady() -> HTTPEvent? { channel.nextIfReady() }

    /// Hands back a body the consumer has finished reading, for the transfer to reuse.
    func recycle(_ bytes: [UInt8]) { channel.recycle(bytes) }

    public struct AsyncIterator: AsyncIteratorProtocol, Sendable {
        let channel: HTTPBodyChannel
        public mutating func next() async throws -> HTTPEvent? { try await channel.next() }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(channel: channel) }
}
