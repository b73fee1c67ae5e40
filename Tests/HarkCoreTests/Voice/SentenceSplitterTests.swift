import Foundation
import Testing
@testable import HarkCore

@Suite struct SentenceSplitterTests {
    func sentences(_ pieces: [String]) -> [String] {
        var splitter = SentenceSplitter()
        var out: [String] = []
        for piece in pieces { out += splitter.feed(piece) }
        return out + splitter.finish()
    }

    func whole(_ text: String) -> [String] { sentences([text]) }

    @Test func aSentenceIsHandedOutTheMomentItEnds() {
        var splitter = SentenceSplitter()
        #expect(splitter.feed("Hello there") == [])
        #expect(splitter.feed(". How are") == ["Hello there."])
        #expect(splitter.feed(" you?") == ["How are you?"], "a question mark at the end of what arrived ends it")
        #expect(splitter.feed(" Fine.") == ["Fine."], "so does a period after a word")
        #expect(splitter.finish() == [])
    }

    @Test func periodsThatAreNotEndsWait() {
        var splitter = SentenceSplitter()
        #expect(splitter.feed("Pi is 3.") == [], "3. may become 3.14")
        #expect(splitter.feed("14 or so. Use e.g.") == ["Pi is 3.14 or so."])
        #expect(splitter.feed(" a pie. See www.example.") == ["Use e.g. a pie."])
        #expect(splitter.feed("com for more.") == ["See link for more."])
        #expect(splitter.finish() == [])
        #expect(whole("Dr. Smith met J. Doe. They talked.") == ["Dr. Smith met J. Doe.", "They talked."])
    }

    @Test func markdownIsReadAsProse() {
        let reply = """
            # Setup steps
            Here is **how** to do it:
            1. Open `config.yaml` in [your editor](https://example.com/editor).
            - Read https://example.com/docs/a_b, then restart.
            > Quoted *wisdom* here

            | name | value |
            |------|-------|
            | rate | 175 |
            ---
            snake_case stays, _emphasis_ goes
            """
        #expect(whole(reply) == [
            "Setup steps", "Here is how to do it:", "1: Open config.yaml in your editor.",
            "Read link, then restart.", "Quoted wisdom here", "name, value", "rate, 175", "snake case stays, emphasis goes",
        ])
    }

    @Test func codeBlocksAreNamedNotSpelledOut() {
        let reply = "Run this:\n```swift\nlet x = 1;\nprint(x)\n```\nThen it works.\n~~~\nraw\n~~~\nDone."
        #expect(whole(reply) == ["Run this:", "code block", "Then it works.", "code block", "Done."])
        var silent = SentenceSplitter(codeBlockPhrase: nil)
        #expect(silent.feed("A.\n```\ncode.\n```\nB.") + silent.finish() == ["A.", "B."])
    }

    @Test func aParagraphWrappedByHandIsOneSentence() {
        #expect(whole("This sentence was\nwrapped by hand.\n\nA new paragraph") == [
            "This sentence was wrapped by hand.", "A new paragraph",
        ])
        #expect(whole("Steps\n- one\n- two") == ["Steps", "one", "two"])
    }

    @Test func sentencesAreTheSameHoweverTheTextIsCut() {
        let reply = """
            Hello! This is a **streamed** reply. It has a list:
            - first item, with a [link](https://x.org/a.b).
            - second item

            And code:
            ```
            x = 1. y = 2.
            ```
            Wide ends work too。次の文！ Last words
            """
        let expected = whole(reply)
        #expect(expected.first == "Hello!")
        #expect(expected.last == "Last words")
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            var pieces: [String] = []
            var rest = Substring(reply)
            while !rest.isEmpty {
                let size = Int.random(in: 1...12, using: &generator)
                pieces.append(String(rest.prefix(size)))
                rest = rest.dropFirst(size)
            }
            // A cut may land after a period that a whole reply shows to be an abbreviation's or
            // a URL's; those are the only places a streamed reply may end a sentence early.
            #expect(sentences(pieces).joined(separator: " ") == expected.joined(separator: " "),
                    "pieces: \(pieces)")
        }
    }

    @Test func aVeryLongSentenceIsCutAtACommaSoSpeechStarts() {
        let clause = String(repeating: "word ", count: 10) + "and more, "
        var splitter = SentenceSplitter()
        splitter.maximumLength = 120
        #expect(splitter.feed(clause + clause + "end") == [(clause + clause).trimmed])
        #expect(splitter.finish() == ["end"])
    }

    @Test func thereIsNothingToSayWithoutLettersOrDigits() {
        #expect(whole("...\n---\n!!!") == [])
        #expect(whole("") == [])
    }
}
