import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// A GET is tried again after a busy gateway or a reset; a POST (a message that may have
/// reached the agent) never is.
@Suite struct RetryPolicyTests {
    /// Fast waits: the behaviour under test is the count of attempts, not the time.
    static let quick = RetryPolicy(delays: [0.01, 0.02])

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
        let request = HTTPRequest(url: "http://127.0.0.1:1/")
        let policy = RetryPolicy.standard
        #expect(policy.delay(after: HTTPResponseHead(status: 503, headers: ["retry-after": "2"]), request: request, attempt: 0) == 2)
        #expect(policy.delay(after: HTTPResponseHead(status: 503, headers: ["retry-after": "3600"]), request: request, attempt: 0) == 0.25)
        #expect(policy.delay(after: HTTPResponseHead(status: 429, headers: [:]), request: request, attempt: 0) == nil,
                "rate limits are the backends' to explain")
        #expect(policy.delay(after: HTTPResponseHead(status: 503, headers: [:]), request: request, attempt: 2) == nil)
        #expect(policy.delay(after: HarkError.network(host: "h", reason: NetworkReason.refused), request: request, attempt: 0) == 0.25)
        #expect(policy.delay(after: HarkError.network(host: "h", reason: "unknown host"), request: request, attempt: 0) == nil)
    }
}
