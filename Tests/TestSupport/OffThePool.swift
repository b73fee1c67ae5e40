import Foundation
import HarkCore

/// Runs blocking work (a child process to its end, loading a speech model, recording from a
/// sound server) on a thread of its own and waits for it without holding one of the
/// concurrency pool's threads: there are as many as cores, and on a two-core machine two
/// tests blocking them would stall every other test until its timeouts ran out.
public func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await Threads.run(name: "hark-test-work", work)
}
