import CVoice
import FoundationEssentials
import Glibc

/// ALSA's default device, for machines without a sound server: 16-bit mono, playback or
/// capture, resampled by ALSA's plug layer where the hardware needs it. Closed with the object.
final class ALSAStream: AudioSink, AudioSource, @unchecked Sendable {
    let sampleRate: Int
    let label = "ALSA (default device)"
    private let pcm: OpaquePointer

    init(capture: Bool, sampleRate: Int, latencyMilliseconds: Int) throws {
        if let problem = hark_alsa_load() { throw HarkError.io(String(cString: problem)) }
        self.sampleRate = sampleRate
        var opened: OpaquePointer?
        let result = hark_alsa_open(&opened, "default", capture ? 1 : 0, UInt32(sampleRate), 1,
                                    UInt32(latencyMilliseconds * 1000))
        guard result >= 0, let opened else {
            throw HarkError.io("ALSA: " + String(cString: hark_alsa_strerror(result)).lowercased())
        }
        pcm = opened
    }

    deinit { hark_alsa_close(pcm) }

    func write(_ samples: UnsafeBufferPointer<Int16>) throws {
        var offset = 0
        while offset < samples.count {
            let written = hark_alsa_write(pcm, samples.baseAddress! + offset, UInt(samples.count - offset))
            if written < 0 { throw HarkError.io("ALSA: " + String(cString: hark_alsa_strerror(Int32(written))).lowercased()) }
            offset += written
        }
    }

    func drain() { _ = hark_alsa_drain(pcm) }
    func discard() { _ = hark_alsa_drop(pcm) }

    func read(into buffer: UnsafeMutableBufferPointer<Int16>) throws {
        var offset = 0
        while offset < buffer.count {
            let got = hark_alsa_read(pcm, buffer.baseAddress! + offset, UInt(buffer.count - offset))
            if got < 0 { throw HarkError.io("ALSA: " + String(cString: hark_alsa_strerror(Int32(got))).lowercased()) }
            offset += got
        }
    }
}
