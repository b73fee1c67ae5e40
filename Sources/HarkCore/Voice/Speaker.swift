import FoundationEssentials
import Glibc

/// Something that reads text aloud, one utterance after another.
public protocol SpeechOutput: AnyObject, Sendable {
    /// Queues a sentence; it is spoken after those before it. Returns at once.
    func say(_ text: String, parameters: VoiceParameters)
    /// Silences speech now and forgets what was queued.
    func stop()
    /// Something is being said or waits to be.
    var isSpeaking: Bool { get }
    /// Waits (blocking this thread, never a concurrency-pool one) until all queued speech has
    /// been heard.
    func waitUntilDone()
}

/// Something that turns text into 16-bit mono samples: espeak-ng, or a program (`tts_command`).
public protocol SpeechSynthesizer: AnyObject, Sendable {
    /// Makes speech for `text`, handing each buffer with its sample rate to `consume` as it is
    /// made; `consume` returns false to stop at once. It may be handed no samples, to ask
    /// whether to go on while the engine has nothing yet.
    func speak(_ text: String, parameters: VoiceParameters,
               into consume: (_ samples: UnsafeBufferPointer<Int16>, _ sampleRate: Int) -> Bool) throws
}

/// What the speaker reports, for the shell (errors) and for measurements.
public enum SpeechEvent: Sendable {
    /// The first samples of this sentence reached the audio device.
    case started(String)
    case finished(String)
    /// This sentence was cut off (stop, /mute, Ctrl-C, a new message).
    case interrupted(String)
    /// Speech failed (no audio output, unknown voice); queued sentences were dropped.
    case failed(HarkError)
}

/// Speaks through espeak-ng (or the `tts_command` a sentence's parameters name) into an audio
/// sink, on a thread of its own: `say` only queues, so a streaming reply is never held up by
/// speech. The sink (a sound server's stream) is opened at the rate of the first samples,
/// again when a voice speaks at another rate, and closed after a few idle seconds.
public final class Speaker: SpeechOutput, @unchecked Sendable {
    private let engine: SpeechSynthesizer
    private let command: SpeechSynthesizer
    private let clock: HarkClock
    private let openSink: @Sendable (_ sampleRate: Int) throws -> AudioSink
    private let onEvent: @Sendable (SpeechEvent) -> Void
    private let condition = Condition()
    private var queue: [(text: String, parameters: VoiceParameters)] = []
    /// Bumped by `stop`: an utterance of an older generation is abandoned.
    private var generation = 0
    private var busy = false
    private var drainRequested = false
    private var finished = false
    private var threadStarted = false
    /// The sink kept open goes elsewhere now (`/talk` loaded or unloaded its echo canceller).
    private var sinkOutdated = false
    private let idleClose: TimeInterval

    public init(engine: SpeechSynthesizer = Espeak.shared, command: SpeechSynthesizer = CommandSpeech.shared,
                idleClose: TimeInterval = 3, clock: HarkClock = .system,
                openSink: @escaping @Sendable (_ sampleRate: Int) throws -> AudioSink,
                onEvent: @escaping @Sendable (SpeechEvent) -> Void = { _ in }) {
        self.engine = engine
        self.command = command
        self.clock = clock
        self.openSink = openSink
        self.onEvent = onEvent
        self.idleClose = idleClose
    }

    /// Ends the speech thread once what is queued has been said.
    public func close() {
        condition.withLock {
            finished = true
            condition.broadcast()
        }
    }

    public func say(_ text: String, parameters: VoiceParameters) {
        condition.withLock {
            queue.append((text, parameters))
            if !threadStarted {
                Threads.start(name: "hark-speech") { [weak self] in self?.run() }
                threadStarted = true
            }
            condition.broadcast()
        }
    }

    public func stop() {
        condition.withLock {
            generation += 1
            queue.removeAll()
            condition.broadcast()
        }
    }

    public var isSpeaking: Bool { condition.withLock { busy || !queue.isEmpty } }

    /// The next sentence opens the sink anew, where `openSink` now points.
    public func reopenSink() { condition.withLock { sinkOutdated = true } }

    public func waitUntilDone() {
        condition.withLock {
            guard threadStarted else { return }
            drainRequested = true
            condition.broadcast()
            while busy || !queue.isEmpty || drainRequested { condition.wait() }
        }
    }

    // MARK: The speech thread

    private func run() {
        var sink: AudioSink?
        while true {
            condition.lock()
            var idleSince = clock.uptime()
            while queue.isEmpty && !finished {
                if drainRequested {
                    condition.unlock()
                    sink?.drain()
                    condition.lock()
                    drainRequested = false
                    condition.broadcast()
                    continue
                }
                if sink != nil, clock.uptime() - idleSince >= idleClose {
                    condition.unlock()
                    sink?.drain()
                    sink = nil
                    condition.lock()
                    idleSince = clock.uptime()
                    continue
                }
                condition.wait(seconds: sink == nil ? 3600 : idleClose)
            }
            if finished && queue.isEmpty {
                condition.unlock()
                sink?.drain()
                return
            }
            let item = queue.removeFirst()
            let mine = generation
            busy = true
            let outdated = sinkOutdated
            sinkOutdated = false
            condition.unlock()
            if outdated {
                sink?.drain()
                sink = nil
            }
            var event: SpeechEvent
            do {
                let whole = try speak(item.text, parameters: item.parameters, into: &sink, generation: mine)
                event = whole ? .finished(item.text) : .interrupted(item.text)
            } catch {
                sink = nil
                condition.withLock { queue.removeAll() }
                event = .failed(error as? HarkError ?? .io(error.userMessage))
            }
            condition.withLock {
                busy = false
                condition.broadcast()
            }
            // After `busy` is cleared, so whoever hears of the end finds the speaker idle.
            onEvent(event)
        }
    }

    /// Says one sentence; false when it was cut off. The sink is opened (or reopened at a new
    /// rate) when the first samples come.
    private func speak(_ text: String, parameters: VoiceParameters, into sink: inout AudioSink?, generation mine: Int) throws -> Bool {
        var started = false
        var sinkError: Error?
        var open = sink
        let current = { [condition] in condition.withLock { self.generation == mine } }
        let synthesizer = parameters.command == nil ? engine : command
        defer { sink = open }
        try synthesizer.speak(text, parameters: parameters) { samples, rate in
            guard current() else { return false }
            guard !samples.isEmpty else { return true }
            do {
                if let existing = open, existing.sampleRate != rate {
                    existing.drain()
                    open = nil
                }
                if open == nil { open = try openSink(rate) }
                try open!.write(samples)
            } catch {
                sinkError = error
                return false
            }
            if !started {
                started = true
                VoiceTrace.shared?.record("audio", ["text": .string(text)])
                onEvent(.started(text))
            }
            return true
        }
        if let sinkError { throw sinkError }
        if current() { return true }
        open?.discard()
        return false
    }
}
