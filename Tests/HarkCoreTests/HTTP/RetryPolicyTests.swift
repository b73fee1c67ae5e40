import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// The one retry policy. The HTTP client's: a GET is tried again after a busy gateway or a
/// reset; a POST (a message that may have reached the agent) never is. Monica's and Nyla's:
/// rate limits waited out as the server asks.
@Suite struct RetryPolicyTests {
    let now = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01T00:00:00Z
    let policy = RetryPolicy.monica

    /// Fast waits: the behaviour under test is the count of attempts, not the time.
    static let quick = RetryPolicy(firstDelay: 0.01, growth: 2)

    /// Answers 503 (or drops the connection) `failures` times, then 200.
    static func flakyServer(failures: Int, drop: Bool = false) throws -> TestHTTPServer {
        let count = Counter()
        return try TestHTTPServer { _, response in
            if count.next() <= failures {
                if drop { response.abort() } else { response.send(status: 503, text: "upstream busy") }
                return
            }
            response.send(text: "fine")
        }
    }

    @Test(arguments: HTTPClientTests.transports)
    func aGetOutlastsABusyGatewayAndAReset(_ transport: HTTPClient.Transport) async throws {
        let client = HTTPClient(transport: transport)
        let busy = try Self.flakyServer(failures: 2)
        let response = try await client.fetch(HTTPRequest(url: busy.baseURL + "/job"), retry: Self.quick)
        #expect(response.text == "fine")
        #expect(busy.requests.count == 3)
        let dropping = try Self.flakyServer(failures: 1, drop: true)
        #expect(try await client.fetch(HTTPRequest(url: dropping.baseURL), retry: Self.quick).text == "fine")
        #expect(dropping.requests.count == 2)
    }

    /// The waits are the client's clock's (the workspace's: tests wait for nothing), and a
    /// gateway's Retry-After as an HTTP date is read against it.
    @Test func theWaitsAreTheClocksAndARetryAfterDateIsHonoured() async throws {
        let clock = TestClock()
        let count = Counter()
        let busy = try TestHTTPServer { _, response in
            if count.next() == 1 {
                // Two seconds after the test clock's start (2026-01-01T00:00:00Z).
                response.send(status: 503, headers: [("Retry-After", "Thu, 01 Jan 2026 00:00:02 GMT")], text: "busy")
            } else {
                response.send(text: "fine")
            }
        }
        let response = try await HTTPClient(clock: clock.clock).fetch(HTTPRequest(url: busy.baseURL))
        #expect(response.text == "fine")
        #expect(clock.sleeps == [2])
    }

    @Test(arguments: HTTPClientTests.transports)
    func aGetGivesUpAfterItsAttempts(_ transport: HTTPClient.Transport) async throws {
        let busy = try Self.flakyServer(failures: 10)
        let response = try await HTTPClient(transport: transport).fetch(HTTPRequest(url: busy.baseURL), retry: Self.quick)
        #expect(response.status == 503, "the last answer is the one reported")
        #expect(busy.requests.count == 3)
    }

