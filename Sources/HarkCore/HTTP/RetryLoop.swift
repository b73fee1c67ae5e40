/// How one try of a request went, for the retry loop: the value it was for, a failure the
/// policy judges (a response's status, or no response at all), or a reason to go again at
/// once without counting a try (a login renewed).
public enum TryResult<Value> {
    case success(Value)
    /// A response that is not a success. `giveUp` makes the caller's answer once the policy
    /// gives up (its note, when it has one): it throws, or returns what stands for the response.
    case status(Int, retryAfter: String?, considered: Bool = false, giveUp: (_ note: String?) throws -> Value)
    /// No response: refused, reset, timed out.
    case transport(HarkError, giveUp: (_ note: String?) throws -> Value)
    case again
}

extension HTTPClient {
    /// The one retry loop of hark's clients (the plain fetch, Monica, Nyla): tries `attempt`
    /// until it succeeds or `policy` gives up, saying each wait through `onWait` (status text
    /// and seconds) and waiting on the client's clock, so tests run it without waiting.
    public func retrying<Value>(_ policy: RetryPolicy, method: String = "GET", host: String,
                                onWait: (_ status: String, _ seconds: Double) async throws -> Void = { _, _ in },
                                _ attempt: (_ number: Int) async throws -> TryResult<Value>) async throws -> Value {
        var number = 1
        while true {
            try Task.checkCancellation()
            let failure: RetryPolicy.Failure
            let giveUp: (String?) throws -> Value
            switch try await attempt(number) {
            case .success(let value):
                return value
            case .again:
                continue
            case .status(let status, let retryAfter, let considered, let answer):
                failure = .status(status, retryAfter: retryAfter, considered: considered)
                giveUp = answer
            case .transport(let error, let answer):
                failure = .transport(error)
                giveUp = answer
            }
            switch policy.verdict(failure, method: method, afterTry: number, host: host, now: clock.now()) {
            case .fail(let note):
                return try giveUp(note)
            case .retry(let wait, let status):
                try await onWait(status, wait)
                if wait > 0 { try await clock.sleep(wait) }
                number += 1
            }
        }
    }
}
