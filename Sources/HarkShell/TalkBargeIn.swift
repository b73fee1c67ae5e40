import FoundationEssentials
import Glibc
import HarkCore

/// Talking over a reply in `/talk` (barge-in): while hark reads a reply aloud the microphone
/// stays open, through the sound server's echo canceller so that hark does not hear itself,
/// and the moment the user starts to speak the reply falls silent; what they say is the next
/// turn. The reply's text goes on arriving and is kept whole in the history; only its reading
/// stops. Thread-safe: the dictation thread reports the speech, the loop's thread the reply.
final class BargeIn: @unchecked Sendable {
    private let lock = Lock()
    private var speaker: ReplySpeaker?
    private var replying = false
    private var interrupted = false

    /// A reply is on its way: speech from now on interrupts it.
    func replyStarts() {
        lock.withLock {
            replying = true
            interrupted = false
        }
    }

    /// The reply's reader, once it has one; silenced at once when the user spoke first.
    func reading(_ reader: ReplySpeaker) {
        let silence: Bool = lock.withLock {
            guard replying else { return false }
            speaker = reader
            return interrupted
        }
        if silence { reader.abandon() }
    }

    /// The user started to speak (the dictation thread says so).
    func userSpoke() {
        let reader: ReplySpeaker? = lock.withLock {
            guard replying, !interrupted else { return nil }
            interrupted = true
            return speaker
        }
        guard let reader else { return }
        VoiceTrace.shared?.record("barge-in")
        reader.abandon()
    }

    /// The reply has ended and been heard (or cut off); the user did or did not talk over it.
    @discardableResult
    func replyEnded() -> Bool {
        lock.withLock {
            replying = false
            speaker = nil
            return interrupted
        }
    }
}

extension TalkLoop {
    /// The echo canceller `echo_cancel` asks for: with `auto`, none when the sound server
    /// cannot give one (the loop is then half duplex); with `on`, that is an error.
    func loadEchoCanceller(_ settings: VoiceSettings) throws -> EchoCanceller? {
        switch settings.echoCancel {
        case .off:
            return nil
        case .on:
            return try EchoCanceller.load(devices: workspace.voice.devices)
        case .auto:
            return try? EchoCanceller.load(devices: workspace.voice.devices)
        }
    }

    /// Opens the microphone for the reply about to come: speech on it silences the reply.
    func listenDuringReply(_ model: VoskModel, _ settings: VoiceSettings, bargeIn: BargeIn) -> Dictation {
        let dictation = makeDictation(model, settings, onSpeech: { bargeIn.userSpoke() }, silenceClockRunning: false)
        let inbox = loop.inbox
        bargeIn.replyStarts()
        dictation.start { inbox.post(.dictation($0)) }
        return dictation
    }

    /// Ends a dictation that is no longer wanted and takes its last events, so that none is
    /// left for the next listener (of this loop or the shell's /listen). Bounded: a sound
    /// server that stalls is not waited on for more than a few seconds.
    func finish(_ dictation: Dictation) {
        dictation.cancel()
        let deadline = VoiceTrace.now + 5
        while VoiceTrace.now < deadline {
            let wake = loop.wait(EventLoop.Interest(events: { if case .dictation = $0 { return true }; return false },
                                                    timeout: 500))
            for case .dictation(let event) in wake.events {
                switch event {
                case .ended, .failed: return
                default: continue
                }
            }
        }
    }

    /// Dictation for one turn of the loop.
    func makeDictation(_ model: VoskModel, _ settings: VoiceSettings, onSpeech: (@Sendable () -> Void)? = nil,
                       silenceClockRunning: Bool = true) -> Dictation {
        Dictation(model: model, grammar: settings.grammar, pause: settings.pause,
                  silenceTimeout: wake ? Self.wakeFollowUp : Self.idleRestart, devices: workspace.voice.devices,
                  endOfTurn: EndOfTurn(pause: settings.pause), onSpeech: onSpeech, silenceClockRunning: silenceClockRunning)
    }
}
