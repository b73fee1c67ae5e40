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
        try await retrying(retry, method: request.method, host: request.displayHost) { _ -> TryResult<HTTPResponse> in
            let response: HTTPResponse
            do {
                response = try await fetchOnce(request, maxBytes: maxBytes)
            } catch let failure as HarkError {
                return .transport(failure, giveUp: { _ in throw failure })
            }
            guard !response.head.isSuccess else { return .success(response) }
            // A status that is not worth another try is the caller's to read.
            return .status(response.status, retryAfter: response.head.header("retry-after"), giveUp: { _ in response })
        }
    }

    private func fetchOnce(_ request: HTTPRequest, maxBytes: Int) async throws -> HTTPResponse {
        let response = try await open(request)
        defer { response.stream.cancel() }
        var body = response.body
        let (bytes, whole) = try await body.collect(upTo: maxBytes)
        guard whole else { throw HarkError.protocolViolation("\(request.displayHost) sent more than \(maxBytes >> 20) MB") }
        return HTTPResponse(head: response.head, body: bytes)
    }

    /// Sends a request and returns once its head has arrived, with the body still to read.
    public func open(_ request: HTTPRequest) async throws -> HTTPOpenResponse {
        let stream = try stream(request)
        var body = stream.makeAsyncIterator()
        guard case .head(let head)? = try await body.next() else {
            stream.cancel()
            throw HarkError.protocolViolation("\(request.displayHost) sent no response")
        }
        return HTTPOpenResponse(head: head, stream: stream, body: body)
    }
}

/// A response whose head has arrived: `body` reads the rest, `stream.cancel()` ends it.
public struct HTTPOpenResponse: Sendable {
    public var head: HTTPResponseHead
    public var stream: HTTPStream
    public var body: HTTPStream.AsyncIterator
}

extension HTTPStream.AsyncIterator {
    /// Reads the body until it ends or has sent more than `limit` bytes: at most `limit` of
    /// them, and whether that is all of it (an error body, a preview, a bounded fetch).
    public mutating func collect(upTo limit: Int) async throws -> (bytes: [UInt8], whole: Bool) {
        var bytes: [UInt8] = []
        while let event = try await next() {
            guard case .body(let piece) = event else { continue }
            bytes += piece
            if bytes.count > limit { return (Array(bytes.prefix(limit)), false) }
        }
        return (bytes, true)
    }
}

/// A response in progress. Iterate it once; `cancel` (or cancelling the iterating task) aborts
/// the transfer immediately.
public struct HTTPStream: AsyncSequence, Sendable {
    public typealias Element = HTTPEvent
    let channel: HTTPBodyChannel

    public func cancel() { channel.cancel() }

    /// The server is expected to be silent for a while (it waits for the user's answer to
    /// its question): the idle timeout holds until this is set false again.
    public func expectQuiet(_ quiet: Bool) { channel.quietExpected = quiet }

    /// The next event if it has already arrived, else nil without waiting.
    func nextIfReady() -> HTTPEvent? { channel.nextIfReady() }

    /// Hands back bodies the consumer has finished reading, for the transfer to reuse (moved
    /// out of `bodies`, which is left empty).
    func recycle(_ bodies: inout [[UInt8]]) { channel.recycle(&bodies) }

    public struct AsyncIterator: AsyncIteratorProtocol, Sendable {
        let channel: HTTPBodyChannel
        public mutating func next() async throws -> HTTPEvent? { try await channel.next() }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(channel: channel) }
}
