import FoundationEssentials
import Glibc

/// Time as a backend sees it: the current date (cache expiry) and waiting (retry backoff, a
/// server's Retry-After). Injected, so tests run retries and expiry without waiting for real.
public struct HarkClock: Sendable {
    public var now: @Sendable () -> Date
    /// Waits `seconds`; throws CancellationError when the waiting task is cancelled.
    public var sleep: @Sendable (_ seconds: Double) async throws -> Void

    public init(now: @escaping @Sendable () -> Date, sleep: @escaping @Sendable (_ seconds: Double) async throws -> Void) {
        self.now = now
        self.sleep = sleep
    }

    public static let system = HarkClock(now: { Date() }, sleep: { seconds in
        try await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000))
    })
}
