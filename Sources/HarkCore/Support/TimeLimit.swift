import FoundationEssentials
import Glibc

/// Work given a time budget: its result, or nil once `seconds` have passed, when the work is
/// cancelled (an HTTP reply being read stops at once, its connection closed). Real time, not
/// the injected clock: a budget is how long a person waits, and a test clock's waits end at once.
enum TimeLimit {
    static func run<T: Sendable>(seconds: Double?, _ work: @escaping @Sendable () async throws -> T) async throws -> T? {
        guard let seconds else { return try await work() }
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await work() }
            group.addTask {
                try await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000))
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { return nil }
            return first
        }
    }
}
