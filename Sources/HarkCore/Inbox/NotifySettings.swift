import FoundationEssentials
import Glibc

/// How hark tells the user that something ended while they looked elsewhere: `notify` in
/// `[hark]` or in a session (the session's wins), and `quiet_hours`.
public struct NotifySettings: Sendable, Equatable {
    public enum Mode: String, Sendable, CaseIterable {
        /// The terminal's own notification where the terminal is known to show one (or hark
        /// runs in tmux or screen), else a desktop notification, else the bell.
        case auto
        /// Always the terminal's notification (OSC 777 or 9).
        case terminal
        /// Always `notify-send`, when there is a desktop session.
        case desktop
        /// The bell only.
        case bell
        case off
    }

    public var mode: Mode
    public var quietHours: QuietHours?

    public init(mode: Mode = .auto, quietHours: QuietHours? = nil) {
        self.mode = mode
        self.quietHours = quietHours
    }

    /// A session's settings, falling back on `[hark]`. Values were checked when the config loaded.
    public static func of(_ session: SessionConfig?, in config: Config) -> NotifySettings {
        func value(_ key: String) -> String? {
            (session?[key] ?? config.global[key]).flatMap { $0.trimmingSpaces.isEmpty ? nil : $0.trimmingSpaces.lowercased() }
        }
        return NotifySettings(mode: value("notify").flatMap(Mode.init(rawValue:)) ?? .auto,
                              quietHours: value("quiet_hours").flatMap(QuietHours.init(parsing:)))
    }

    public static let settingType = SettingType.choice(Mode.allCases.map(\.rawValue))
}

/// `22:00-07:00`: no notification between these local times (the notice above the prompt
/// still shows). A range past midnight wraps.
public struct QuietHours: Sendable, Equatable {
    public var start: Int
    public var end: Int

    public init?(parsing text: String) {
        let parts = text.split(separator: "-").map { $0.trimmingSpaces }
        guard parts.count == 2, let start = Self.minutes(parts[0]), let end = Self.minutes(parts[1]), start != end else { return nil }
        self.start = start
        self.end = end
    }

    static func minutes(_ text: String) -> Int? {
        let parts = text.split(separator: ":")
        guard parts.count == 2, let hours = Int(parts[0]), let minutes = Int(parts[1]),
              (0...23).contains(hours), (0...59).contains(minutes) else { return nil }
        return hours * 60 + minutes
    }

    /// Whether a minute of the day (0 to 1439) falls in the quiet hours.
    public func contains(minuteOfDay minute: Int) -> Bool {
        start < end ? (start <= minute && minute < end) : (minute >= start || minute < end)
    }

    public func contains(_ date: Date) -> Bool {
        var time = time_t(date.timeIntervalSince1970)
        var parts = tm()
        localtime_r(&time, &parts)
        return contains(minuteOfDay: Int(parts.tm_hour) * 60 + Int(parts.tm_min))
    }

    /// Why a value is not quiet hours, for the config check.
    public static func problem(with text: String) -> String? {
        QuietHours(parsing: text) == nil ? "must be two times of day, e.g. 22:00-07:00" : nil
    }
}

extension NotifySettings {
    /// Problems with `notify` and `quiet_hours` in `[hark]` and the sessions, as warnings (a
    /// session's `notify` is also checked as a choice when the config loads).
    public static func problems(in config: Config) -> [String] {
        var found: [String] = []
        if let mode = config.global["notify"], Mode(rawValue: mode.trimmingSpaces.lowercased()) == nil {
            found.append("[hark] notify " + (settingType.problem(with: mode) ?? "is unknown"))
        }
        let places = [("[hark]", config.global["quiet_hours"])] + config.sessions.map { ("session \($0.name)", $0["quiet_hours"]) }
        for (place, value) in places {
            if let value, let problem = QuietHours.problem(with: value) { found.append("\(place): quiet_hours \(problem)") }
        }
        return found
    }
}
