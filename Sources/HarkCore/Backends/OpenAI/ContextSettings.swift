/// A model session's `context` and `context_messages` settings.
///
/// `context` is the model's context window in tokens (`8192`, `8k`, `128k`), or `auto` (the
/// default): asked of the server. It used to be the number of earlier messages sent (40 by
/// default); that is `context_messages` now. So that an old config keeps meaning what it
/// said, a `context` below 256 (no model holds fewer tokens) is read as `context_messages`,
/// and `/info` says to rename it.
public struct ContextSettings: Sendable, Equatable {
    /// Tokens, from the config; nil asks the server.
    public var window: Int?
    public var maxTurns: Int?
    /// `context` held a message count (the old meaning).
    public var readAsMessages = false

    public static let smallestWindow = 256

    public init(window: Int? = nil, maxTurns: Int? = nil) {
        self.window = window
        self.maxTurns = maxTurns
    }

    public init(_ session: SessionConfig) throws {
        maxTurns = try session.int("context_messages")
        if let maxTurns, maxTurns < 0 {
            throw HarkError.badSetting(session: session.name, problem: "context_messages is a count of messages, 0 or more")
        }
        guard let text = session["context"]?.trimmingSpaces.lowercased(), !text.isEmpty, text != "auto" else { return }
        guard let tokens = Self.tokens(text) else {
            throw HarkError.badSetting(session: session.name, problem: "context is the model's window in tokens (8192, 8k) or auto, "
                + "not \(MessageLine.quote(text, 20))")
        }
        if tokens < Self.smallestWindow {
            readAsMessages = true
            maxTurns = maxTurns ?? tokens
        } else {
            window = tokens
        }
    }

    /// `8192`, `8k`, `128K` → tokens (k is 1024, as windows are counted).
    static func tokens(_ text: String) -> Int? {
        if text.hasSuffix("k"), let thousands = Int(text.dropLast()), thousands > 0 { return thousands * 1024 }
        guard let value = Int(text), value >= 0 else { return nil }
        return value
    }
}
