import FoundationEssentials
import Glibc

/// Time as hark sees it: the current date (cache expiry, what is recorded), durations (how
/// long a reply took) and waiting (retry backoff, a server's Retry-After, a server starting,
/// SQLite busy). Injected, so tests run retries, expiry and long waits without waiting for
/// real. This is the one place that reads the system's clocks for that.
public struct HarkClock: Sendable {
    public var now: @Sendable () -> Date
    /// Seconds on a clock that only moves forward, for durations: a change of the date (NTP,
    /// the user) must not make a reply look slower or faster.
    public var uptime: @Sendable () -> Double
    /// Waits `seconds`; throws CancellationError when the waiting task is cancelled.
    public var sleep: @Sendable (_ seconds: Double) async throws -> Void
    /// Waits `seconds` on the calling thread, for code that runs outside a task (SQLite's busy
    /// retries, a backup's steps).
    public var pause: @Sendable (_ seconds: Double) -> Void

    /// `uptime` defaults to seconds of `now`, and `pause` to a real wait: a test clock that
    /// gives only `now` and `sleep` measures durations on its own dates.
    public init(now: @escaping @Sendable () -> Date, sleep: @escaping @Sendable (_ seconds: Double) async throws -> Void,
                uptime: (@Sendable () -> Double)? = nil, pause: @escaping @Sendable (_ seconds: Double) -> Void = HarkClock.pauseThread) {
        self.now = now
        self.sleep = sleep
        self.uptime = uptime ?? { now().timeIntervalSinceReferenceDate }
        self.pause = pause
    }

    public static let system = HarkClock(now: { Date() }, sleep: { seconds in
        try await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000))
    }, uptime: {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    })

    /// Blocks the calling thread for `seconds`.
    @Sendable public static func pauseThread(_ seconds: Double) {
        usleep(useconds_t(max(0, min(seconds, 4_000)) * 1_000_000))
    }
}
