import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// Programs hark starts and does not wait for (`hark index`, `xdg-open`).
@Suite struct SubprocessTests {
    /// A detached program is reaped when it ends: a shell that opened pages kept one zombie
    /// for each until it exited. A zombie still answers `kill(pid, 0)`; a reaped process does not.
    @Test func aDetachedProgramLeavesNoZombie() async throws {
        let pid = try Subprocess.detach(["/bin/true"])
        let gone = try await offThePool { () -> Bool in
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline {
                if kill(pid, 0) != 0 && errno == ESRCH { return true }
                usleep(2_000)
            }
            return false
        }
        let state = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? "(none)"
        #expect(gone, "pid \(pid) was not reaped: \(state)")
    }
}
