import FoundationEssentials
import Glibc

/// What dictation reports while it listens, in order, from its own thread.
public enum DictationEvent: Sendable, Equatable {
    /// The microphone is open (naming the sound server): speak now.
    case listening(String)
    /// The words so far (finished utterances and the one in progress) and the input level, 0…1.
    case heard(String, level: Double)
    /// Dictation is over; `recognition` is empty when nothing was heard or it was cancelled.
    case ended(Recognition, reason: DictationEnd)
    case failed(HarkError)
}

public enum DictationEnd: Sendable, Equatable {
    /// The speaker paused after speaking.
    case pause
    /// Someone asked it to stop (a key); what was heard is kept.
    case stopped
    case cancelled
    /// Nothing was said for a while.
    case silence
}

/// Something that turns speech into text.
public protocol SpeechInput: AnyObject, Sendable {
    /// Starts listening; events arrive on another thread until `.ended` or `.failed`.
    func start(_ onEvent: @escaping @Sendable (DictationEvent) -> Void)
    /// Ends now, keeping what was heard.
    func stop()
    /// Ends now, dropping what was heard.
    func cancel()
}

/// Dictation from the default microphone into Vosk: 16-bit mono at the model's rate, read in
/// 50 ms blocks; each block updates the words heard and the level. It ends on a pause (no new
/// words and no loud sound for `pause` seconds after speech, longer while the words stop on an
/// unfinished phrase when `endOfTurn` says so), on `stop`, or when nothing at all is said for
/// `silenceTimeout` seconds.
public final class Dictation: SpeechInput, @unchecked Sendable {
    private let model: VoskModel
    private let grammar: [String]
    private let pause: Double
    private let silenceTimeout: Double
    private let devices: AudioDevices
    private let endOfTurn: EndOfTurn?
    private let clock: HarkClock
    /// Called once, on the dictation thread, when the speaker starts to talk (`SpeechOnset`, or
    /// a word recognised first): `/talk` stops its speech then.
    private let onSpeech: (@Sendable () -> Void)?
    private let lock = Lock()
    private var request: DictationEnd?
    private var silenceClockRestarted = false
    /// False while hark speaks (the microphone open for a barge-in): a long reply is no silence.
    private var silenceClockRunning: Bool

    public init(model: VoskModel, grammar: [String] = [], pause: Double = 1.5, silenceTimeout: Double = 10,
                devices: AudioDevices = AudioDevices(), endOfTurn: EndOfTurn? = nil, clock: HarkClock = .system,
                onSpeech: (@Sendable () -> Void)? = nil, silenceClockRunning: Bool = true) {
        self.model = model
        self.grammar = grammar
        self.pause = pause
        self.silenceTimeout = silenceTimeout
        self.devices = devices
        self.endOfTurn = endOfTurn
        self.clock = clock
        self.onSpeech = onSpeech
        self.silenceClockRunning = silenceClockRunning
    }

    public func start(_ onEvent: @escaping @Sendable (DictationEvent) -> Void) {
        Threads.start(name: "hark-dictation") { [self] in
            do {
                try listen(onEvent)
            } catch {
                onEvent(.failed(error as? HarkError ?? .io(error.userMessage)))
            }
        }
    }

    public func stop() { lock.withLock { request = request ?? .stopped } }
    public func cancel() { lock.withLock { request = .cancelled } }

    /// Counts `silenceTimeout` from now (and starts the clock if it was not running): the
    /// microphone was opened while hark spoke, and the quiet that matters starts once it has finished.
    public func restartSilenceClock() {
        lock.withLock {
            silenceClockRestarted = true
            silenceClockRunning = true
        }
    }

    private static func spoke(_ onSpeech: @Sendable () -> Void, _ onset: inout SpeechOnset) {
        onset.heard = true
        VoiceTrace.shared?.record("onset")
        onSpeech()
    }

    private func listen(_ onEvent: @Sendable (DictationEvent) -> Void) throws {
        let trace = VoiceTrace.shared
        // No word times in partial results: asking for them makes Vosk hold each word back
        // until it is aligned, about a second and a half later.
        let recognizer = try VoskRecognizer(model: model, grammar: grammar)
        var source: AudioSource? = try devices.openInput(sampleRate: model.sampleRate)
        onEvent(.listening(source!.label))
        var block = [Int16](repeating: 0, count: model.sampleRate / 20)
        var finished = Recognition()
        var current = ""
        var heard = ""
        var started = clock.uptime()
        var lastActivity = started
        var onset = SpeechOnset()
        var noiseFloor = 0.0
        var samplesRead = 0
        var end: DictationEnd
        while true {
            let (requested, restarted) = lock.withLock {
                defer { silenceClockRestarted = false }
                return (request, silenceClockRestarted || !silenceClockRunning)
            }
            if let requested {
                end = requested
                break
            }
            if restarted { started = clock.uptime() }
            try block.withUnsafeMutableBufferPointer { try source!.read(into: $0) }
            samplesRead += block.count
            let level = block.withUnsafeBufferPointer { PCM.level($0) }
            trace?.record("chunk", ["samples": .number(Double(samplesRead)), "rate": .number(Double(model.sampleRate)),
                                    "level": .number(level)])
            noiseFloor = min(noiseFloor, level)
            // Before the recogniser's work on the block: a barge-in is told without that delay.
            if let onSpeech, !onset.heard, onset.feed(level: level) { Self.spoke(onSpeech, &onset) }
            if block.withUnsafeBufferPointer({ recognizer.accept($0) }) {
                finished.append(recognizer.result())
                current = ""
            } else {
                current = recognizer.partial().text
            }
            let text = [finished.text, current].filter { !$0.isEmpty }.joined(separator: " ")
            if text != heard { trace?.record("heard", ["text": .string(text)]) }
            if let onSpeech, !onset.heard, !text.isEmpty { Self.spoke(onSpeech, &onset) }
            let now = clock.uptime()
            if text != heard || level > SpeechOnset.threshold(floor: noiseFloor) { lastActivity = now }
            heard = text
            // -60 dBFS and below shows as nothing, 0 dBFS as full.
            onEvent(.heard(text, level: max(0, min(1, (level + 60) / 60))))
            if !heard.isEmpty && now - lastActivity >= endOfTurn?.pauseNeeded(after: heard) ?? pause {
                end = .pause
                break
            }
            if heard.isEmpty && now - started >= silenceTimeout {
                end = .silence
                break
            }
        }
        // The microphone is closed before the end is told: whoever hears of it may open it again.
        source = nil
        if end == .cancelled {
            onEvent(.ended(Recognition(), reason: .cancelled))
            return
        }
        finished.append(recognizer.finalResult())
        onEvent(.ended(finished, reason: end))
    }
}
