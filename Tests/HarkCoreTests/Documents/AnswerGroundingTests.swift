import Testing
@testable import HarkCore

/// When a model's /ask answer stands on its passages: it cites one, and the cited ones hold
/// its numbers and most of its words.
@Suite struct AnswerGroundingTests {
    static let texts = [
        "handbook.md:5-9 (Staff handbook › Travel › Expenses)\nExpense claims must be filed within 30 days of returning from a trip.",
        "handbook.md:14-15 (Staff handbook › Holidays)\nEveryone has 28 days of paid holiday a year.",
    ]

    @Test func citationsAreReadInTheirUsualShapes() {
        #expect(AnswerGrounding.citations(in: "Within 30 days [1].", count: 2) == [1])
        #expect(AnswerGrounding.citations(in: "See [2][1] and [1, 2].", count: 2) == [2, 1])
        #expect(AnswerGrounding.citations(in: "[3] is no passage, [0] neither; [a] is text", count: 2) == [])
        #expect(AnswerGrounding.citations(in: "no brackets at all", count: 2) == [])
    }

    @Test(arguments: [
        ("Expense claims must be filed within 30 days of returning [1].", AnswerGrounding.Verdict.grounded([1])),
        ("You have 28 days of paid holiday [2].", .grounded([2])),
        // The right words, the wrong passage cited.
        ("You have 28 days of paid holiday [1].", .notFound),
        // A number the passage does not hold.
        ("Claims must be filed within 60 days [1].", .notFound),
        // No citation at all.
        ("Within 30 days of returning.", .notFound),
        // SmolLM2-135M's answer from the issue: a label and the question echoed back.
        ("[2] wmdocs/policy.md:1-3 (Travel policy)\nQuestion: how long can I file expenses without incurring a penalty?", .notFound),
    ])
    func anAnswerStandsOnTheWordsOfWhatItCites(answer: String, verdict: AnswerGrounding.Verdict) {
        #expect(AnswerGrounding.check(answer, texts: Self.texts) == verdict)
    }
}
