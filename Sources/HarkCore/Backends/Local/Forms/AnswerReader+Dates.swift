/// Dates inside a sentence, relative to today: `last friday`, `3 days ago`, `a week ago`,
/// `Nov 2`, `2 November 2026`, `the 2nd`, `2.11.2026`, `3/7/2026` (both readings, asked back
/// when both fit). A date without its year or month means the nearest that fits the field.
enum DateReader {
    static func candidates(in text: String, today: FormDate) -> [AnswerReader.Candidate] {
        let tokens = text.lowercased().split(whereSeparator: \.isWhitespace).map { String($0).trimmingEnds("(),;!?\"':") }
        var found: [AnswerReader.Candidate] = []
        var index = 0
        while index < tokens.count {
            if let (candidate, used) = match(tokens, at: index, today: today) {
                found.append(candidate)
                index += used
            } else {
                index += 1
            }
        }
        return found
    }

    /// The date expression starting at `index`, and how many words it takes.
    static func match(_ tokens: [String], at index: Int, today: FormDate) -> (AnswerReader.Candidate, Int)? {
        func token(_ offset: Int) -> String { index + offset < tokens.count ? tokens[index + offset] : "" }
        let word = token(0).trimmingEnds(".")
        for (phrase, days) in [(["the", "day", "before", "yesterday"], -2), (["day", "before", "yesterday"], -2),
                               (["the", "day", "after", "tomorrow"], 2), (["day", "after", "tomorrow"], 2)]
        where (0..<phrase.count).allSatisfy({ token($0).trimmingEnds(".") == phrase[$0] }) {
            return (.one(.date(today.adding(days: days))), phrase.count)
        }
        switch word {
        case "today": return (.one(.date(today)), 1)
        case "yesterday": return (.one(.date(today.adding(days: -1))), 1)
        case "tomorrow": return (.one(.date(today.adding(days: 1))), 1)
        default: break
        }
        // `3 days ago`, `a week ago`, `in 2 weeks`.
        if let count = DateWords.count(word), let unit = DateWords.unit(token(1)), token(2).trimmingEnds(".") == "ago" {
            return (.one(.date(shift(today, by: -count, unit))), 3)
        }
        if word == "in", let count = DateWords.count(token(1)), let unit = DateWords.unit(token(2).trimmingEnds(".")) {
            return (.one(.date(shift(today, by: count, unit))), 3)
        }
        // `last friday`, `next monday`, `this wednesday`, `on friday`, `friday`.
        if ["last", "next", "this", "on", "past", "coming"].contains(word), let weekday = DateWords.weekday(token(1), qualified: true) {
            return (weekdayCandidate(weekday, qualifier: word, today: today), 2)
        }
        if let weekday = DateWords.weekday(token(0), qualified: false) {
            return (weekdayCandidate(weekday, qualifier: "", today: today), 1)
        }
        if let candidate = numeric(token(0), today: today) { return (candidate, 1) }
        if let (candidate, used) = named(Array(tokens[index...].prefix(4)), today: today) { return (candidate, used) }
        return nil
    }

    static func shift(_ today: FormDate, by count: Int, _ unit: DateWords.Unit) -> FormDate {
        switch unit {
        case .day: return today.adding(days: count)
        case .week: return today.adding(days: 7 * count)
        case .month, .year:
            let months = unit == .month ? count : 12 * count
            let total = today.year * 12 + (today.month - 1) + months
            let (year, month) = (total / 12, total % 12 + 1)
            return FormDate(year: year, month: month, day: min(today.day, FormDate.daysIn(month: month, year: year))) ?? today
        }
    }

    static func weekdayCandidate(_ weekday: Int, qualifier: String, today: FormDate) -> AnswerReader.Candidate {
        let current = today.weekday
        let back = (current - weekday + 7) % 7
        let ahead = (weekday - current + 7) % 7
        switch qualifier {
        case "last", "past": return .one(.date(today.adding(days: back == 0 ? -7 : -back)))
        case "next", "coming": return .one(.date(today.adding(days: ahead == 0 ? 7 : ahead)))
        case "this": return .one(.date(today.adding(days: weekday - current)))
        default: return .nearest([.date(today.adding(days: -back)), .date(today.adding(days: ahead == 0 ? 7 : ahead))])
        }
    }

