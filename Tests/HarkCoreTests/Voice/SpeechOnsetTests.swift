import Testing
@testable import HarkCore

/// When `/talk` takes the microphone's sound for someone starting to speak over a reply.
struct SpeechOnsetTests {
    @Test func twoLoudBlocksOverTheRoomAreAVoiceOnce() {
        var onset = SpeechOnset()
        let room: [Double] = [-70, -72, -71, -69]
        #expect(room.map { onset.feed(level: $0) } == [false, false, false, false])
        // -30 dBFS is 15 dB over the room and over -40: the second such block is the onset, told once.
        #expect([-30, -28, -27, -29].map { onset.feed(level: $0) } == [false, true, false, false])
        #expect(onset.heard)
    }

    @Test func aClickOfOneBlockIsNotAVoice() {
        var onset = SpeechOnset()
        let levels: [Double] = [-70, -20, -70, -18, -71, -70]
        #expect(levels.allSatisfy { !onset.feed(level: $0) })
        #expect(!onset.heard)
    }

    @Test func aNoisyRoomNeedsLouderSound() {
        var onset = SpeechOnset()
        // A room at -45 dBFS: -35 is only 10 dB over it and is not taken for speech.
        #expect([-45, -44, -35, -35, -36].allSatisfy { !onset.feed(level: $0) })
        #expect([-25, -24].map { onset.feed(level: $0) } == [false, true])
        #expect(SpeechOnset.threshold(floor: -100) == -40)
    }
}
