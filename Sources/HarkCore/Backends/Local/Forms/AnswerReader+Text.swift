/// The words people put before a value: `I'm Ann Lee` for a name, `my destination is Lisbon`
/// for any short text. Only these are taken off; a text answer is otherwise kept as written.
enum TextLeadIn {
    static let nameLeadIns = ["my name is", "my name's", "the name is", "name is", "name's", "i'm", "i am", "im",
                              "this is", "it's", "it is", "call me", "they're", "they are", "their name is",
                              "his name is", "her name is", "he's", "he is", "she's", "she is"]

    /// The answer without its lead-in, or nil when it has none.
    static func strip(_ text: String, field: FormField) -> String? {
        let lowered = text.lowercased().replacingOccurrences(of: "’", with: "'")
        let label = field.label.lowercased()
        var leadIns = ["my \(label) is", "the \(label) is", "\(label) is", "my \(label):", "\(label):"]
        if isNameField(field) { leadIns += nameLeadIns }
        // The longest that fits (`my name is`, not `name is`).
        let fitting = leadIns.filter { lowered.hasPrefix($0 + " ") || lowered.hasPrefix($0 + ":") }
        if let leadIn = fitting.max(by: { $0.count < $1.count }) {
            var rest = String(text.dropFirst(leadIn.count)).trimmed
            if rest.hasPrefix(":") { rest = String(rest.dropFirst()).trimmed }
            for polite in [", please", " please", ", thanks", " thanks"] where rest.lowercased().hasSuffix(polite) {
                rest = String(rest.dropLast(polite.count)).trimmed
            }
            while let last = rest.last, last == "." || last == "!" { rest.removeLast() }
            return rest.isEmpty ? nil : rest
        }
        return nil
    }

    /// A person's name is asked for: its id or label says so.
    static func isNameField(_ field: FormField) -> Bool {
        field.type == .text && field.pattern == nil
            && (field.label.lowercased().contains("name") || field.id.lowercased().contains("name"))
    }
}

/// Text matching a field's pattern somewhere in the answer (`my number is e01234` for
/// `E[0-9]{5}`), in the letter case the pattern wants.
enum PatternReader {
    static func candidates(in text: String, field: FormField) -> [String] {
        guard let pattern = field.pattern, let (exact, loose) = RegexCache.shared.regexes(pattern) else { return [] }
        var found: [String] = []
        for match in text.matches(of: loose) {
            guard isWhole(match.range, in: text) else { continue }
            let piece = String(text[match.range]).trimmingEnds(" ,;:!?()\"'")
            for variant in [piece, piece.uppercased(), piece.lowercased()] where (try? exact.wholeMatch(in: variant)) != nil {
                if !found.contains(variant) { found.append(variant) }
                break
            }
        }
        return found
    }

    /// Not a piece of a longer word or number: `2.4.1` in `v12.4.1.5` is no version.
    static func isWhole(_ range: Range<String.Index>, in text: String) -> Bool {
        if range.lowerBound > text.startIndex {
            let before = text[text.index(before: range.lowerBound)]
            if before.isLetter || before.isNumber { return false }
        }
        if range.upperBound < text.endIndex {
            let after = text[range.upperBound]
            if after.isLetter || after.isNumber { return false }
            let next = text.index(after: range.upperBound)
            if (after == "." || after == ",") && next < text.endIndex && text[next].isNumber { return false }
        }
        return !range.isEmpty
    }
}

/// Compiled patterns, kept: compiling a regular expression costs more than reading an answer.
final class RegexCache: @unchecked Sendable {
    static let shared = RegexCache()
    private let cache = Locked<[String: (Regex<AnyRegexOutput>, Regex<AnyRegexOutput>)?]>([:])

    /// The pattern as written, and the same ignoring case (to find it in a sentence).
    func regexes(_ pattern: String) -> (Regex<AnyRegexOutput>, Regex<AnyRegexOutput>)? {
        if let known = cache.read({ $0[pattern] }) { return known }
        let made = (try? Regex(pattern)).map { ($0, $0.ignoresCase()) }
        cache.update { $0[pattern] = made }
        return made
    }
}

/// Email addresses anywhere in the answer: `reach me at ada@example.org please`.
enum EmailReader {
    static func candidates(in text: String) -> [String] {
        var found: [String] = []
        for token in text.split(whereSeparator: { $0.isWhitespace || $0 == "," || $0 == ";" }) where token.contains("@") {
            let piece = String(token).trimmingEnds("()[]<>\"'.:!?")
            if let address = FieldCheck.email(piece), !found.contains(where: { $0.lowercased() == address.lowercased() }) {
                found.append(address)
            }
        }
        return found
    }
}

extension String {
    /// Without these characters at either end.
    func trimmingEnds(_ set: String) -> String {
        var text = Substring(self)
        while let first = text.first, set.contains(first) { text = text.dropFirst() }
        while let last = text.last, set.contains(last) { text = text.dropLast() }
        return String(text)
    }
}
