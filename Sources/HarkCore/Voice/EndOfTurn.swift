import FoundationEssentials

/// When a spoken turn of the hands-free loop is over: after `pause` seconds without new words
/// or sound, and longer while the words so far stop on something that cannot end a sentence
/// ("and", "the", a comma), so a speaker who stops to think is not cut off. A turn with no
/// words, or with less speech than a cough, is not a message.
public struct EndOfTurn: Sendable, Equatable {
    /// Seconds of quiet after speech that end the turn (`listen_pause`).
    public var pause: Double
    /// Extra seconds of quiet while the phrase is unfinished.
    public var unfinishedExtra: Double
    /// Words a sentence does not end on, lowercased.
    public var unfinishedWords: Set<String>

    /// Less speech than this (seconds, summed over the words) is a cough or a click.
    public static let shortestSpeech = 0.3

    /// Only words that practically never end a sentence: a word that may ("turn it on", "tell
    /// her", "where they are") would make many finished turns wait longer.
    public static let englishUnfinishedWords: Set<String> = [
        "and", "or", "but", "so", "because", "if", "than", "the", "a", "an", "to", "of", "for", "with", "from",
        "into", "my", "your", "our", "their", "um", "uh", "er",
    ]

    public init(pause: Double, unfinishedExtra: Double? = nil, unfinishedWords: Set<String> = Self.englishUnfinishedWords) {
        self.pause = pause
        self.unfinishedExtra = unfinishedExtra ?? max(1, pause)
        self.unfinishedWords = unfinishedWords
    }

    /// The words so far stop where a sentence cannot end.
    public func isUnfinished(_ text: String) -> Bool {
        let trimmed = text.trimmingSpaces
        guard let last = trimmed.last else { return false }
        if [",", ";", ":", "-", "–", "—"].contains(last) { return true }
        guard let word = trimmed.split(separator: " ").last else { return false }
        return unfinishedWords.contains(word.lowercased().filter { !$0.isPunctuation })
    }

    /// Seconds of quiet that end a turn whose words so far are `text`.
    public func pauseNeeded(after text: String) -> Double {
        isUnfinished(text) ? pause + unfinishedExtra : pause
    }

    /// Nothing a person meant to say: no words, or less than `shortestSpeech` of them.
    public static func isTooShort(_ recognition: Recognition) -> Bool {
        if recognition.text.isEmpty { return true }
        let spoken = recognition.words.filter { $0.word != "[unk]" }
        // Without word times (a recogniser that gives none) the words alone decide.
        guard spoken.contains(where: { $0.end > $0.start }) else { return false }
        return spoken.reduce(0) { $0 + max(0, $1.end - $1.start) } < shortestSpeech
    }
}
