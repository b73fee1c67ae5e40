/// A summary of a thread's older turns (`/compact`), sent in their place.
public struct ThreadSummary: Sendable, Equatable {
    public var text: String
    /// How many turns it stands for.
    public var turns: Int
    /// The newest message it covers: the turns after it are sent as they are.
    public var throughMessageID: Int64

    public init(text: String, turns: Int, throughMessageID: Int64) {
        self.text = text
        self.turns = turns
        self.throughMessageID = throughMessageID
    }
}
