import FoundationEssentials
import Glibc

/// Where speech goes: a sound server's playback stream, or memory (for a WAV file).
public protocol AudioSink: AnyObject, Sendable {
    var sampleRate: Int { get }
    /// Blocks while the device's buffer is full, so speech is paced by playback.
    func write(_ samples: UnsafeBufferPointer<Int16>) throws
    /// Waits until everything written has been heard.
    func drain()
    /// Drops what is buffered but not yet heard: speech stops at once.
    func discard()
}

/// Where dictation listens: a sound server's recording stream of 16-bit mono samples.
public protocol AudioSource: AnyObject, Sendable {
    var sampleRate: Int { get }
    /// Fills `buffer` completely, blocking until the samples have been recorded.
    func read(into buffer: UnsafeMutableBufferPointer<Int16>) throws
    /// Which server or device this is, for `hark doctor`.
    var label: String { get }
}

/// Opens the default output or input: PulseAudio's (which PipeWire also serves), else ALSA's
/// default device. `pulseServer` names a server other than the usual one (tests start their own).
public struct AudioDevices: Sendable {
    public var pulseServer: String?
    /// The server's sink and source hark's own streams use instead of the default ones: the
    /// echo canceller's, while `/talk` has one (`EchoCanceller`). Only PulseAudio has them, so
    /// with these set there is no falling back to ALSA.
    public var pulseSink: String?
    public var pulseSource: String?
    /// Milliseconds of audio the server buffers: how soon speech stops and dictation hears.
    public var latencyMilliseconds = 100

    public init(pulseServer: String? = nil) {
        self.pulseServer = pulseServer
    }

    public func openOutput(sampleRate: Int) throws -> AudioSink {
        if let pulseSink {
            return try PulseStream(server: pulseServer, device: pulseSink, record: false, sampleRate: sampleRate,
                                   latencyMilliseconds: latencyMilliseconds)
        }
        var reasons: [String] = []
        do { return try PulseStream(server: pulseServer, record: false, sampleRate: sampleRate, latencyMilliseconds: latencyMilliseconds) } catch {
            reasons.append(error.userMessage)
        }
        do { return try ALSAStream(capture: false, sampleRate: sampleRate, latencyMilliseconds: latencyMilliseconds) } catch {
            reasons.append(error.userMessage)
        }
        throw HarkError.unavailable("no audio output: " + reasons.joined(separator: "; "),
                                    hint: "start PulseAudio or PipeWire (pulseaudio --start), or write a WAV with --wav FILE")
    }

    public func openInput(sampleRate: Int) throws -> AudioSource {
        if let pulseSource {
            return try PulseStream(server: pulseServer, device: pulseSource, record: true, sampleRate: sampleRate,
                                   latencyMilliseconds: 20)
        }
        var reasons: [String] = []
        do { return try PulseStream(server: pulseServer, record: true, sampleRate: sampleRate, latencyMilliseconds: 20) } catch {
            reasons.append(error.userMessage)
        }
        do { return try ALSAStream(capture: true, sampleRate: sampleRate, latencyMilliseconds: 20) } catch {
            reasons.append(error.userMessage)
        }
        throw HarkError.unavailable("no microphone: " + reasons.joined(separator: "; "),
                                    hint: "start PulseAudio or PipeWire (pulseaudio --start) and plug in a microphone")
    }
}

/// Speech kept in memory, for a WAV file or a test that checks what was said.
public final class PCMRecorder: AudioSink, @unchecked Sendable {
    public let sampleRate: Int
    private let lock = Lock()
    private var recorded: [Int16] = []

    public init(sampleRate: Int) {
        self.sampleRate = sampleRate
    }

    public var samples: [Int16] { lock.withLock { recorded } }

    public func write(_ samples: UnsafeBufferPointer<Int16>) throws {
        lock.withLock { recorded.append(contentsOf: samples) }
    }

    public func drain() {}
    public func discard() {}
}
