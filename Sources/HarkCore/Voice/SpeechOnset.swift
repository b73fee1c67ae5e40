import FoundationEssentials

/// When someone starts to speak, from the levels of the microphone's blocks: sound well above
/// the quietest heard so far (the room), for long enough to be a voice rather than a click.
/// It tells `/talk` to stop speaking (barge-in) as soon as the user talks over it, before the
/// recogniser has made out a word, which takes it half a second or more.
public struct SpeechOnset: Sendable, Equatable {
    /// Consecutive loud blocks that make a voice: two 50 ms blocks keep the stop within
    /// 250 ms of the first syllable while a tap or a click (one block) is let through.
    public var blocksNeeded: Int
    private var floor = 0.0
    private var loudBlocks = 0
    /// The onset has been heard (or taken as heard): `feed` is true no more.
    public var heard = false

    public init(blocksNeeded: Int = 2) {
        self.blocksNeeded = blocksNeeded
    }

    /// The level a block must pass: 15 dB over the room, and never under -40 dBFS (as
    /// dictation's own sense of "something is said").
    public static func threshold(floor: Double) -> Double { max(-40, floor + 15) }

    /// Takes one block's level (dBFS); true for the block that completes the onset, once.
    public mutating func feed(level: Double) -> Bool {
        floor = min(floor, level)
        loudBlocks = level > Self.threshold(floor: floor) ? loudBlocks + 1 : 0
        guard !heard, loudBlocks >= blocksNeeded else { return false }
        heard = true
        return true
    }
}
