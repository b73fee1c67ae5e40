/// What a model is asked for `/ask`: the question and the numbered passages, to answer from
/// them only and cite them as `[1]`; and the sources kept under the answer.
public enum AskPrompt {
    /// A passage sent to a model is cut here: a few passages must fit a small model's context.
    static let passageLimit = 2_000

    public static func prompt(question: String, passages: [(Passage, String)]) -> String {
        var lines = [
            "Answer the question from the numbered passages below, taken from the user's own documents and notes. "
                + "Cite each passage you use by its number in brackets, like [1]. If the passages do not hold the answer, "
                + "say so in one sentence instead of making one up.",
            "",
        ]
        for (number, (passage, text)) in passages.enumerated() {
            lines.append("[\(number + 1)] \(label(passage))")
            let clipped = text.count > passageLimit ? String(text.prefix(passageLimit)) + "…" : text
            lines.append(clipped.trimmed)
            lines.append("")
        }
        lines.append("Question: " + question)
        return lines.joined(separator: "\n")
    }

    /// `booking.md:4-9 (Booking › Train)`.
    static func label(_ passage: Passage) -> String {
        passage.citation + (passage.heading.isEmpty ? "" : " (\(passage.heading))")
    }

    /// The mark under an answer that does not stand on the passages it was given.
    public static let notFound = "· not found in your documents"
}