    /// `2026-03-07`, `2026/3/7`, `7.3.2026`, `7.3.26`, `7.3.`, `3/7/2026`.
    static func numeric(_ token: String, today: FormDate) -> AnswerReader.Candidate? {
        guard let first = token.first, first.isNumber else { return nil }
        for separator: Character in ["-", "/"] {
            let parts = token.split(separator: separator, omittingEmptySubsequences: false)
            if parts.count == 3, parts[0].count == 4, let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]) {
                return FormDate(year: year, month: month, day: day).map { .one(.date($0)) }
            }
        }
        let dotted = token.split(separator: ".", omittingEmptySubsequences: false)
        if dotted.count == 3 || (dotted.count == 4 && dotted[3].isEmpty), let day = Int(dotted[0]), let month = Int(dotted[1]) {
            if dotted[2].isEmpty { return partial(day: day, month: month, today: today) }
            guard let year = fullYear(dotted[2]) else { return nil }
            return FormDate(year: year, month: month, day: day).map { .one(.date($0)) }
        }
        let slashed = token.split(separator: "/", omittingEmptySubsequences: false)
        if slashed.count == 3, let first = Int(slashed[0]), let second = Int(slashed[1]), let year = fullYear(slashed[2]) {
            // 3/7/2026 is the 3rd of July in most of the world and March 7 in the US.
            let readings = [FormDate(year: year, month: second, day: first), FormDate(year: year, month: first, day: second)]
                .compactMap { $0 }.map(FormValue.date)
            return readings.isEmpty ? nil : .either(readings)
        }
        return nil
    }

    static func fullYear(_ text: Substring) -> Int? {
        guard let number = Int(text) else { return nil }
        switch text.count {
        case 4: return number
        case 2: return 2000 + number
        default: return nil
        }
    }

    /// A day and month without a year: that date in the year before, this year or the next.
    static func partial(day: Int, month: Int, today: FormDate) -> AnswerReader.Candidate? {
        let dates = (today.year - 1...today.year + 1).compactMap { FormDate(year: $0, month: month, day: day) }
        return dates.isEmpty ? nil : .nearest(dates.map(FormValue.date))
    }

    /// `2 Nov`, `2nd of November 2026`, `Nov 2`, `November 2nd, 2026`, `the 2nd`.
    static func named(_ words: [String], today: FormDate) -> (AnswerReader.Candidate, Int)? {
        func word(_ index: Int) -> String { index < words.count ? words[index] : "" }
        func year(_ index: Int) -> Int? {
            let text = word(index).trimmingEnds(".")
            return text.count == 4 ? Int(text) : nil
        }
        func dated(day: Int, month: Int, yearAt index: Int, used: Int) -> (AnswerReader.Candidate, Int)? {
            if let year = year(index) {
                return FormDate(year: year, month: month, day: day).map { (.one(.date($0)), used + 1) }
            }
            return partial(day: day, month: month, today: today).map { ($0, used) }
        }
        var start = 0
        if word(0) == "the" { start = 1 }
        if let day = DateWords.day(word(start)) {
            if let month = DateWords.month(word(start + 1)) { return dated(day: day, month: month, yearAt: start + 2, used: start + 2) }
            if word(start + 1) == "of", let month = DateWords.month(word(start + 2)) {
                return dated(day: day, month: month, yearAt: start + 3, used: start + 3)
            }
            // `the 2nd`: that day of the month before, this one or the next.
            if start == 1, DateWords.isOrdinal(word(1)) {
                let dates = (-1...1).compactMap { offset -> FormDate? in
                    let total = today.year * 12 + today.month - 1 + offset
                    return FormDate(year: total / 12, month: total % 12 + 1, day: day)
                }
                return dates.isEmpty ? nil : (.nearest(dates.map(FormValue.date)), 2)
            }
            return nil
        }
        if start == 0, let month = DateWords.month(word(0)), let day = DateWords.day(word(1).trimmingEnds(",")) {
            return dated(day: day, month: month, yearAt: 2, used: 2)
        }
        return nil
    }
}

/// The words of dates: months, weekdays, counts, units.
enum DateWords {
    static let weekdays = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
    static let weekdayAbbreviations = ["mon": 0, "tue": 1, "tues": 1, "wed": 2, "thu": 3, "thur": 3, "thurs": 3, "fri": 4,
                                       "sat": 5, "sun": 6]
    /// Abbreviations that are also words (`I sat`, `the sun`): a weekday only after last, next…
    static let wordlike: Set<String> = ["sat", "sun", "wed"]

    /// `march`, `mar`, `mar.`, `sept`: 1 to 12.
    static func month(_ text: String) -> Int? {
        let word = text.trimmingEnds(".,")
        guard word.count >= 3 else { return nil }
        if word == "sept" { return 9 }
        return FormDate.monthNames.firstIndex { $0 == word || (word.count == 3 && $0.hasPrefix(word)) }.map { $0 + 1 }
    }

    /// Monday is 0.
    static func weekday(_ text: String, qualified: Bool) -> Int? {
        let word = text.trimmingEnds(".,")
        if let index = weekdays.firstIndex(of: word) { return index }
        if word.hasSuffix("s"), let index = weekdays.firstIndex(of: String(word.dropLast())), qualified { return index }
        guard let index = weekdayAbbreviations[word], qualified || !wordlike.contains(word) else { return nil }
        return index
    }

    /// `2`, `2nd`, `02`: a day of the month.
    static func day(_ text: String) -> Int? {
        var word = text.trimmingEnds(".,")
        if isOrdinal(word) { word.removeLast(2) }
        guard (1...2).contains(word.count), let day = Int(word), (1...31).contains(day) else { return nil }
        return day
    }

    static func isOrdinal(_ text: String) -> Bool {
        let word = text.trimmingEnds(".,")
        return word.count > 2 && ["st", "nd", "rd", "th"].contains(String(word.suffix(2))) && word.dropLast(2).allSatisfy(\.isNumber)
    }

    static let numberWords = ["a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                              "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12]

    static func count(_ text: String) -> Int? {
        if let number = Int(text), (0...3650).contains(number) { return number }
        return numberWords[text]
    }

    enum Unit { case day, week, month, year }

    static func unit(_ text: String) -> Unit? {
        switch text {
        case "day", "days": return .day
        case "week", "weeks": return .week
        case "month", "months": return .month
        case "year", "years": return .year
        default: return nil
        }
    }
}

extension FormDate {
    /// Monday is 0 (1970-01-01, day 0, was a Thursday).
    var weekday: Int { ((dayNumber + 3) % 7 + 7) % 7 }
}
