/// How many tokens a text takes, guessed from its UTF-8 size: about four bytes a token for
/// English with the common BPE vocabularies, plus a few tokens of chat-template framing per
/// message. hark ships no tokenizer; the server's own count of the previous prompt
/// (`usage.prompt_tokens`) corrects the guess (`scale`), so Korean text or an unusual
/// vocabulary is measured after one exchange.
public struct TokenEstimator: Sendable, Equatable {
    /// The server's count divided by the raw guess for the same prompt; 1 until it is known.
    public var scale: Double

    public static let bytesPerToken = 4.0
    /// Role markers and separators a chat template wraps around each message.
    public static let tokensPerMessage = 4

    public init(scale: Double = 1) {
        self.scale = scale
    }

    /// Calibrated by a prompt the server counted: `actual` tokens for one guessed at `raw`.
    /// The ratio is kept within 1/4 and 4: beyond that the count belongs to something else
    /// (a server that adds a long hidden prompt, or one that miscounts).
    public init(calibratedBy raw: Int?, actual: Int?) {
        guard let raw, let actual, raw > 0, actual > 0 else {
            self.init()
            return
        }
        self.init(scale: min(4, max(0.25, Double(actual) / Double(raw))))
    }

    /// The guess before calibration: what is recorded with a reply, so the next one can be
    /// compared with the server's count.
    public static func raw(_ text: String) -> Int {
        Int((Double(text.utf8.count) / bytesPerToken).rounded(.up))
    }

    public static func raw(message text: String) -> Int { raw(text) + tokensPerMessage }

    /// A raw guess scaled by what the server counted before.
    public func calibrated(_ raw: Int) -> Int { Int((Double(raw) * scale).rounded(.up)) }

    public func tokens(message text: String) -> Int { calibrated(Self.raw(message: text)) }
}
