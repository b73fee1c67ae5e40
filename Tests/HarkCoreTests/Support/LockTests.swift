import Testing
import Glibc
@testable import HarkCore

/// The POSIX stand-ins for NSLock, NSCondition, Thread and FileHandle.
@Suite struct LockTests {
    @Test func aConditionWakesItsWaiterAndATimedWaitTimesOut() async {
        let condition = Condition()
        nonisolated(unsafe) var ready = false
        let done = Inbox()
        Threads.start(name: "hark-test") {
            condition.withLock {
                ready = true
                condition.broadcast()
            }
            done.post()
        }
        condition.lock()
        while !ready { condition.wait() }
        // Nobody signals again: the timed wait returns false once its time is up.
        #expect(condition.wait(seconds: 0.05) == false)
        condition.unlock()
        await done.wait()
    }

    @Test func aRecursiveLockCanBeTakenAgain() {
        let lock = Lock(recursive: true)
        let value = lock.withLock { lock.withLock { 42 } }
        #expect(value == 42)
    }

    @Test func aFileIsWrittenSoughtAndRead() throws {
        let path = Paths.temporaryDirectory() + "/hark-posixfile-\(UInt32.random(in: 0...UInt32.max))"
        let writer = try #require(PosixFile(writingAtPath: path, private: true))
        try writer.write(Array("hello, world".utf8))
        writer.close()
        let reader = try #require(PosixFile(readingAtPath: path))
        #expect(reader.read(count: 5) == Array("hello".utf8))
        #expect(reader.offset == 5)
        #expect(reader.seekToEnd() == 12)
        reader.seek(to: 7)
        #expect(reader.readToEnd() == Array("world".utf8))
        #expect(reader.read(count: 10).isEmpty)
        #expect(PosixFile(readingAtPath: path + "-missing") == nil)
        unlink(path)
    }

    /// One-shot signal from a POSIX thread to an async test, without polling.
    final class Inbox: @unchecked Sendable {
        private let condition = Condition()
        private var posted = false
        func post() { condition.withLock { posted = true; condition.broadcast() } }
        func wait() async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                Threads.start(name: "hark-test-wait") {
                    self.condition.lock()
                    while !self.posted { self.condition.wait() }
                    self.condition.unlock()
                    continuation.resume()
                }
            }
        }
    }
}
