/// Cuts a reply that streams in as Markdown into sentences to speak, each as soon as it is
/// complete, so the first is heard while the rest is still being written. Fenced code blocks
/// become one short phrase ("code block"), URLs become "link", Markdown marks are not read.
/// Fed text in pieces of any size; the sentences are the same however it was cut.
public struct SentenceSplitter {
    /// What is said instead of a fenced code block; nil skips code blocks silently.
    public var codeBlockPhrase: String?
    /// A sentence longer than this is cut at a comma or a space, so speech does not wait long.
    public var maximumLength = 300

    /// The raw text of the line being received.
    private var line = ""
    /// How many characters of the line's speakable text have been handed out already.
    private var spokenInLine = 0
    /// Speakable text of earlier lines of the same paragraph, not yet a whole sentence.
    private var carry = ""
    private var fence: Character?

    public init(codeBlockPhrase: String? = "code block") {
        self.codeBlockPhrase = codeBlockPhrase
    }

    public mutating func feed(_ text: String) -> [String] {
        var sentences: [String] = []
        var rest = Substring(text)
        while let newline = rest.firstIndex(where: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) {
            line += rest[..<newline]
            sentences += endLine()
            rest = rest[rest.index(after: newline)...]
        }
        line += rest
        sentences += partialLine()
        return sentences
    }

    /// The reply ended: whatever is left is the last sentence.
    public mutating func finish() -> [String] {
        var sentences = endLine()
        sentences += Self.cleaned(carry).map { [$0] } ?? []
        carry = ""
        fence = nil
        return sentences
    }

    // MARK: Lines

    /// A whole line arrived.
    private mutating func endLine() -> [String] {
        defer {
            line = ""
            spokenInLine = 0
        }
        let start = SpeakableText.lineStart(Substring(line))
        if let open = fence {
            let body = line.drop(while: { $0 == " " || $0 == "\t" })
            if body.hasPrefix(String(repeating: open, count: 3)) { fence = nil }
            return []
        }
        if start == .fence {
            fence = line.first(where: { $0 == "`" || $0 == "~" })
            var sentences = flushCarry()
            if let phrase = codeBlockPhrase { sentences.append(phrase) }
            return sentences
        }
        var sentences: [String] = []
        if start == .block { sentences += flushCarry() }
        let spoken = Array(SpeakableText.line(Substring(line)))
        let unsaid = String(spoken[min(spokenInLine, spoken.count)...])
        if unsaid.trimmed.isEmpty {
            // A blank line ends a paragraph.
            if line.trimmed.isEmpty { sentences += flushCarry() }
            return sentences
        }
        carry = Self.join(carry, unsaid)
        let (complete, remainder) = Self.split(carry, atEnd: true, maximumLength: maximumLength)
        sentences += complete
        carry = remainder
        // A heading, list item or row, or a line ending like a sentence, is said as it is;
        // other lines may be a paragraph wrapped by hand, continued on the next line.
        if start == .block || Self.endsClause(carry) { sentences += flushCarry() }
        return sentences
    }

    /// Sentences already complete in the line still arriving.
    private mutating func partialLine() -> [String] {
        guard fence == nil else { return [] }
        let start = SpeakableText.lineStart(Substring(line))
        guard start == .text || start == .block else { return [] }
        var sentences: [String] = []
        if start == .block { sentences += flushCarry() }
        let spoken = Array(SpeakableText.line(Substring(line)))
        let offset = min(spokenInLine, spoken.count)
        let unsaid = String(spoken[offset...])
        let joined = Self.join(carry, unsaid)
        // Inside code, a link or a web address still arriving, "config." may go on as
        // "config.yaml": the end of what arrived is no sentence end there.
        let lastWord = line.split(separator: " ").last ?? ""
        let open = line.filter { $0 == "`" }.count % 2 == 1
            || line.lastIndex(of: "[").map { bracket in !line[bracket...].contains(")") } == true
            || (!(line.last?.isWhitespace ?? true) && SpeakableText.isURL(lastWord.drop(while: { $0 == "(" || $0 == "<" })))
        let (complete, remainder) = Self.split(joined, atEnd: !open, maximumLength: maximumLength)
        guard !complete.isEmpty else { return sentences }
        // Everything of the line but the remainder has been said (the remainder is the end of
        // the line's unsaid text, or reaches back into the carried text).
        let remainderCount = remainder.count
        if remainderCount <= unsaid.count {
            spokenInLine = spoken.count - remainderCount
            carry = ""
        } else {
            spokenInLine = offset
            carry = String(remainder.dropLast(unsaid.count))
        }
        return sentences + complete
    }

