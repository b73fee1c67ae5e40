import CVoice
import FoundationEssentials
import Glibc

/// A PulseAudio stream (PipeWire's pulse server too) through libpulse-simple: 16-bit mono,
/// playback or recording. Freed with the object.
final class PulseStream: AudioSink, AudioSource, @unchecked Sendable {
    let sampleRate: Int
    let label: String
    private let stream: OpaquePointer

    /// `device` names a sink or source of the server (the echo canceller's); nil is the default one.
    init(server: String?, device: String? = nil, record: Bool, sampleRate: Int, latencyMilliseconds: Int) throws {
        if let problem = hark_pulse_load() { throw HarkError.io(String(cString: problem)) }
        self.sampleRate = sampleRate
        let latencyBytes = UInt32(sampleRate * 2 * latencyMilliseconds / 1000)
        var error: Int32 = 0
        let name = record ? "dictation" : "speech"
        guard let opened = hark_pulse_open(server, device, record ? 1 : 0, UInt32(sampleRate), 1, name, latencyBytes, &error) else {
            throw HarkError.io("PulseAudio: " + String(cString: hark_pulse_strerror(error)).lowercased())
        }
        stream = opened
        label = "PulseAudio" + (server.map { " at \($0)" } ?? "")
    }

    deinit { hark_pulse_free(stream) }

    func write(_ samples: UnsafeBufferPointer<Int16>) throws {
        guard let base = samples.baseAddress, !samples.isEmpty else { return }
        var error: Int32 = 0
        if hark_pulse_write(stream, base, samples.count * 2, &error) < 0 {
            throw HarkError.io("PulseAudio: " + String(cString: hark_pulse_strerror(error)).lowercased())
        }
    }

    func drain() {
        var error: Int32 = 0
        _ = hark_pulse_drain(stream, &error)
    }

    func discard() {
        var error: Int32 = 0
        _ = hark_pulse_flush(stream, &error)
    }

    func read(into buffer: UnsafeMutableBufferPointer<Int16>) throws {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return }
        var error: Int32 = 0
        if hark_pulse_read(stream, base, buffer.count * 2, &error) < 0 {
            throw HarkError.io("PulseAudio: " + String(cString: hark_pulse_strerror(error)).lowercased())
        }
    }
}
