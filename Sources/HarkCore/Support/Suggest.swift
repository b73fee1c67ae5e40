/// "Did you mean …?" by edit distance.
public enum Suggest {
    public static func closest(to word: String, in candidates: [String]) -> String? {
        let lowered = word.lowercased()
        let scored = candidates.map { ($0, distance(lowered, $0.lowercased())) }
        guard let best = scored.min(by: { $0.1 < $1.1 || ($0.1 == $1.1 && $0.0 < $1.0) }) else { return nil }
        let limit = max(1, min(3, word.count / 3 + 1))
        if best.1 <= limit { return best.0 }
        // A unique prefix also counts ("/thr" → "/threads").
        let prefixed = candidates.filter { $0.lowercased().hasPrefix(lowered) }
        return prefixed.count == 1 ? prefixed[0] : nil
    }

    /// Levenshtein distance.
    public static func distance(_ left: String, _ right: String) -> Int {
        let a = Array(left)
        let b = Array(right)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}

extension StringProtocol {
    /// The lines of a text, split at "\n", "\r\n" or "\r". (`split(separator: "\n")` misses
    /// "\r\n", which Swift counts as one Character.)
    public func lineSlices(keepingEmpty: Bool = true) -> [SubSequence] {
        split(omittingEmptySubsequences: !keepingEmpty, whereSeparator: \.isNewline)
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs. Foundation's `trimmingCharacters(in:)`
    /// builds ICU character sets on first use, a few milliseconds of every start-up.
    public var trimmingSpaces: String { trimming { $0 == " " || $0 == "\t" } }

    /// Without leading and trailing whitespace, newlines included.
    public var trimmed: String { trimming { $0.isWhitespace } }

    /// Without leading and trailing line breaks.
    public var trimmingNewlines: String { trimming { $0.isNewline } }

    func trimming(_ isTrimmed: (Character) -> Bool) -> String {
        guard let first = firstIndex(where: { !isTrimmed($0) }) else { return "" }
        let last = lastIndex(where: { !isTrimmed($0) })!
        return String(self[first...last])
    }
}
