import Testing
@testable import HarkCore

@Suite struct HarkErrorTests {
    /// A server's error text or a config line can hold escape sequences; the error line shows
    /// them instead of letting them act on the terminal.
    @Test func controlCharactersAreShownNotSent() {
        #expect(HarkError.backend("bad \u{1B}[31mred\u{7} \u{1B}]0;title\u{7}").message == "bad ^[[31mred^G ^[]0;title^G")
        #expect(HarkError.backend("cr\roverwrite del\u{7F} c1\u{9B}2J").message == "cr overwrite del^? c1\u{FFFD}2J")
        #expect(HarkError.backend("tab\tand é 👩‍💻 stay").message == "tab\tand é 👩‍💻 stay")
        #expect(HarkError.config(path: "p", line: 3, reason: "odd \u{1B}c").message.contains("odd ^[c"))
    }
}

/// "an openai session", not "a openai session".
@Suite struct ArticleTests {
    @Test func theArticleFollowsTheFirstLetter() {
        #expect("openai".withIndefiniteArticle == "an openai")
        #expect("a2a".withIndefiniteArticle == "an a2a")
        #expect("webhook".withIndefiniteArticle == "a webhook")
        #expect(HarkError.commandNotForKind(command: "/jobs", kind: "openai").userMessage
            == "/jobs does not apply to an openai session; /help lists what does")
    }
}
