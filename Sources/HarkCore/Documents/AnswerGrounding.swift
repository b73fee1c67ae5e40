/// Whether a model's `/ask` answer stands on the passages it was given: it cites at least one
/// of them (`[2]`), and the passages it cites hold its key words (its numbers all of them, its
/// other words most). A small model often cites a passage that says something else, or none;
/// then the answer is marked and the passages are shown, so a wrong answer is seen as one.
public enum AnswerGrounding {
    public enum Verdict: Equatable, Sendable {
        /// The passages cited, by their number (from 1), in the order first cited.
        case grounded([Int])
        case notFound
    }

    /// `texts` are the passages as the model read them, numbered from 1 in this order.
    public static func check(_ answer: String, texts: [String]) -> Verdict {
        let cited = citations(in: answer, count: texts.count)
        guard !cited.isEmpty else { return .notFound }
        let held = Set(tokens(cited.map { texts[$0 - 1] }.joined(separator: "\n"), skippingCitations: false))
        let words = keyWords(answer)
        let numbers = words.filter { $0.contains(where: \.isNumber) }
        guard numbers.allSatisfy(held.contains) else { return .notFound }
        let found = words.filter { word in
            let stem = stem(word)
            return held.contains { $0.hasPrefix(stem) }
        }.count
        return found * 5 >= words.count * 3 ? .grounded(cited) : .notFound
    }

    /// The passage numbers an answer cites, `[1]`, `[1, 3]` or `[2][3]`, each once, first
    /// citation first; numbers that name no passage are left out.
    public static func citations(in answer: String, count: Int) -> [Int] {
        var cited: [Int] = []
        var inside: String?
        for character in answer {
            if character == "[" {
                inside = ""
            } else if character == "]", let text = inside {
                for part in text.split(whereSeparator: { $0 == "," || $0 == " " }) {
                    if let number = Int(part), (1...max(count, 1)).contains(number), count > 0, !cited.contains(number) {
                        cited.append(number)
                    }
                }
                inside = nil
            } else if inside != nil {
                if character.isNumber || character == "," || character == " " { inside?.append(character) } else { inside = nil }
            }
        }
        return cited
    }

    /// The words that carry an answer's meaning: lower-cased, without its citations and the
    /// words every sentence has.
    static func keyWords(_ text: String) -> [String] {
        tokens(text, skippingCitations: true).filter { word in
            (word.count >= 3 || word.contains(where: \.isNumber)) && !stopWords.contains(word)
        }
    }

    /// Runs of letters and digits, lower-cased.
    static func tokens(_ text: String, skippingCitations: Bool) -> [String] {
        var words: [String] = []
        var current = ""
        var inCitation = false
        for character in text.lowercased() {
            if skippingCitations && (character == "[" || character == "]") {
                inCitation = character == "["
            } else if inCitation {
                continue
            } else if character.isLetter || character.isNumber {
                current.append(character)
                continue
            }
            if !current.isEmpty { words.append(current) }
            current = ""
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    /// A word without the ending that varies between the answer and the passage
    /// (`returning`, `returned` → `return`).
    static func stem(_ word: String) -> String {
        for suffix in ["ing", "ed", "es", "s", "ly"] where word.count - suffix.count >= 4 && word.hasSuffix(suffix) {
            return String(word.dropLast(suffix.count))
        }
        return word
    }

    static let stopWords: Set<String> = [
        "the", "and", "for", "are", "but", "not", "you", "your", "all", "any", "can", "her", "was", "one", "our", "out",
        "has", "have", "had", "his", "how", "its", "may", "who", "will", "with", "this", "that", "these", "those", "from",
        "they", "them", "their", "there", "what", "when", "where", "which", "while", "would", "should", "could", "about",
        "into", "than", "then", "also", "been", "being", "does", "did", "each", "more", "most", "must", "only", "other",
        "some", "such", "very", "were", "yes", "according", "passage", "passages", "answer", "question", "document",
        "documents", "says", "said", "based", "given", "here", "just", "like", "use", "used", "using",
    ]
}
