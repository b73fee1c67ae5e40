import FoundationEssentials
import Glibc

/// A calendar date without a time or zone, as forms ask for them. Arithmetic by day numbers
/// (Howard Hinnant's civil-days algorithm), so no calendar library is needed.
public struct FormDate: Sendable, Equatable, Comparable, CustomStringConvertible {
    public var year: Int
    public var month: Int
    public var day: Int

    public init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month), day >= 1,
              day <= Self.daysIn(month: month, year: year) else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// Exactly `YYYY-MM-DD`.
    public init?(iso text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]) else { return nil }
        self.init(year: year, month: month, day: day)
    }

    /// The local date at `date`.
    public static func local(_ date: Date) -> FormDate {
        var seconds = time_t(date.timeIntervalSince1970)
        var parts = tm()
        localtime_r(&seconds, &parts)
        return FormDate(year: Int(parts.tm_year) + 1900, month: Int(parts.tm_mon) + 1, day: Int(parts.tm_mday))!
    }

    public var description: String {
        func pad(_ number: Int, _ width: Int) -> String {
            let digits = String(number)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
    }

    public static func < (left: FormDate, right: FormDate) -> Bool {
        (left.year, left.month, left.day) < (right.year, right.month, right.day)
    }

    static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01.
    var dayNumber: Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    init(dayNumber: Int) {
        let z = dayNumber + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shifted = (5 * dayOfYear + 2) / 153
        day = dayOfYear - (153 * shifted + 2) / 5 + 1
        month = shifted < 10 ? shifted + 3 : shifted - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    }

    public func adding(days: Int) -> FormDate { FormDate(dayNumber: dayNumber + days) }

    static let monthNames = ["january", "february", "march", "april", "may", "june", "july", "august", "september",
                             "october", "november", "december"]

    /// What people type for a date: `2026-03-07` (or `2026/3/7`), `7.3.2026`, `7 March 2026`,
    /// `March 7, 2026`, `today`, `yesterday`, `tomorrow`, `3 days ago`. Slashed day-month
    /// orders are ambiguous (3/7 is March in one country and July in another) and refused.
    public static func parse(_ answer: String, today: FormDate) -> FormDate? {
        let text = answer.trimmed.lowercased()
        switch text {
        case "today", "now": return today
        case "yesterday": return today.adding(days: -1)
        case "tomorrow": return today.adding(days: 1)
        default: break
        }
        let words = text.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
        if words.count == 3, words[2] == "ago", let count = Int(words[0]), count >= 0, ["day", "days"].contains(words[1]) {
            return today.adding(days: -count)
        }
        for separator: Character in ["-", "/"] {
            let parts = text.split(separator: separator, omittingEmptySubsequences: false)
            if parts.count == 3, parts[0].count == 4, let year = Int(parts[0]), let month = Int(parts[1]),
               let day = Int(parts[2]) {
                return FormDate(year: year, month: month, day: day)
            }
        }
        let dotted = text.split(separator: ".", omittingEmptySubsequences: false)
        if dotted.count == 3, dotted[2].count == 4, let day = Int(dotted[0]), let month = Int(dotted[1]),
           let year = Int(dotted[2]) {
            return FormDate(year: year, month: month, day: day)
        }
        return named(words)
    }

    /// `7 March 2026`, `March 7th 2026`, `7 mar 2026`.
    static func named(_ words: [String]) -> FormDate? {
        guard words.count == 3 else { return nil }
        var month: Int?
        var numbers: [String] = []
        for word in words {
            if word.count >= 3, let index = monthNames.firstIndex(where: { $0.hasPrefix(word.trimmingSuffixDot) }) {
                guard month == nil else { return nil }
                month = index + 1
            } else {
                numbers.append(word.withoutOrdinal)
            }
        }
        guard let month, numbers.count == 2 else { return nil }
        guard let first = Int(numbers[0]), let second = Int(numbers[1]) else { return nil }
        let (day, year) = numbers[1].count == 4 ? (first, second) : (second, first)
        return FormDate(year: year, month: month, day: day)
    }
}

private extension String {
    var trimmingSuffixDot: String { hasSuffix(".") ? String(dropLast()) : self }

    /// "7th" → "7".
    var withoutOrdinal: String {
        for suffix in ["st", "nd", "rd", "th"] where hasSuffix(suffix) && dropLast(2).allSatisfy(\.isNumber) && count > 2 {
            return String(dropLast(2))
        }
        return self
    }
}
