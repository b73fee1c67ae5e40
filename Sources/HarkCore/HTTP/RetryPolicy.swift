import FoundationEssentials
import Glibc

/// When a request may be sent again by itself. Only a request that changes nothing (GET, HEAD)
/// is retried: a message POSTed to an agent may have reached it even when the connection then
/// broke, and running the agent twice costs the user tokens and side effects. Sending again is
/// theirs to ask for (`/retry`).
public struct RetryPolicy: Sendable {
    /// Waits before the second and third attempt; a Retry-After up to `longestWait` replaces them.
    public var delays: [Double] = [0.25, 1.0]
    public var longestWait: Double = 5

    public static let standard = RetryPolicy()
    public static let never = RetryPolicy(delays: [])

    /// Transport failures after which the server cannot have acted on the request, or that
    /// say nothing about it acting on a GET: worth one more try.
    static let transientReasons: Set<String> = [
        NetworkReason.refused, NetworkReason.reset, NetworkReason.closedWithoutAnswer,
    ]

    static func isIdempotent(_ request: HTTPRequest) -> Bool {
        ["GET", "HEAD"].contains(request.method.uppercased())
    }

    /// The wait before attempt `attempt + 1` after a failure, or nil to give up.
    func delay(after error: Error, request: HTTPRequest, attempt: Int) -> Double? {
        guard Self.isIdempotent(request), attempt < delays.count else { return nil }
        switch error as? HarkError {
        case .network(_, let reason) where Self.transientReasons.contains(reason): return delays[attempt]
        case .timeout(_, let phase, _) where phase == "while connecting": return delays[attempt]
        default: return nil
        }
    }

    /// The wait after a response: a gateway that could not reach its upstream (502, 503, 504),
    /// honouring a short Retry-After. Rate limits (429) are left to the backends, which know
    /// their servers' limits and tell the user about the wait.
    func delay(after head: HTTPResponseHead, request: HTTPRequest, attempt: Int, now: Date = Date()) -> Double? {
        guard Self.isIdempotent(request), attempt < delays.count, [502, 503, 504].contains(head.status) else { return nil }
        guard let seconds = HTTPDate.retryAfter(head.header("retry-after"), now: now), seconds <= longestWait else {
            return delays[attempt]
        }
        return seconds
    }
}

/// The wording of network failures both transports report, named once so the retry policy
/// and the messages cannot drift apart.
enum NetworkReason {
    static let refused = "connection refused"
    static let reset = "the connection was reset"
    static let closedWithoutAnswer = "the server closed the connection without answering"
}
