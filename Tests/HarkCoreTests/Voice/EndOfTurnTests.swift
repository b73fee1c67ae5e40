import Testing
@testable import HarkCore

struct EndOfTurnTests {
    let turn = EndOfTurn(pause: 1.5)

    @Test func anUnfinishedPhraseWaitsLonger() {
        #expect(turn.pauseNeeded(after: "what is the capital of France") == 1.5)
        #expect(turn.pauseNeeded(after: "book a table for two and") == 3)
        #expect(turn.pauseNeeded(after: "tell me about the") == 3)
        #expect(turn.pauseNeeded(after: "first the weather,") == 3)
        #expect(turn.pauseNeeded(after: "But") == 3, "any case")
        #expect(turn.pauseNeeded(after: "") == 1.5)
        #expect(!turn.isUnfinished("a sandwich"), "a word that merely ends in an unfinished one")
        #expect(!turn.isUnfinished("turn the light on"), "a word that may end a sentence")
        #expect(EndOfTurn(pause: 0.5).unfinishedExtra == 1, "at least a second more")
    }

    @Test func aCoughOrNothingIsNotAMessage() {
        func word(_ text: String, _ start: Double, _ end: Double) -> RecognizedWord {
            RecognizedWord(word: text, start: start, end: end, confidence: 1)
        }
        #expect(EndOfTurn.isTooShort(Recognition()))
        #expect(EndOfTurn.isTooShort(Recognition(words: [word("[unk]", 0, 2)], text: "")))
        #expect(EndOfTurn.isTooShort(Recognition(words: [word("huh", 1.0, 1.2)], text: "huh")))
        #expect(EndOfTurn.isTooShort(Recognition(words: [word("[unk]", 0, 1), word("a", 1.0, 1.1)], text: "a")),
                "a long unknown sound does not count as speech")
        #expect(!EndOfTurn.isTooShort(Recognition(words: [word("hello", 1.0, 1.5)], text: "hello")))
        #expect(!EndOfTurn.isTooShort(Recognition(words: [word("no", 1.0, 1.2), word("thanks", 1.3, 1.5)], text: "no thanks")))
        #expect(!EndOfTurn.isTooShort(Recognition(words: [], text: "hi")), "without word times the words decide")
    }
}

struct CueTests {
    @Test func eachCueIsAShortAudibleToneThatStartsAndEndsQuietly() {
        for cue in Cue.allCases {
            let samples = cue.samples(rate: 16000)
            let seconds = Double(samples.count) / 16000
            #expect(seconds > 0.04 && seconds < 0.3, "\(cue): \(seconds) s")
            let level = samples.withUnsafeBufferPointer { PCM.level($0) }
            #expect(level > -20 && level < -9, "\(cue): \(level) dBFS")
            #expect(abs(Int(samples.first!)) < 200 && abs(Int(samples.last!)) < 1000, "faded, no click")
        }
        #expect(Cue.listening.samples(rate: 16000) != Cue.stopped.samples(rate: 16000))
    }
}
