import Testing
@testable import HarkShell

/// The keys of `/talk`, as a terminal sends them.
struct TalkKeysTests {
    func keys(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func f5AndCtrlGPauseEscAndCtrlCEnd() {
        #expect(TalkKeys.action([0x07]) == .toggle)
        #expect(TalkKeys.action(keys("\u{1B}[15~")) == .toggle)
        #expect(TalkKeys.action(keys("\u{1B}[[E")) == .toggle, "the Linux console's F5")
        #expect(TalkKeys.action([0x1B]) == .stop(0))
        #expect(TalkKeys.action([0x03]) == .stop(130))
    }

    @Test func otherKeysAndSequencesAreDropped() {
        #expect(TalkKeys.action(keys("a")) == nil)
        #expect(TalkKeys.action(keys("\u{1B}[A")) == nil, "an arrow is not Esc")
        #expect(TalkKeys.action(keys("\u{1B}OP")) == nil, "F1")
        #expect(TalkKeys.action(keys("\u{1B}[17~")) == nil, "F6")
        #expect(TalkKeys.action(keys("\u{1B}x")) == nil, "Alt-x")
    }

    @Test func endingWinsOverPausingAndCtrlCOverEsc() {
        #expect(TalkKeys.action([0x07, 0x1B]) == .stop(0))
        #expect(TalkKeys.action(keys("\u{1B}\u{07}")) == nil, "Alt-Ctrl-G is one key")
        #expect(TalkKeys.action([0x1B, 0x1B, 0x03]) == .stop(130))
        #expect(TalkKeys.action(keys("\u{1B}[15~\u{03}")) == .stop(130))
    }

    @Test func aSequenceCutBetweenReadsIsWaitedFor() {
        #expect(TalkKeys.endsInsideSequence(keys("\u{1B}[")))
        #expect(TalkKeys.endsInsideSequence(keys("\u{1B}[15")))
        #expect(TalkKeys.endsInsideSequence(keys("\u{1B}[[")))
        #expect(!TalkKeys.endsInsideSequence(keys("\u{1B}[15~")))
        #expect(!TalkKeys.endsInsideSequence(keys("a")))
    }
}
