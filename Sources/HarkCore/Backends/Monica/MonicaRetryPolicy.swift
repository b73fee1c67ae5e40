import FoundationEssentials
import Glibc

/// When a failed request is worth another try, and how long to wait first. Pure, so each rule
/// is tested without a server: a rate limit (429) waits what the server's Retry-After asks
/// (Monica allows 60 requests a minute); a server error (5xx) or a network failure waits
/// `firstDelay`, then twice that, and so on; everything else fails at once.
struct MonicaRetryPolicy: Sendable, Equatable {
    /// Attempts in all, the first included.
    var tries = 3
    var firstDelay = 1.0
    /// The longest Retry-After hark waits for; a longer one fails with the time to come back.
    var maxWait = 60.0

    enum Verdict: Sendable, Equatable {
        /// Wait `after` seconds and try again; `status` tells the user so.
        case retry(after: Double, status: String)
        /// Give up; `note` says why when retrying was possible in principle.
        case fail(note: String?)
    }

    /// The wait before try `number + 1`: 1s, 2s, 4s… with the defaults.
    func backoff(afterTry number: Int) -> Double {
        firstDelay * pow(2, Double(max(0, number - 1)))
    }

    /// For a response with a non-success status. `monicaErrorCode` is the `error.error_code`
    /// of Monica's error envelope: a 500 that carries one (40, invalid query) is Monica's
    /// considered answer, not an outage, and asking again would get the same.
    func verdict(status: Int, retryAfter: String?, monicaErrorCode: Int?, afterTry number: Int, host: String,
                 now: Date) -> Verdict {
        if status == 429 {
            let asked = Self.seconds(retryAfter: retryAfter, now: now)
            if let asked, asked > maxWait {
                let limit = Self.format(maxWait)
                return .fail(note: "Monica asks to wait \(Self.format(asked)), more than max_wait (\(limit)): try again then")
            }
            guard number < tries else { return .fail(note: "still rate limited after \(tries) tries: wait a minute") }
            let wait = asked ?? backoff(afterTry: number)
            return .retry(after: wait, status: "rate limited; retrying in \(Self.format(wait))")
        }
        guard (500...599).contains(status), monicaErrorCode == nil else { return .fail(note: nil) }
        guard number < tries else { return .fail(note: tries > 1 ? "gave up after \(tries) tries" : nil) }
        let wait = backoff(afterTry: number)
        let status = "\(host) answered HTTP \(status); retrying in \(Self.format(wait)) (try \(number + 1) of \(tries))"
        return .retry(after: wait, status: status)
    }

    /// For a request that got no response at all (refused, reset, DNS, TLS, timeout).
    func verdict(transport error: HarkError, afterTry number: Int, host: String) -> Verdict {
        let what: String
        switch error {
        case .network(_, let reason): what = "cannot reach \(host): \(reason)"
        case .timeout: what = "\(host) timed out"
        default: return .fail(note: nil)
        }
        guard number < tries else { return .fail(note: tries > 1 ? "gave up after \(tries) tries" : nil) }
        let wait = backoff(afterTry: number)
        return .retry(after: wait, status: "\(what); retrying in \(Self.format(wait)) (try \(number + 1) of \(tries))")
    }

    /// Retry-After as seconds from now: a number of seconds, or an HTTP date (RFC 9110).
    static func seconds(retryAfter value: String?, now: Date) -> Double? {
        HTTPDate.retryAfter(value, now: now)
    }

    /// "2s", "0.5s".
    static func format(_ seconds: Double) -> String {
        seconds.rounded() == seconds ? "\(Int(seconds))s" : String(cFormat: "%.1fs", seconds)
    }
}
