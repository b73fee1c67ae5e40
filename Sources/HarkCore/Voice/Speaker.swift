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

/// Speaks through espeak-ng into an audio sink, on a thread of its own: `say` only queues,
/// so a streaming reply is never held up by speech. The sink (a sound server's stream) is
/// opened for the first sentence and closed after a few idle seconds.
public final class Speaker: SpeechOutput, @unchecked Sendable {
    private let engine: Espeak
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
    private let idleClose: TimeInterval

    public init(engine: Espeak = .shared, idleClose: TimeInterval = 3,
                openSink: @escaping @Sendable (_ sampleRate: Int) throws -> AudioSink,
                onEvent: @escaping @Sendable (SpeechEvent) -> Void = { _ in }) {
        self.engine = engine
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
            var idleSince = Date()
            while queue.isEmpty && !finished {
                if drainRequested {
                    condition.unlock()
                    sink?.drain()
                    condition.lock()
                    drainRequested = false
                    condition.broadcast()
                    continue
                }
                if sink != nil, Date().timeIntervalSince(idleSince) >= idleClose {
                    condition.unlock()
                    sink?.drain()
                    sink = nil
                    condition.lock()
                    idleSince = Date()
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
            condition.unlock()
            var event: SpeechEvent
            do {
                if sink == nil { sink = try openSink(try engine.load()) }
                let whole = try speak(item.text, parameters: item.parameters, into: sink!, generation: mine)
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

    /// Says one sentence; false when it was cut off.
    private func speak(_ text: String, parameters: VoiceParameters, into sink: AudioSink, generation mine: Int) throws -> Bool {
        var started = false
        var sinkError: Error?
        let current = { [condition] in condition.withLock { self.generation == mine } }
        try engine.synthesize(text, parameters: parameters) { samples in
            guard current() else { return false }
            do {
                try sink.write(samples)
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
        sink.discard()
        return false
    }
}
