import FoundationEssentials
import Glibc

/// Reads one reply aloud while it streams: its text goes through the sentence splitter, and
/// each sentence to the speech output the moment it is complete. Reasoning, status lines and
/// notices are not spoken.
public final class ReplySpeaker: @unchecked Sendable {
    private let output: SpeechOutput
    private let parameters: VoiceParameters
    private let lock = Lock()
    private var splitter = SentenceSplitter()
    private var ended = false
    private let onSentence: @Sendable (String) -> Void

    public init(output: SpeechOutput, parameters: VoiceParameters, onSentence: @escaping @Sendable (String) -> Void = { _ in }) {
        self.output = output
        self.parameters = parameters
        self.onSentence = onSentence
    }

    public func feed(_ event: ReplyEvent) {
        switch event {
        case .text(let text):
            say(lock.withLock { ended ? [] : splitter.feed(text) })
        case .finished:
            finish()
        default:
            break
        }
    }

    /// The reply is complete: say what is left.
    public func finish() {
        say(lock.withLock {
            guard !ended else { return [] }
            ended = true
            return splitter.finish()
        })
    }

    /// The reply was stopped or failed: say nothing more of it (what is playing stops too).
    public func abandon() {
        lock.withLock { ended = true }
        output.stop()
    }

    private func say(_ sentences: [String]) {
        for sentence in sentences {
            VoiceTrace.shared?.record("sentence", ["text": .string(sentence)])
            onSentence(sentence)
            output.say(sentence, parameters: parameters)
        }
    }
}

/// Passes a reply's events on to whoever shows it, and reads the reply aloud as it comes.
public final class SpeakingObserver: ReplyObserver, @unchecked Sendable {
    private let inner: ReplyObserver
    private let speaker: ReplySpeaker

    public init(_ inner: ReplyObserver, speaker: ReplySpeaker) {
        self.inner = inner
        self.speaker = speaker
    }

    public func reply(_ job: ReplyJob, event: ReplyEvent) {
        // Speech first: handing a sentence over takes microseconds, rendering may take longer.
        speaker.feed(event)
        inner.reply(job, event: event)
    }

    public func replyEnded(_ job: ReplyJob, outcome: ReplyOutcome) {
        // Stopped (Ctrl-C): silence at once. Failed: what arrived is still said.
        if outcome == .stopped { speaker.abandon() } else { speaker.finish() }
        inner.replyEnded(job, outcome: outcome)
    }
}