    @Test(arguments: HTTPClientTests.transports)
    func aPostIsSentOnceWhateverHappens(_ transport: HTTPClient.Transport) async throws {
        let client = HTTPClient(transport: transport)
        let busy = try Self.flakyServer(failures: 10)
        let request = HTTPRequest.json(url: busy.baseURL + "/webhook", body: ["chatInput": "deploy"])
        #expect(try await client.fetch(request, retry: Self.quick).status == 503)
        #expect(busy.requests.count == 1)
        let dropping = try Self.flakyServer(failures: 10, drop: true)
        await #expect(throws: HarkError.self) {
            try await client.fetch(HTTPRequest.json(url: dropping.baseURL, body: ["chatInput": "deploy"]), retry: Self.quick)
        }
        #expect(dropping.requests.count == 1, "it may have reached the agent: not sent again")
    }

    @Test func retryAfterIsHonouredWhenShort() {
        let policy = RetryPolicy.standard
        func wait(_ status: Int, _ retryAfter: String?, afterTry: Int = 1) -> Double? {
            policy.verdict(status: status, retryAfter: retryAfter, afterTry: afterTry, host: "h", now: now).wait
        }
        #expect(wait(503, "2") == 2)
        #expect(wait(503, "3600") == 0.25)
        #expect(wait(429, nil) == nil, "rate limits are the backends' to explain")
        #expect(wait(503, nil, afterTry: 3) == nil)
        #expect(policy.verdict(status: 503, retryAfter: nil, method: "POST", afterTry: 1, host: "h", now: now) == .fail(note: nil))
        #expect(policy.verdict(transport: .network(host: "h", reason: NetworkReason.refused), afterTry: 1, host: "h").wait == 0.25)
        #expect(policy.verdict(transport: .network(host: "h", reason: "unknown host"), afterTry: 1, host: "h").wait == nil)
    }

    @Test func monicasRateLimitWaitsRetryAfterInSecondsOrAsADate() {
        #expect(policy.verdict(status: 429, retryAfter: "7", afterTry: 1, host: "h", now: now)
            == .retry(after: 7, status: "rate limited; retrying in 7s"))
        #expect(policy.verdict(status: 429, retryAfter: "Thu, 01 Jan 2026 00:00:30 GMT", afterTry: 1,
                               host: "h", now: now) == .retry(after: 30, status: "rate limited; retrying in 30s"))
        #expect(policy.verdict(status: 429, retryAfter: nil, afterTry: 2, host: "h", now: now)
            == .retry(after: 2, status: "rate limited; retrying in 2s"))
        #expect(policy.verdict(status: 429, retryAfter: "61", afterTry: 1, host: "h", now: now)
            == .fail(note: "Monica asks to wait 61s, more than max_wait (60s): try again then"))
        #expect(policy.verdict(status: 429, retryAfter: "1", afterTry: 3, host: "h", now: now)
            == .fail(note: "still rate limited after 3 tries: wait a minute"))
        #expect(HTTPDate.retryAfter("soon", now: now) == nil)
        #expect(HTTPDate.retryAfter("Wed, 31 Dec 2025 23:00:00 GMT", now: now) == 0, "a past date waits nothing")
    }

    @Test func monicasServerErrorsBackOffDoublingAndItsOwnAnswersDoNot() {
        var custom = RetryPolicy.monica
        custom.tries = 4
        custom.firstDelay = 0.25
        #expect((1...3).map { custom.backoff(afterTry: $0) } == [0.25, 0.5, 1])
        #expect(policy.verdict(status: 503, retryAfter: nil, afterTry: 1, host: "h", now: now)
            == .retry(after: 1, status: "h answered HTTP 503; retrying in 1s (try 2 of 3)"))
        #expect(policy.verdict(status: 503, retryAfter: nil, afterTry: 3, host: "h", now: now)
            == .fail(note: "gave up after 3 tries"))
        #expect(policy.verdict(status: 500, retryAfter: nil, afterTry: 1, host: "h", now: now, considered: true)
            == .fail(note: nil))
        for status in [302, 400, 401, 404, 422] {
            #expect(policy.verdict(status: status, retryAfter: "1", afterTry: 1, host: "h", now: now)
                == .fail(note: nil))
        }
        var once = RetryPolicy.monica
        once.tries = 1
        #expect(once.verdict(status: 503, retryAfter: nil, afterTry: 1, host: "h", now: now) == .fail(note: nil))
    }

    @Test func monicaRetriesNetworkFailuresAndTimeoutsNotOtherErrors() {
        #expect(policy.verdict(transport: .network(host: "h", reason: "connection refused"), afterTry: 2, host: "h")
            == .retry(after: 2, status: "cannot reach h: connection refused; retrying in 2s (try 3 of 3)"))
        #expect(policy.verdict(transport: .timeout(host: "h", phase: "connecting", seconds: 10), afterTry: 1, host: "h")
            == .retry(after: 1, status: "h timed out; retrying in 1s (try 2 of 3)"))
        #expect(policy.verdict(transport: .secret(reference: "env:X", reason: "unset"), afterTry: 1, host: "h") == .fail(note: nil))
    }
}
