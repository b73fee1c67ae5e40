import FoundationEssentials
import Glibc

/// Short tones that tell, without looking, what the hands-free loop does: a rising pair when
/// it starts listening, one short high note when a message is sent, a falling pair when it
/// stops. Made here as sine waves (no sound files), faded in and out so they do not click.
public enum Cue: Sendable, CaseIterable {
    case listening
    case sent
    case stopped

    /// Each note: frequency in Hz and length in seconds.
    var notes: [(frequency: Double, seconds: Double)] {
        switch self {
        case .listening: return [(660, 0.07), (880, 0.09)]
        case .sent: return [(990, 0.06)]
        case .stopped: return [(880, 0.07), (587, 0.11)]
        }
    }

    /// 16-bit mono samples at `rate`, at about a quarter of full scale.
    public func samples(rate: Int) -> [Int16] {
        var samples: [Int16] = []
        let fade = max(1, rate / 200)  // 5 ms
        for note in notes {
            let count = Int(note.seconds * Double(rate))
            for index in 0..<count {
                let envelope = Double(min(index, count - 1 - index, fade)) / Double(fade)
                let value = sin(2 * Double.pi * note.frequency * Double(index) / Double(rate)) * 0.25 * min(1, envelope)
                samples.append(Int16(value * 32767))
            }
        }
        return samples
    }
}

/// Plays cues on the default output. `play` returns once the tone has been heard, so a cue
/// played before listening is not heard by the microphone.
public struct CuePlayer: Sendable {
    public static let rate = 16000
    let devices: AudioDevices

    public init(devices: AudioDevices) {
        self.devices = devices
    }

    public func play(_ cue: Cue) throws {
        let sink = try devices.openOutput(sampleRate: Self.rate)
        try cue.samples(rate: Self.rate).withUnsafeBufferPointer { try sink.write($0) }
        sink.drain()
    }
}
