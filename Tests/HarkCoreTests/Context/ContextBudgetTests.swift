import Testing
@testable import HarkCore

/// Which turns go to the model: the system text and the message always, then the newest
/// earlier turns that fit the window less the room kept for the reply.
@Suite struct ContextBudgetTests {
    /// Ten turns of 40 bytes: 10 raw tokens of text + 4 of framing = 14 each.
    static let history: [Turn] = (1...10).map { Turn(role: $0 % 2 == 1 ? .user : .assistant, text: String(repeating: "\($0 % 10)", count: 40)) }

    @Test func keepsTheNewestTurnsThatFitAndCountsTheRest() {
        // 256 - 64 for the reply = 192: the message (14) and system (6) leave 172, twelve turns' worth.
        let budget = ContextBudget(window: 256, maxTokens: 64)
        let plan = budget.plan(system: "be brief", summary: nil, history: Self.history, messageTokens: 14)
        #expect(plan.turns == Self.history)
        #expect(plan.leftOut == 0)
        let tight = ContextBudget(window: 120, maxTokens: 40).plan(system: "be brief", summary: nil, history: Self.history,
                                                                    messageTokens: 14)
        // 80 tokens: 20 fixed, 4 turns fit (56), a fifth would not.
        #expect(tight.turns == Array(Self.history.suffix(4)))
        #expect(tight.leftOut == 6)
        #expect(tight.rawEstimate == 20 + 56)
        #expect(ContextBudget.leftOutNote(6) == "6 earlier turns not sent; /compact summarises them")
    }

    @Test func aCutConversationStartsWithAUserTurn() {
        // Room for 5 turns: the oldest of them is a reply, so it goes too.
        let plan = ContextBudget(window: 134, maxTokens: 40).plan(system: "be brief", summary: nil, history: Self.history,
                                                                   messageTokens: 14)
        #expect(plan.turns == Array(Self.history.suffix(4)))
        #expect(plan.turns.first?.role == .user)
        #expect(plan.leftOut == 6)
    }

    @Test func aMessageCapLimitsTurnsWhateverTheyCost() {
        let plan = ContextBudget(window: 100_000, maxTokens: nil, maxTurns: 4)
            .plan(system: nil, summary: nil, history: Self.history, messageTokens: 5)
        #expect(plan.turns == Array(Self.history.suffix(4)))
        #expect(plan.leftOut == 6)
        // Three would start with a reply: two go.
        let three = ContextBudget(window: 100_000, maxTokens: nil, maxTurns: 3)
            .plan(system: nil, summary: nil, history: Self.history, messageTokens: 5)
        #expect(three.turns == Array(Self.history.suffix(2)))
    }

    @Test func theSummaryGoesWithTheSystemPromptAndCostsRoom() {
        let summary = ThreadSummary(text: "We talked about aardvarks.", turns: 8, throughMessageID: 8)
        let plan = ContextBudget(window: 4096, maxTokens: nil).plan(system: "Be brief.", summary: summary,
                                                                     history: Array(Self.history.suffix(2)), messageTokens: 5)
        #expect(plan.system == "Be brief.\n\nSummary of the earlier conversation (8 turns), in their place:\nWe talked about aardvarks.")
        #expect(plan.turns.count == 2)
        let alone = ContextBudget.systemText(nil, summary: summary)
        #expect(alone?.hasPrefix("Summary of the earlier conversation") == true)
    }

    @Test func theServersCountCalibratesTheGuess() {
        // The server counted twice what was guessed: each turn now costs twice as much.
        let estimator = TokenEstimator(calibratedBy: 100, actual: 200)
        #expect(estimator.scale == 2)
        let plan = ContextBudget(window: 160, maxTokens: 40, estimator: estimator)
            .plan(system: "be brief", summary: nil, history: Self.history, messageTokens: 14)
        #expect(plan.turns == Array(Self.history.suffix(2)))
        #expect(plan.estimate == plan.rawEstimate * 2)
        // Absurd ratios are bounded; missing counts leave the guess alone.
        #expect(TokenEstimator(calibratedBy: 10, actual: 1000).scale == 4)
        #expect(TokenEstimator(calibratedBy: nil, actual: 5).scale == 1)
    }

    @Test func roomForTheReplyIsMaxTokensOrAQuarterUpTo1024() {
        #expect(ContextBudget.replyRoom(window: 8192, maxTokens: 300) == 300)
        #expect(ContextBudget.replyRoom(window: 8192, maxTokens: nil) == 1024)
        #expect(ContextBudget.replyRoom(window: 2048, maxTokens: nil) == 512)
    }

    @Test func contextSettingsReadTokensAndTheOldMessageCount() throws {
        func settings(_ values: [String: String]) throws -> ContextSettings {
            var session = SessionConfig(name: "llama", kind: "openai")
            for (key, value) in values { session.values[key] = value }
            return try ContextSettings(session)
        }
        #expect(try settings(["context": "8192"]) == ContextSettings(window: 8192))
        #expect(try settings(["context": "32k"]) == ContextSettings(window: 32768))
        #expect(try settings(["context": "auto", "context_messages": "12"]) == ContextSettings(maxTurns: 12))
        let old = try settings(["context": "40"])
        #expect(old.window == nil && old.maxTurns == 40 && old.readAsMessages)
        #expect(throws: HarkError.self) { try settings(["context": "lots"]) }
    }
}