    private mutating func flushCarry() -> [String] {
        defer { carry = "" }
        return Self.cleaned(carry).map { [$0] } ?? []
    }

    static func join(_ first: String, _ second: String) -> String {
        guard !first.isEmpty, !second.isEmpty else { return first + second }
        return first.last!.isWhitespace || second.first!.isWhitespace ? first + second : first + " " + second
    }

    /// Worth saying: has a letter or a digit.
    static func cleaned(_ text: String) -> String? {
        let trimmed = text.trimmed
        return trimmed.contains(where: { $0.isLetter || $0.isNumber }) ? trimmed : nil
    }

    static func endsClause(_ text: String) -> Bool {
        guard let last = text.trimmed.last else { return false }
        return ".!?…:;。！？".contains(last)
    }

    // MARK: Sentence ends

    static let terminators: Set<Character> = [".", "!", "?", "…", "。", "！", "？"]
    /// Marks that end a sentence even with no space after them.
    static let wideTerminators: Set<Character> = ["。", "！", "？"]
    static let closers: Set<Character> = [")", "\"", "'", "”", "’", "»", "]", "*", "_"]
    static let abbreviations: Set<String> = ["e.g", "i.e", "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "vs", "st",
                                             "fig", "cf", "approx", "ca", "z.b", "bzw", "usw", "etc.al"]

    /// Whole sentences at the front of `text`, and what remains. `atEnd`: the text ends here
    /// for now; a sentence mark at its very end counts when it cannot be part of something
    /// longer ("3." may become "3.14", "e.g." is no end).
    static func split(_ text: String, atEnd: Bool, maximumLength: Int) -> ([String], String) {
        let characters = Array(text)
        var sentences: [String] = []
        var start = 0
        var index = 0
        while index < characters.count {
            let character = characters[index]
            if terminators.contains(character) {
                var end = index + 1
                while end < characters.count, terminators.contains(characters[end]) || closers.contains(characters[end]) { end += 1 }
                let followedBySpace = end < characters.count && characters[end].isWhitespace
                let atTextEnd = end == characters.count
                let word = lastWord(characters, before: index, from: start)
                var isEnd = wideTerminators.contains(character) || followedBySpace
                    || (atTextEnd && atEnd && mayEndAtTextEnd(character, word: word))
                if character == "." && isEnd && isAbbreviation(word) { isEnd = false }
                if isEnd {
                    if let sentence = cleaned(String(characters[start..<end])) { sentences.append(sentence) }
                    start = end
                    index = end
                    continue
                }
            }
            index += 1
            if index - start > maximumLength, let cut = softBreak(characters, from: start, to: index) {
                if let sentence = cleaned(String(characters[start..<cut])) { sentences.append(sentence) }
                start = cut
            }
        }
        return (sentences, String(characters[start...]))
    }

    static func lastWord(_ characters: [Character], before index: Int, from start: Int) -> String {
        var first = index
        while first > start, !characters[first - 1].isWhitespace { first -= 1 }
        return String(characters[first..<index])
    }

    static func isAbbreviation(_ word: String) -> Bool {
        let lowered = word.lowercased().trimming { $0 == "(" || $0 == "\"" }
        if lowered.count == 1, lowered.first!.isLetter { return true }  // an initial: "J. Smith"
        return abbreviations.contains(lowered)
    }

    /// A mark at the end of what has arrived so far: "!" and "?" end a sentence; "." only after
    /// a word (not a number, an initial, an abbreviation or a web address still arriving).
    static func mayEndAtTextEnd(_ mark: Character, word: String) -> Bool {
        guard mark == "." else { return true }
        guard word.count >= 2, word.contains(where: { $0.isLetter }) else { return false }
        if word.contains("/") || word.contains("@") || word.contains(".") { return false }
        return !isAbbreviation(word)
    }

    /// Where to cut an over-long sentence: after the last comma-like mark, else the last space.
    static func softBreak(_ characters: [Character], from start: Int, to end: Int) -> Int? {
        var space: Int?
        var index = end - 1
        while index > start {
            if characters[index].isWhitespace {
                if ",;:".contains(characters[index - 1]) { return index }
                if space == nil { space = index }
            }
            index -= 1
        }
        return space
    }
}
