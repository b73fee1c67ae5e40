import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// Servers that misbehave the way real ones do. Each gives a correct result or one line on
/// stderr with a meaningful exit code: never a crash, never a hang past the timeouts, never
/// memory that grows with the reply.
@Suite struct FaultTests {
    static func chunk(_ text: String) -> String {
        "data: " + JSON.object(["choices": [["delta": ["content": .string(text)]]]]).encoded() + "\n\n"
    }

    /// Runs hark to its end, waiting off the concurrency pool: these tests run side by side,
    /// and blocking the pool's threads would stall every other test.
    func run(_ server: TestHTTPServer, settings: String = "", _ message: String = "hi") async throws -> (RunningProcess, Double) {
        let home = TestHome(config: "[session bot]\nkind = openai\nurl = \(server.baseURL)/v1\n\(settings)\n")
        let started = Date()
        let process = try RunningProcess([BuiltProducts.hark, "-s", "bot", message], environment: home.environment)
        // Timed where hark ends, not when a busy pool gets back to this test.
        let elapsed = try await offThePool { () -> Double in
            process.wait()
            return Date().timeIntervalSince(started)
        }
        return (process, elapsed)
    }

    func oneLine(_ text: String) -> Bool { text.hasPrefix("hark: ") && text.filter { $0 == "\n" }.count == 1 }

    @Test func aResetMidStreamKeepsThePartAndSaysSo() async throws {
        let server = try TestHTTPServer { _, response in
            response.startChunked(headers: [("Content-Type", "text/event-stream")])
            response.write(Self.chunk("half of it"))
            response.abort()
        }
        let (process, _) = try await run(server)
        #expect(await process.wait() == 4)
        #expect(process.stdoutText == "half of it")
        #expect(oneLine(process.stderrText), "\(process.stderrText)")
        #expect(process.stderrText.contains("the connection to 127.0.0.1:\(server.port) broke mid-reply"), "\(process.stderrText)")
        #expect(!process.stderrText.contains("cannot reach"), "the server was reached: it answered in part")
    }

    @Test func aStalledServerTimesOutWithinItsTimeout() async throws {
        let hold = Gate()
        defer { hold.open() }
        let server = try TestHTTPServer { _, response in
            response.startChunked(headers: [("Content-Type", "text/event-stream")])
            hold.wait(seconds: 30)
        }
        let (process, elapsed) = try await run(server, settings: "idle_timeout = 1\nfirst_byte_timeout = 1")
        #expect(await process.wait() == 4)
        #expect(process.stderrText == "hark: 127.0.0.1:\(server.port) timed out with no data after 1s; raise the session's timeout if the agent is slow\n")
        #expect(elapsed < 5, "gave up after \(elapsed)s")
    }

    @Test func noAnswerAtAllHitsTheFirstByteTimeout() async throws {
        let hold = Gate()
        defer { hold.open() }
        let server = try TestHTTPServer { _, _ in hold.wait(seconds: 30) }
        let (process, elapsed) = try await run(server, settings: "first_byte_timeout = 1")
        #expect(await process.wait() == 4)
        #expect(process.stderrText.contains("timed out waiting for the first byte after 1s"))
        #expect(elapsed < 5)
    }

    @Test func aDripStillArrivesWholeAndADripSlowerThanTheIdleTimeoutFails() async throws {
        let event = Array((Self.chunk("drip") + "data: [DONE]\n\n").utf8)
        func dripping(every pause: useconds_t) throws -> TestHTTPServer {
            try TestHTTPServer { _, response in
                response.startChunked(headers: [("Content-Type", "text/event-stream")])
                for byte in event {
                    if !response.write([byte]) { return }
                    usleep(pause)  // the fault under test: one byte at a time
                }
            }
        }
        let (fine, _) = try await run(try dripping(every: 10_000), settings: "idle_timeout = 1")
        #expect(await fine.wait() == 0)
        #expect(fine.stdoutText == "drip")
        let (slow, elapsed) = try await run(try dripping(every: 1_500_000), settings: "idle_timeout = 1")
        #expect(await slow.wait() == 4)
        #expect(slow.stderrText.contains("timed out with no data after 1s"))
        #expect(elapsed < 6)
    }

    @Test func anHTMLErrorPageIsOneLineWithItsTitle() async throws {
        let server = try TestHTTPServer { _, response in
            response.send(status: 502, headers: [("Content-Type", "text/html")],
                          text: "<html><head><title>502 Bad Gateway</title></head><body>" + String(repeating: "<p>x</p>", count: 500))
        }
        let (process, _) = try await run(server)
        #expect(await process.wait() == 6)
        #expect(process.stderrText == "hark: 127.0.0.1:\(server.port) answered HTTP 502: 502 Bad Gateway\n")
    }

    @Test func garbageWithStatus200IsAProtocolError() async throws {
        let server = try TestHTTPServer { _, response in
            response.send(headers: [("Content-Type", "text/event-stream")], body: [0x00, 0xFF, 0x1B] + Array("data: {nope\n\n".utf8))
        }
        let (process, _) = try await run(server)
        #expect(await process.wait() == 6)
        #expect(oneLine(process.stderrText), "\(process.stderrText)")
        #expect(!process.stderrText.contains("\u{1B}"), "no control characters from the server reach the terminal")
    }

    @Test func invalidUTF8BecomesReplacementCharacters() async throws {
        let server = try TestHTTPServer { _, response in
            response.startChunked(headers: [("Content-Type", "text/event-stream")])
            response.write(Array("data: {\"choices\":[{\"delta\":{\"content\":\"a".utf8) + [0xFF, 0xC3] + Array("b\"}}]}\n\n".utf8))
            response.write("data: [DONE]\n\n")
        }
        let (process, _) = try await run(server)
        #expect(await process.wait() == 0)
        #expect(process.stdoutText == "a\u{FFFD}\u{FFFD}b")
    }

    @Test func aTenMegabyteLineArrivesWhole() async throws {
        let text = String(repeating: "0123456789", count: 1_000_000)
        let server = try TestHTTPServer { _, response in
            response.startChunked(headers: [("Content-Type", "text/event-stream")])
            response.write(Self.chunk(text))
            response.write("data: [DONE]\n\n")
        }
        let (process, _) = try await run(server)
        #expect(await process.wait() == 0)
        #expect(process.stdout.count == text.utf8.count)
    }

    @Test func aHundredMegabyteReplyStreamsInBoundedMemory() async throws {
        let piece = Self.chunk(String(repeating: "abcdefghij", count: 6_553))  // ~64 KB of text per event
        let events = 100_000_000 / 65_530
        let server = try TestHTTPServer { _, response in
            response.startChunked(headers: [("Content-Type", "text/event-stream")])
            let block = Array(String(repeating: piece, count: 16).utf8)
            for _ in 0..<(events / 16) where response.write(block) {}
            response.write("data: [DONE]\n\n")
        }
        let (process, _) = try await run(server)
        #expect(await process.wait() == 0)
        #expect(process.stdout.count >= 99_000_000)
        #expect(process.maxRSSKilobytes > 0, "the peak was sampled")
        #expect(process.maxRSSKilobytes < 200_000, "peak RSS \(process.maxRSSKilobytes) KB")
    }
}
