import Foundation

/// The request-to-events pipeline every HTTP backend shares: send, map a non-2xx status to a
/// readable error (with the server's own message), feed the body through the decoder, and
/// close the connection when the consumer stops listening.
public enum HTTPReply {
    public static func stream<Decoder: ReplyDecoder>(
        _ http: HTTPClient, _ makeRequest: @escaping @Sendable () throws -> HTTPRequest, decoder: Decoder
    ) -> AsyncThrowingStream<ReplyEvent, Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                var decoder = decoder
                do {
                    let request = try makeRequest()
                    let body = try http.stream(request)
                    var head: HTTPResponseHead?
                    var errorBody: [UInt8] = []
                    for try await event in body {
                        switch event {
                        case .head(let received):
                            head = received
                            if received.isSuccess { try decoder.start(head: received) }
                        case .body(let bytes):
                            if head?.isSuccess == true {
                                var produced: [ReplyEvent] = []
                                defer { for item in ReplyEvent.coalesced(produced) { continuation.yield(item) } }
                                try decoder.feed(bytes, into: &produced)
                            } else if errorBody.count < 65536 {
                                errorBody += bytes.prefix(65536 - errorBody.count)
                            }
                        }
                    }
                    guard let head else { throw HarkError.protocolViolation("\(request.displayHost) sent no response") }
                    guard head.isSuccess else {
                        throw ServerMessage.error(status: head.status, host: request.displayHost, body: errorBody,
                                                  contentType: head.header("content-type"))
                    }
                    var last: [ReplyEvent] = []
                    defer { for item in ReplyEvent.coalesced(last) { continuation.yield(item) } }
                    try decoder.finish(into: &last)
                    for item in ReplyEvent.coalesced(last) { continuation.yield(item) }
                    last = []
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

/// Resolves a session's auth header once (a `cmd:` secret may run a password manager) and
/// keeps it in memory only.
public final class AuthHeaderCache: @unchecked Sendable {
    private let spec: AuthSpec?
    private let lock = NSLock()
    private var resolved: (name: String, value: String)?

    public init(_ spec: AuthSpec?) {
        self.spec = spec
    }

    public func headers() throws -> [(name: String, value: String)] {
        guard let spec else { return [] }
        if let resolved = lock.withLock({ resolved }) { return [resolved] }
        let header = try spec.header()
        lock.withLock { resolved = header }
        return [header]
    }

    /// Forget the value (after a 401, the secret may have changed).
    public func reset() { lock.withLock { resolved = nil } }
}
