import FoundationEssentials

/// What a setting's value must be. Each kind declares it beside the setting (`SettingSpec`), and
/// every value written in the config is checked when the config loads, so a typo in
/// `max_tokens` is one error naming the file's line (exit 3) before anything is sent, not a
/// failure at the first message. The backends still read values through `SessionConfig.int`
/// and friends, which give the same words for values set at run time (`/set`).
public enum SettingType: Sendable, Equatable {
    /// Anything: a name, a URL, a path, a secret reference; the kind reads it.
    case text
    case whole(ClosedRange<Int>)
    case number(ClosedRange<Double>)
    /// on/off, yes/no, true/false, 1/0.
    case flag
    /// One of these words (compared without case).
    case choice([String])
    /// `none` or a proxy URL without a password in it (ProxySetting).
    case proxy

    public static let count = SettingType.whole(0...Int.max)
    public static let positiveCount = SettingType.whole(1...Int.max)
    public static let nonNegative = SettingType.number(0...Double.greatestFiniteMagnitude)
    public static let seconds = nonNegative

    /// Why `value` is not one of these, as the end of a sentence that starts with the key
    /// ("max_tokens must be …"), or nil when it is.
    public func problem(with value: String) -> String? {
        let trimmed = value.trimmingSpaces
        switch self {
        case .text:
            return nil
        case .whole(let range):
            if let number = Int(trimmed), range.contains(number) { return nil }
            return "must be " + Self.describe(range) + ", not \"\(MessageLine.clip(value, 40))\""
        case .number(let range):
            if let number = Double(trimmed), number.isFinite, range.contains(number) { return nil }
            return "must be " + Self.describe(range) + ", not \"\(MessageLine.clip(value, 40))\""
        case .flag:
            if Self.flag(trimmed) != nil { return nil }
            return "must be on or off, not \"\(MessageLine.clip(value, 40))\""
        case .choice(let words):
            if words.contains(trimmed.lowercased()) { return nil }
            return "must be " + Self.list(words) + ", not \"\(MessageLine.clip(value, 40))\""
        case .proxy:
            return ProxySetting.problem(with: value)
        }
    }

    /// on/off and the usual synonyms, or nil.
    public static func flag(_ text: String) -> Bool? {
        switch text.trimmingSpaces.lowercased() {
        case "on", "yes", "true", "1": return true
        case "off", "no", "false", "0": return false
        default: return nil
        }
    }

    static func describe(_ range: ClosedRange<Int>) -> String {
        switch (range.lowerBound, range.upperBound) {
        case (Int.min, Int.max): return "a whole number"
        case (let low, Int.max): return "a whole number, \(low) or more"
        default: return "a whole number from \(range.lowerBound) to \(range.upperBound)"
        }
    }

    static func describe(_ range: ClosedRange<Double>) -> String {
        let top = Double.greatestFiniteMagnitude
        switch (range.lowerBound, range.upperBound) {
        case (-top, top): return "a number"
        case (let low, top): return "a number, \(Self.format(low)) or more"
        default: return "a number from \(Self.format(range.lowerBound)) to \(Self.format(range.upperBound))"
        }
    }

    static func format(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    static func list(_ words: [String]) -> String {
        guard words.count > 1 else { return words.first ?? "" }
        return words.dropLast().joined(separator: ", ") + " or " + words.last!
    }
}
