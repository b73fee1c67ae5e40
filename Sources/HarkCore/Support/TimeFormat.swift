import FoundationEssentials
import Glibc

/// Dates as people read them, via strftime: Foundation's DateFormatter would load ICU, which
/// costs start-up time and memory for no gain here.
public enum TimeFormat {
    /// What a date that was never set shows as (a row's missing time read as 0): never 1970-01-01.
    public static let unknown = "–"

    /// Whether `date` is a time at all rather than a missing one read as the epoch.
    static func isKnown(_ date: Date) -> Bool { date.timeIntervalSince1970 >= 86_400 }

    public static func format(_ date: Date, _ pattern: String = "%Y-%m-%d %H:%M") -> String {
        guard isKnown(date) else { return unknown }
        var seconds = time_t(date.timeIntervalSince1970)
        var parts = tm()
        localtime_r(&seconds, &parts)
        var buffer = [CChar](repeating: 0, count: 64)
        let count = strftime(&buffer, buffer.count, pattern, &parts)
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// ISO 8601 in UTC, for JSON output.
    public static func iso8601(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        var buffer = [CChar](repeating: 0, count: 32)
        let count = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%SZ", &parts)
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// "14:05" today, "Mar 3 14:05" this year, else the full date.
    /// One local-time conversion of each date and one strftime: a search lists twenty of
    /// these, and five conversions and an NSString bridge apiece showed in its profile.
    public static func short(_ date: Date, now: Date = HarkClock.system.now()) -> String {
        guard isKnown(date) else { return unknown }
        let when = localParts(date), today = localParts(now)
        if when.tm_year == today.tm_year && when.tm_yday == today.tm_yday { return format(date, "%H:%M") }
        if when.tm_year == today.tm_year { return format(date, "%b %-d %H:%M") }  // %-d: glibc's unpadded day
        return format(date, "%Y-%m-%d")
    }

    private static func localParts(_ date: Date) -> tm {
        var seconds = time_t(date.timeIntervalSince1970)
        var parts = tm()
        localtime_r(&seconds, &parts)
        return parts
    }

    /// "1.4s", "2m05s".
    public static func duration(_ seconds: Double) -> String {
        if seconds < 60 { return String(cFormat: "%.1fs", seconds) }
        let whole = Int(seconds)
        if whole < 3600 { return String(cFormat: "%dm%02ds", whole / 60, whole % 60) }
        return String(cFormat: "%dh%02dm", whole / 3600, (whole % 3600) / 60)
    }
}
