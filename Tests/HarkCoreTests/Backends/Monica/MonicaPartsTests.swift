import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// The monica kind's pure parts: the JSON mapping, the formatting, the cache (its retry rules
/// are `RetryPolicy.monica`'s, in RetryPolicyTests).
@Suite struct MonicaPartsTests {
    let now = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01T00:00:00Z

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
            == ["2025-01-01    first", "              second", "", "              third␛[2J"])
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
