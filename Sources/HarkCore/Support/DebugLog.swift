import FoundationEssentials
import Glibc

/// What hark left aside without saying so (a frame of a type it does not know): with
/// HARK_DEBUG_LOG=FILE, one line each, appended with the time. Off otherwise. Lines are
/// bounded and carry no control characters; callers never pass secrets.
public final class DebugLog: @unchecked Sendable {
    public static let shared: DebugLog? = getenv("HARK_DEBUG_LOG").flatMap { value in
        let path = String(cString: value)
        return path.isEmpty ? nil : DebugLog(path: path)
    }

    private let lock = Lock()
    private let descriptor: Int32

    init?(path: String) {
        descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        if descriptor < 0 { return nil }
    }

    public func note(_ text: String) {
        let clean = String(text.prefix(2000).map { $0.isNewline || ($0.asciiValue.map { $0 < 0x20 || $0 == 0x7F } ?? false) ? " " : $0 })
        let line = TimeFormat.iso8601(HarkClock.system.now()) + " " + clean + "\n"
        lock.withLock { try? PosixFile(borrowing: descriptor).write(line.utf8) }
    }
}
