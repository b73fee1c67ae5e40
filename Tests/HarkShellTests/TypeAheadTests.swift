import Foundation
import Testing
import TestSupport
@testable import HarkShell

/// Keys typed the moment a reply has been shown, while the shell is between two reads, are
/// the next read's. libedit ends each read in the kernel's line editing, where a Ctrl-D
/// becomes an end-of-line mark that later reads as NUL; the shell takes the terminal back at
/// once. The gap is short, so the Ctrl-D is sent the moment the reply shows, ten times:
/// before the fix, about half of such runs kept hark waiting at its prompt.
@Suite struct TypeAheadTests {
    @Test func aCtrlDTypedAsAReplyEndsIsNotLost() async throws {
        for attempt in 1...10 {
            let home = TestHome(sharedPrompts: [TestHome.shippedPrompts])
            let hark = try HangupTests.shell(in: home)
            defer { hark.end() }
            try await hark.waitFor("local ›")
            hark.type("/form bug-report\r")
            try await hark.waitFor("1/8")
            hark.type("Export crashes\r")
            try await hark.waitFor("Which product")
            hark.type("on my phone\r")
            try await hark.waitFor("Noted Product: mobile app.")
            hark.type("back\r")
            try await hark.waitFor("now: mobile app")
            hark.type("\u{4}")
            let exit = await hark.exit(within: 30)
            #expect(exit?.status == 0, "attempt \(attempt): hark still waits after Ctrl-D; it wrote:\n\(hark.text.suffix(400))")
            if exit == nil { break }
        }
    }
}
