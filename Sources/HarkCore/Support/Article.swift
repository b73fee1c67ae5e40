extension String {
    /// The word with "a" or "an" before it, by its first letter: "an openai", "an a2a", "a webhook".
    /// Good enough for the names hark puts in sentences (kinds, feature codes), not for English at large.
    public var withIndefiniteArticle: String {
        guard let first = first?.lowercased().first else { return self }
        return ("aeio".contains(first) ? "an " : "a ") + self
    }
}
