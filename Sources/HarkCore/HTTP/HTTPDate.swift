import FoundationEssentials
import Glibc

/// HTTP dates in any of their three historic forms ("Wed, 21 Oct 2026 07:28:00 GMT",
/// "Wednesday, 21-Oct-26 07:28:00 GMT", "Wed Oct 21 07:28:00 2026"), read by their tokens.
public enum HTTPDate {
    static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    public static func parse(_ text: String) -> Date? {
        var day: Int?, month: Int?, year: Int?, time: [Int]?
        for token in text.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "-" }) {
            if token.contains(":") {
                let parts = token.split(separator: ":").compactMap { Int($0) }
                if parts.count == 3 { time = parts }
            } else if let number = Int(token) {
                if token.count <= 2, day == nil {
                    day = number
                } else {
                    year = number < 70 ? 2000 + number : (number < 100 ? 1900 + number : number)
                }
            } else if month == nil, let index = months.firstIndex(of: token.prefix(3).lowercased()) {
                // No weekday's first three letters name a month, so "Wed" is skipped.
                month = index
            }
        }
        guard let day, let month, let year, let time else { return nil }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(time[0])
        parts.tm_min = Int32(time[1])
        parts.tm_sec = Int32(time[2])
        return Date(timeIntervalSince1970: Double(timegm(&parts)))
    }

    /// A Retry-After header as seconds from `now`: a number of seconds, or an HTTP date (a
    /// past one waits nothing); nil when there is none or it cannot be read. The one reader of
    /// it: the HTTP retry policy, Monica's and Nyla's rate limits.
    public static func retryAfter(_ value: String?, now: Date) -> Double? {
        guard let value = value?.trimmingSpaces, !value.isEmpty else { return nil }
        if let seconds = Double(value) { return seconds.isFinite ? max(0, seconds) : nil }
        guard let date = parse(value) else { return nil }
        return max(0, date.timeIntervalSince(now).rounded(.up))
    }
}
