import Foundation
import HarkCore

/// A clock for tests: `now` moves only when told (or by a wait), and waits return at once,
/// recording how long the code asked to wait. Retries, cache expiry and a server's three
/// minutes to start run in no time; durations (`uptime`) are measured on `now`.
public final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date
    private var waits: [Double] = []

    public init(start: Date = Date(timeIntervalSince1970: 1_767_225_600)) {  // 2026-01-01T00:00:00Z
        current = start
    }

    public var now: Date { lock.withLock { current } }

    /// Every wait asked for, in seconds, in order.
    public var sleeps: [Double] { lock.withLock { waits } }

    public func advance(by seconds: Double) {
        lock.withLock { current = current.addingTimeInterval(seconds) }
    }

    public var clock: HarkClock {
        HarkClock(now: { [self] in now }, sleep: { [self] seconds in
            try Task.checkCancellation()
            lock.withLock {
                waits.append(seconds)
                current = current.addingTimeInterval(seconds)
            }
            await Task.yield()
        }, pause: { [self] seconds in
            lock.withLock {
                waits.append(seconds)
                current = current.addingTimeInterval(seconds)
            }
        })
    }
}
