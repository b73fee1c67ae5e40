import Testing
import Glibc
@testable import HarkCore

/// The watchdog that ends a hark stuck after it was told to end. Its expiry in hark is
/// `_exit`; here it is a closure that reports, so the test can see when it came.
@Suite struct EndingWatchdogTests {
    @Test func itExpiresOnlyAfterItsTriggerAndItsGrace() async {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        let triggered = Locked(false)
        let expiredAfterTrigger = Locked<Bool?>(nil)
        let expired = LockTests.Inbox()
        EndingWatchdog.start(trigger: fds[0], grace: 0.05) {
            expiredAfterTrigger.update { $0 = triggered.read { $0 } }
            expired.post()
        }
        // Time for a watchdog that did not wait for its trigger to go off before it is pulled.
        // A wrong watchdog fails the check below; a right one only waits this long.
        try? await Task.sleep(nanoseconds: 100_000_000)
        triggered.update { $0 = true }
        var one: UInt8 = 1
        #expect(write(fds[1], &one, 1) == 1)
        await expired.wait()
        #expect(expiredAfterTrigger.read { $0 } == true)
    }
}
