import FoundationEssentials
import Glibc

/// Timestamps of voice events for measuring latency (scripts/bench/voice.py): with
/// HARK_VOICE_TRACE=FILE, hark appends one JSON object per event with `t`, seconds on the
/// system's monotonic clock (the one Python's time.monotonic() reads). Off otherwise.
public final class VoiceTrace: @unchecked Sendable {
    public static let shared: VoiceTrace? = ProcessInfo.processInfo.environment["HARK_VOICE_TRACE"].flatMap { path in
        path.isEmpty ? nil : VoiceTrace(path: path)
    }

    private let lock = Lock()
    private let descriptor: Int32

    init?(path: String) {
        descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        if descriptor < 0 { return nil }
    }

    public static var now: Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    public func record(_ event: String, _ fields: [String: JSON] = [:]) {
        var object = fields
        object["event"] = .string(event)
        object["t"] = .number(Self.now)
        let line = JSON.object(object).encoded() + "\n"
        lock.withLock { try? PosixFile(borrowing: descriptor).write(line.utf8) }
    }
}
