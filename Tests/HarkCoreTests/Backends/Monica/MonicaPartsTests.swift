import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// The monica kind's pure parts: the retry rules, the JSON mapping, the formatting, the cache.
@Suite struct MonicaPartsTests {
    let now = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01T00:00:00Z
    let policy = MonicaRetryPolicy()

    @Test func aRateLimitWaitsRetryAfterInSecondsOrAsADate() {
        #expect(policy.verdict(status: 429, retryAfter: "7", monicaErrorCode: 34, afterTry: 1, host: "h", now: now)
            == .retry(after: 7, status: "rate limited; retrying in 7s"))
        #expect(policy.verdict(status: 429, retryAfter: "Thu, 01 Jan 2026 00:00:30 GMT", monicaErrorCode: 34, afterTry: 1,
                               host: "h", now: now) == .retry(after: 30, status: "rate limited; retrying in 30s"))
        #expect(policy.verdict(status: 429, retryAfter: nil, monicaErrorCode: 34, afterTry: 2, host: "h", now: now)
            == .retry(after: 2, status: "rate limited; retrying in 2s"))
        #expect(policy.verdict(status: 429, retryAfter: "61", monicaErrorCode: 34, afterTry: 1, host: "h", now: now)
            == .fail(note: "Monica asks to wait 61s, more than max_wait (60s): try again then"))
        #expect(policy.verdict(status: 429, retryAfter: "1", monicaErrorCode: 34, afterTry: 3, host: "h", now: now)
            == .fail(note: "still rate limited after 3 tries: wait a minute"))
        #expect(MonicaRetryPolicy.seconds(retryAfter: "soon", now: now) == nil)
        #expect(MonicaRetryPolicy.seconds(retryAfter: "Wed, 31 Dec 2025 23:00:00 GMT", now: now) == 0, "a past date waits nothing")
    }

    @Test func serverErrorsBackOffDoublingAndMonicasOwnAnswersDoNot() {
        let custom = MonicaRetryPolicy(tries: 4, firstDelay: 0.25, maxWait: 60)
        #expect((1...3).map { custom.backoff(afterTry: $0) } == [0.25, 0.5, 1])
        #expect(policy.verdict(status: 503, retryAfter: nil, monicaErrorCode: nil, afterTry: 1, host: "h", now: now)
            == .retry(after: 1, status: "h answered HTTP 503; retrying in 1s (try 2 of 3)"))
        #expect(policy.verdict(status: 503, retryAfter: nil, monicaErrorCode: nil, afterTry: 3, host: "h", now: now)
            == .fail(note: "gave up after 3 tries"))
        #expect(policy.verdict(status: 500, retryAfter: nil, monicaErrorCode: 40, afterTry: 1, host: "h", now: now)
            == .fail(note: nil))
        for status in [302, 400, 401, 404, 422] {
            #expect(policy.verdict(status: status, retryAfter: "1", monicaErrorCode: nil, afterTry: 1, host: "h", now: now)
                == .fail(note: nil))
        }
        let once = MonicaRetryPolicy(tries: 1, firstDelay: 1, maxWait: 60)
        #expect(once.verdict(status: 503, retryAfter: nil, monicaErrorCode: nil, afterTry: 1, host: "h", now: now) == .fail(note: nil))
    }

    @Test func networkFailuresAndTimeoutsRetryOtherErrorsDoNot() {
        #expect(policy.verdict(transport: .network(host: "h", reason: "connection refused"), afterTry: 2, host: "h")
            == .retry(after: 2, status: "cannot reach h: connection refused; retrying in 2s (try 3 of 3)"))
        #expect(policy.verdict(transport: .timeout(host: "h", phase: "connecting", seconds: 10), afterTry: 1, host: "h")
            == .retry(after: 1, status: "h timed out; retrying in 1s (try 2 of 3)"))
        #expect(policy.verdict(transport: .secret(reference: "env:X", reason: "unset"), afterTry: 1, host: "h") == .fail(note: nil))
    }

    @Test func theAPIAddressAndQueriesAreBuiltAsMonicaExpects() {
        for url in ["https://crm.example.com", "https://crm.example.com/", "https://crm.example.com/api", "https://crm.example.com/api/"] {
            #expect(MonicaClient.apiBase(for: url) == "https://crm.example.com/api")
        }
        #expect(MonicaClient.encode("email:jo+x&y z/é") == "email%3Ajo%2Bx%26y%20z%2F%C3%A9")
    }

    @Test func aPageReadsLaravelsMetaOrMakesDoWithout() throws {
        let json = try JSON.parse(#"{"data":[{"id":1,"name":"a"},{"id":2,"name":"b"}],"links":{},"meta":{"current_page":2,"last_page":3,"per_page":2,"to":4,"total":6}}"#)
        let page = try MonicaPage.parse(json, host: "h", item: MonicaTag.init)
        #expect(page.items.map(\.name) == ["a", "b"])
        #expect((page.currentPage, page.lastPage, page.shownSoFar, page.total) == (2, 3, 4, 6))
        #expect(page.hasNext)
        let bare = try MonicaPage.parse(try JSON.parse(#"{"data":[{"id":1,"name":"a"}]}"#), host: "h", item: MonicaTag.init)
        #expect((bare.currentPage, bare.lastPage, bare.shownSoFar, bare.total, bare.hasNext) == (1, 1, 1, 1, false))
        #expect(throws: HarkError.protocolViolation("h answered without Monica's \"data\" list; check the session's url")) {
            try MonicaPage.parse(try JSON.parse(#"{"success":{"message":"Welcome to Monica"}}"#), host: "h", item: MonicaTag.init)
        }
    }

    @Test func aPartialContactMapsWithWhatItHas() throws {
        // A partial contact (a relative without a record of their own) lacks most sections.
        let partial = try #require(MonicaContact(try JSON.parse(
            #"{"id":7,"first_name":"Ann","last_name":null,"is_partial":true,"information":{"dates":{"birthdate":{"is_age_based":true,"is_year_unknown":false,"date":"1990-01-01T00:00:00Z"}}}}"#)))
        #expect(partial.name == "Ann")
        #expect(partial.tags.isEmpty && partial.fields.isEmpty && partial.job == nil)
        #expect(partial.latestNotes == nil, "no notes key: the card asks for them")
        #expect(MonicaFormatting.describe(try #require(partial.birthdate), today: "2026-01-01") == "about 1990 (from an age)")
        let nested = try #require(MonicaContact(try JSON.parse(
            #"{"id":8,"first_name":"","complete_name":"","information":{"career":{"job":" ","company":{"name":"Initech"}}},"notes":[]}"#)))
        #expect(nested.name == "#8")
        #expect(nested.job == nil && nested.company == "Initech")
        #expect(nested.latestNotes == [])
        #expect(MonicaContact(try JSON.parse(#"{"first_name":"no id"}"#)) == nil)
    }

    @Test func agesCountFromTheBirthday() throws {
        let born = try #require(MonicaDate(["date": "1985-03-14T00:00:00Z", "is_age_based": false, "is_year_unknown": false]))
        #expect(MonicaFormatting.describe(born, today: "2026-03-13") == "1985-03-14 (40)")
        #expect(MonicaFormatting.describe(born, today: "2026-03-14") == "1985-03-14 (41)")
        #expect(MonicaFormatting.describe(born, today: nil) == "1985-03-14")
        #expect(MonicaDate(["date": nil]) == nil)
    }

    @Test func footersSayHowFarTheListGoes() {
        #expect(MonicaFormatting.footer(page: 1, shown: 15, total: 40, hasNext: true, noun: "contact")
            == "15 of 40 contacts · /more for the next page")
        #expect(MonicaFormatting.footer(page: 3, shown: 40, total: 40, hasNext: false, noun: "contact") == "40 of 40 contacts")
        #expect(MonicaFormatting.footer(page: 1, shown: 1, total: 1, hasNext: false, noun: "activity") == "1 activity")
        #expect(MonicaFormatting.footer(page: 1, shown: 2, total: 2, hasNext: false, noun: "activity") == "2 activities")
    }

    @Test func multiLineAndHostileTextStaysInItsColumn() {
        #expect(MonicaFormatting.entry(lead: "2025-01-01  ", body: "first\r\n  second\n\nthird\u{1B}[2J")
            == ["2025-01-01    first", "              second", "", "              third [2J"])
        let table = MonicaFormatting.contactTable([MonicaContact(["id": 1, "first_name": "李", "last_name": "小龍\t"])!,
                                                   MonicaContact(["id": 22, "first_name": "Al"])!])
        #expect(table == ["id  name      nickname  tags", "1   李 小龍", "22  Al"], "no company / job column when every row lacks one")
    }

    @Test func theCacheKeepsAnswersForItsLifetimeAndDropsTheOldestWhenFull() {
        let clock = TestClock()
        let cache = MonicaCache(lifetime: 300, capacity: 2, now: clock.clock.now)
        cache.store(["a": 1], for: "a")
        clock.advance(by: 1)
        cache.store(["b": 2], for: "b")
        #expect(cache.value(for: "a") == ["a": 1])
        clock.advance(by: 1)
        cache.store(["c": 3], for: "c")
        #expect(cache.value(for: "a") == nil, "the oldest went when a third came")
        #expect(cache.count == 2)
        clock.advance(by: 299)
        #expect(cache.value(for: "b") == nil)
        #expect(cache.value(for: "c") == ["c": 3])
        #expect(cache.clear() == 1)
        let off = MonicaCache(lifetime: 0, now: clock.clock.now)
        off.store(["a": 1], for: "a")
        #expect(off.value(for: "a") == nil && !off.isEnabled)
    }
}
