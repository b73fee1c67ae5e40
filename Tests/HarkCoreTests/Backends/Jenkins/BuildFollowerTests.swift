import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// The build follower's waits are the workspace's clock's, and a consumer that goes away
/// stops it: it polls Jenkins no more.
@Suite(.timeLimit(.minutes(3))) struct BuildFollowerTests {
    /// A clock whose waits last until the waiting task is cancelled, which it tells.
    final class HeldClock: Sendable {
        let cancelled = Gate()

        var clock: HarkClock {
            HarkClock(now: { Date() }, sleep: { [cancelled] _ in
                do {
                    try await Task.sleep(nanoseconds: 600 * 1_000_000_000)
                } catch {
                    cancelled.open()
                    throw error
                }
            })
        }
    }

    @Test func aConsumerThatStopsListeningStopsThePolling() async throws {
        let server = try TestJenkinsServer()
        server.addJob("app")
        let number = server.startElsewhere("app")
        server.append("app", number, "half way\n")
        let held = HeldClock()
        let home = TestHome(config: JenkinsFixture.config(server))
        let workspace = try home.workspace(clock: held.clock)
        let backend = try #require(try workspace.backend(for: "ci") as? JenkinsBackend)
        let reader = Task {
            let events = backend.follower(JobPath(["app"])).events(from: .build(number))
            for try await event in events {
                if case .text = event { return }  // and the stream is dropped
            }
        }
        try await reader.value
        // The build still runs; the follower's wait before its next poll ends by cancellation.
        #expect(await held.cancelled.opened(within: 30))
        #expect(JenkinsFixture.progressive(server.answers).count == 1, "one console poll, no more once cancelled")
    }
}
