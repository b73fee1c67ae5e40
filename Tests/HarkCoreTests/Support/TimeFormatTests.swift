import Foundation
import Testing
@testable import HarkCore

@Suite struct TimeFormatTests {
    /// Local time, so only the shapes are fixed: the dates sit far from any day's edges.
    @Test func shortIsTheTimeTodayTheDayThisYearElseTheDate() throws {
        let now = Date(timeIntervalSince1970: 1_781_524_800)  // 2026-06-15 12:00 UTC
        let today = TimeFormat.short(now.addingTimeInterval(-3600), now: now)
        let thisYear = TimeFormat.short(now.addingTimeInterval(-12 * 86400), now: now)
        let lastYear = TimeFormat.short(now.addingTimeInterval(-300 * 86400), now: now)
        #expect(today.wholeMatch(of: /\d\d:\d\d/) != nil, "\(today)")
        #expect(thisYear.wholeMatch(of: /[A-Z][a-z]{2} [1-9]\d? \d\d:\d\d/) != nil, "\(thisYear): no padded day")
        #expect(lastYear.wholeMatch(of: /2025-\d\d-\d\d/) != nil, "\(lastYear)")
    }

    /// A time read as 0 (a missing column, Jenkins' 0 for a build not started) is no date.
    @Test func aMissingTimeIsNeverTheEpoch() {
        let now = Date(timeIntervalSince1970: 1_781_524_800)
        #expect(TimeFormat.short(Date(timeIntervalSince1970: 0), now: now) == "–")
        #expect(TimeFormat.format(Date(timeIntervalSince1970: 0)) == "–")
        #expect(!TimeFormat.format(Date(timeIntervalSince1970: 86_400 * 365)).hasPrefix("–"))
    }
}
