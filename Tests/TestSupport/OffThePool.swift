import Foundation
import HarkCore

/// Runs blocking work (a child process to its end, loading a speech model, recording from a
/// sound server) on a thread of its own and waits for it without holding one of the
/// concurrency pool's threads: there are as many as cores, and on a two-core machine two
/// tests blocking them would stall every other test until its timeouts ran out.
public func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await Threads.run(name: "hark-test-work", work)
}

extension Subprocess {
    /// `run` on a thread of its own, for async tests: waiting for a whole program on one of the
    /// cooperative pool's two threads kept the suite's other awaits from resuming. Being the
    /// async overload, it is what an async test's `Subprocess.run` calls, with `await`.
    public static func run(_ arguments: [String], environment: [String: String]? = nil,
                           streams: Streams = .captured(input: nil), timeout: Double? = nil,
                           outputLimit: Int? = nil) async throws -> Result {
        try await offThePool {
            try Subprocess.run(arguments, environment: environment, streams: streams, timeout: timeout, outputLimit: outputLimit)
        }
    }
}
