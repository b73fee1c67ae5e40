import FoundationEssentials
import Glibc

/// Answers kept for a few minutes (five by default, as the seed's client does), so paging
/// back and forth, or opening a card seen a moment ago, costs no request against Monica's
/// 60-a-minute limit. In memory only: contacts are personal data and the history already
/// keeps what the user saw. The oldest entries go first when it is full.
final class MonicaCache: @unchecked Sendable {
    private struct Entry {
        var value: JSON
        var stored: Date
    }

    private let lifetime: Double
    private let capacity: Int
    private let now: @Sendable () -> Date
    private let lock = Lock()
    private var entries: [String: Entry] = [:]

    init(lifetime: Double, capacity: Int = 256, now: @escaping @Sendable () -> Date) {
        self.lifetime = lifetime
        self.capacity = capacity
        self.now = now
    }

    var isEnabled: Bool { lifetime > 0 }

    func value(for key: String) -> JSON? {
        guard isEnabled else { return nil }
        return lock.withLock {
            guard let entry = entries[key] else { return nil }
            guard now().timeIntervalSince(entry.stored) < lifetime else {
                entries[key] = nil
                return nil
            }
            return entry.value
        }
    }

    func store(_ value: JSON, for key: String) {
        guard isEnabled else { return }
        lock.withLock {
            entries[key] = Entry(value: value, stored: now())
            if entries.count > capacity, let oldest = entries.min(by: { $0.value.stored < $1.value.stored })?.key {
                entries[oldest] = nil
            }
        }
    }

    /// Forgets everything; returns how many answers were dropped.
    @discardableResult
    func clear() -> Int {
        lock.withLock {
            let count = entries.count
            entries = [:]
            return count
        }
    }

    /// Answers still fresh.
    var count: Int {
        let current = now()
        return lock.withLock { entries.values.filter { current.timeIntervalSince($0.stored) < lifetime }.count }
    }
}
