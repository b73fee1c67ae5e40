import Foundation
import Testing
@testable import HarkCore

/// The one reader of HTTP dates and Retry-After, shared by the retry policy, Monica and Nyla.
@Suite struct HTTPDateTests {
    @Test func httpDatesInAllThreeForms() {
        let expected = Date(timeIntervalSince1970: 1_445_412_480)  // 2015-10-21 07:28:00 UTC
        #expect(HTTPDate.parse("Wed, 21 Oct 2015 07:28:00 GMT") == expected)
        #expect(HTTPDate.parse("Wednesday, 21-Oct-15 07:28:00 GMT") == expected)
        #expect(HTTPDate.parse("Wed Oct 21 07:28:00 2015") == expected)
        #expect(HTTPDate.parse("soon") == nil)
    }

    @Test func retryAfterInSecondsOrAsADate() {
        let now = Date(timeIntervalSince1970: 1_445_412_480)
        #expect(HTTPDate.retryAfter("30", now: now) == 30)
        #expect(HTTPDate.retryAfter(" 0.5 ", now: now) == 0.5)
        #expect(HTTPDate.retryAfter("-4", now: now) == 0)
        #expect(HTTPDate.retryAfter("Wed, 21 Oct 2015 07:28:09 GMT", now: now) == 9)
        #expect(HTTPDate.retryAfter("Wed, 21 Oct 2015 07:00:00 GMT", now: now) == 0, "a past date waits nothing")
        #expect(HTTPDate.retryAfter("soon", now: now) == nil)
        #expect(HTTPDate.retryAfter("inf", now: now) == nil)
        #expect(HTTPDate.retryAfter(nil, now: now) == nil)
    }

    /// A gateway's 503 with an HTTP date: the transport's retry waits that long when it is
    /// short (it read only seconds before).
    @Test func theRetryPolicyHonoursADate() {
        let now = Date(timeIntervalSince1970: 1_445_412_480)
        #expect(RetryPolicy.standard.verdict(status: 503, retryAfter: "Wed, 21 Oct 2015 07:28:03 GMT", afterTry: 1, host: "h",
                                             now: now).wait == 3)
    }
}
