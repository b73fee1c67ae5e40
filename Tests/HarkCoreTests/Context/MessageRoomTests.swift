import Testing
@testable import HarkCore

/// What one new message may take of a known window, checked before it is sent.
@Suite struct MessageRoomTests {
    @Test func theRoomIsThePromptsLessTheSystemTextAndSummary() {
        // 2048 - 512 for the reply = 1536; "be brief" is 2 raw tokens + 4 of framing.
        let room = MessageRoom(budget: ContextBudget(window: 2048, maxTokens: nil), system: "be brief")
        #expect(room.allowance(summary: nil, estimator: TokenEstimator()) == 1536 - 6)
        let summary = ThreadSummary(text: String(repeating: "s", count: 400), turns: 4, throughMessageID: 1)
        let withSummary = TokenEstimator.raw(message: ContextBudget.systemText("be brief", summary: summary)!)
        #expect(room.allowance(summary: summary, estimator: TokenEstimator()) == 1536 - withSummary)
        // A server that counts twice hark's guess halves what fits.
        #expect(room.allowance(summary: nil, estimator: TokenEstimator(scale: 2)) == 768 - 6)
        #expect(MessageRoom(budget: ContextBudget(window: 100, maxTokens: 99), system: String(repeating: "x", count: 400))
            .allowance(summary: nil, estimator: TokenEstimator()) == 0, "never below nothing")
    }

    @Test func theRefusalSaysBothSizesAndWhatToDo() {
        let room = MessageRoom(budget: ContextBudget(window: 2048, maxTokens: nil), system: nil)
        #expect(room.refusal("the 106.3 KB of piped text are", tokens: 27_234, session: "llama", advice: "cut it").userMessage
                == "the 106.3 KB of piped text are about 27,200 tokens; llama takes 2,048 (512 of them kept for the reply): cut it")
        #expect(MessageRoom.rounded(987) == "987")
        #expect(MessageRoom.rounded(1_049) == "1,000")
        #expect(MessageRoom.rounded(1_050) == "1,100")
        #expect(ByteCount.grouped(1_234_567) == "1,234,567")
        #expect(ByteCount.grouped(-1000) == "-1,000")
    }
}
