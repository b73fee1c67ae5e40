import FoundationEssentials
import Glibc

/// Waits for the wake phrase of `/talk --wake` (`wake_word`, "hey hark"): Vosk's grammar
/// recogniser, limited to the phrase (other speech comes out as "[unk]", or as one of the
/// `vosk_grammar` phrases when there is one), on the microphone in 100 ms blocks. An utterance
/// that holds the phrase wakes it once it has ended (Vosk's short pause after speech). Nothing
/// is reported while it waits (no words or levels to show), so the shell sleeps until the phrase
/// is heard; the small grammar and the quiet shell keep the cost low (docs/voice.md has the
/// measured CPU). It ends with `.ended` holding the words and `.pause` when it hears the phrase,
/// or `.cancelled` when stopped.
public final class WakeListener: SpeechInput, @unchecked Sendable {
    private let model: VoskModel
    private let settings: VoiceSettings
    private let devices: AudioDevices
    private let lock = Lock()
    private var cancelled = false

    public init(model: VoskModel, settings: VoiceSettings, devices: AudioDevices = AudioDevices()) {
        self.model = model
        self.settings = settings
        self.devices = devices
    }

    public func start(_ onEvent: @escaping @Sendable (DictationEvent) -> Void) {
        Threads.start(name: "hark-wake") { [self] in
            do {
                try listen(onEvent)
            } catch {
                onEvent(.failed(error as? HarkError ?? .io(error.userMessage)))
            }
        }
    }

    public func stop() { cancel() }
    public func cancel() { lock.withLock { cancelled = true } }

    private func listen(_ onEvent: @Sendable (DictationEvent) -> Void) throws {
        let recognizer = try VoskRecognizer(model: model, grammar: settings.wakeGrammar)
        var source: AudioSource? = try devices.openInput(sampleRate: model.sampleRate)
        onEvent(.listening(source!.label))
        var block = [Int16](repeating: 0, count: model.sampleRate / 10)
        while !lock.withLock({ cancelled }) {
            try block.withUnsafeMutableBufferPointer { try source!.read(into: $0) }
            // Only whole utterances count: a partial result is a guess that flickers (the start
            // of another word shows as the phrase), and the phrase's last syllables must not be
            // taken for the turn's first words.
            guard block.withUnsafeBufferPointer({ recognizer.accept($0) }) else { continue }
            let heard = recognizer.result()
            if settings.holdsWakePhrase(heard.text) {
                source = nil  // closed before the turn opens it again
                VoiceTrace.shared?.record("wake", ["text": .string(heard.text)])
                onEvent(.ended(heard, reason: .pause))
                return
            }
        }
        source = nil
        onEvent(.ended(Recognition(), reason: .cancelled))
    }
}
