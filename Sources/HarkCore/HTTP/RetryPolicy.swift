import FoundationEssentials
import Glibc

/// When a failed request is worth another try, and how long to wait first: the one retry
/// policy, a pure verdict on a response's status and Retry-After or on a transport failure,
/// so each rule is tested without a server. One loop asks it, `HTTPClient.retrying`, for its
/// users: `HTTPClient.fetch` (GETs through a busy gateway), Monica (rate limits, outages) and
/// Nyla (rate limits).
///
/// A rate limit (429, if `rateLimits`) means the server did not act on the request, so it is
/// waited out whatever the method: the server's Retry-After, else the backoff; a longer wait
/// than `maxWait` fails with the time to come back. A server error (`serverErrors`) or a
/// transport failure (`transport`) is tried again only for a request that changes nothing
/// (GET, HEAD): a message POSTed to an agent may have reached it even when the connection then
/// broke, and running the agent twice costs the user tokens and side effects. Sending again is
/// theirs to ask for (`/retry`).
public struct RetryPolicy: Sendable, Equatable {
    /// Attempts in all, the first included.
    public var tries: Int
    /// The wait before the second try; each further one is `growth` times the one before.
    public var firstDelay: Double
    public var growth: Double
    /// The longest Retry-After waited for.
    public var maxWait: Double
    /// Statuses that say the server could not answer now.
    public var serverErrors: Set<Int>
    /// Whether a 429 is waited out.
    public var rateLimits: Bool
    public var transport: TransportFailures
    /// Who asks to wait, in the note when a Retry-After is too long ("Monica asks to wait…").
    public var server: String

    /// Which failures to get any response are worth another try.
    public enum TransportFailures: Sendable, Equatable {
        case none
        /// Those after which the server cannot have acted on the request (refused, reset,
        /// closed unanswered, a timeout while connecting).
        case beforeTheServerActed
        /// Any network failure or timeout.
        case all
    }

    public enum Verdict: Sendable, Equatable {
        /// Wait `after` seconds and try again; `status` tells the user so.
        case retry(after: Double, status: String)
        /// Give up; `note` says why when retrying was possible in principle.
        case fail(note: String?)

        /// The wait before the next try, or nil to give up.
        public var wait: Double? {
            if case .retry(let after, _) = self { return after }
            return nil
        }
    }

    public init(tries: Int = 3, firstDelay: Double = 0.25, growth: Double = 4, maxWait: Double = 5,
                serverErrors: Set<Int> = [502, 503, 504], rateLimits: Bool = false,
                transport: TransportFailures = .beforeTheServerActed, server: String = "the server") {
        self.tries = tries
        self.firstDelay = firstDelay
        self.growth = growth
        self.maxWait = maxWait
        self.serverErrors = serverErrors
        self.rateLimits = rateLimits
        self.transport = transport
        self.server = server
    }

    /// The HTTP client's: a GET through a gateway that could not reach its upstream (502, 503,
    /// 504) or a connection refused or reset, after 0.25s and 1s. Rate limits are left to the
    /// kinds, which know their servers' limits and tell the user about the wait.
    public static let standard = RetryPolicy()
    public static let never = RetryPolicy(tries: 1)

    static let transientReasons: Set<String> = [
        NetworkReason.refused, NetworkReason.reset, NetworkReason.closedWithoutAnswer,
    ]

    static func isIdempotent(_ method: String) -> Bool {
        ["GET", "HEAD"].contains(method.uppercased())
    }

    /// The wait before try `number + 1`: with `firstDelay` 1 and `growth` 2, 1s, 2s, 4s…
    public func backoff(afterTry number: Int) -> Double {
        firstDelay * pow(growth, Double(max(0, number - 1)))
    }

    /// What went wrong with one try.
    public enum Failure: Sendable, Equatable {
        case status(Int, retryAfter: String?, considered: Bool)
        case transport(HarkError)
    }

    /// The verdict on either kind of failure (the retry loop's one question).
    public func verdict(_ failure: Failure, method: String, afterTry number: Int, host: String, now: Date) -> Verdict {
        switch failure {
        case .status(let status, let retryAfter, let considered):
            return verdict(status: status, retryAfter: retryAfter, method: method, afterTry: number, host: host, now: now,
                           considered: considered)
        case .transport(let error):
            return verdict(transport: error, method: method, afterTry: number, host: host)
        }
    }

    /// For a response with a non-success status, after try `number` (the first is 1).
    /// `considered` is a server's own answer that only looks like an outage (Monica's 500 with
    /// an error code): asking again would get the same.
    public func verdict(status: Int, retryAfter: String?, method: String = "GET", afterTry number: Int, host: String,
                        now: Date, considered: Bool = false) -> Verdict {
        let asked = HTTPDate.retryAfter(retryAfter, now: now)
        if status == 429 {
            guard rateLimits else { return .fail(note: nil) }
            if let asked, asked > maxWait {
                return .fail(note: "\(server) asks to wait \(Self.format(asked)), more than max_wait (\(Self.format(maxWait))): "
                    + "try again then")
            }
            guard number < tries else { return .fail(note: "still rate limited after \(tries) tries: wait a minute") }
            let wait = asked ?? backoff(afterTry: number)
            return .retry(after: wait, status: "rate limited; retrying in \(Self.format(wait))")
        }
        guard serverErrors.contains(status), !considered, Self.isIdempotent(method) else { return .fail(note: nil) }
        guard number < tries else { return .fail(note: tries > 1 ? "gave up after \(tries) tries" : nil) }
        // A busy server's short Retry-After replaces the backoff; a long one does not stop the tries.
        let wait = asked.flatMap { $0 <= maxWait ? $0 : nil } ?? backoff(afterTry: number)
        return .retry(after: wait, status: "\(host) answered HTTP \(status); retrying in \(Self.format(wait)) "
            + "(try \(number + 1) of \(tries))")
    }

    /// For a request that got no response at all (refused, reset, DNS, TLS, timeout).
    public func verdict(transport error: HarkError, method: String = "GET", afterTry number: Int, host: String) -> Verdict {
        guard Self.isIdempotent(method) else { return .fail(note: nil) }
        let what: String
        switch (error, transport) {
        case (.network(_, let reason), .all):
            what = "cannot reach \(host): \(reason)"
        case (.network(_, let reason), .beforeTheServerActed) where Self.transientReasons.contains(reason):
            what = "cannot reach \(host): \(reason)"
        case (.timeout, .all):
            what = "\(host) timed out"
        case (.timeout(_, let phase, _), .beforeTheServerActed) where phase == "while connecting":
            what = "\(host) timed out"
        default:
            return .fail(note: nil)
        }
        guard number < tries else { return .fail(note: tries > 1 ? "gave up after \(tries) tries" : nil) }
        let wait = backoff(afterTry: number)
        return .retry(after: wait, status: "\(what); retrying in \(Self.format(wait)) (try \(number + 1) of \(tries))")
    }

    /// "2s", "0.5s".
    public static func format(_ seconds: Double) -> String {
        seconds.rounded() == seconds ? "\(Int(seconds))s" : String(cFormat: "%.1fs", seconds)
    }
}
