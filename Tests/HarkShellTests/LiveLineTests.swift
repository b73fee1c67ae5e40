import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// The line edited below a streaming reply, in the shipped Shell through the fake terminal:
/// Enter acts at once (a command runs, a message to another session is sent, one to the
/// same session waits for the reply's end), Ctrl-C and Ctrl-Z act on the reply and leave
/// the line being typed for the next prompt.
@Suite struct LiveLineTests {
    /// A shell on `llama`, a loopback model whose first reply stops at `gate` after "half ",
    /// beside a second model session, `other`, that answers at once.
    struct Two {
        let gate = Gate()
        let llama: TestOpenAIServer
        let other: TestOpenAIServer
        let home: TestHome
        let transcript: Transcript

        init() throws {
            let gate = self.gate
            llama = try TestOpenAIServer { body in
                let question = body["messages"]?.array?.last?["content"]?.string ?? ""
                if question == "first" { return [.text("half "), .wait(gate), .text("whole"), .done] }
                return [.text("you said " + question), .done]
            }
            other = try TestOpenAIServer { _ in [.text("other here"), .done] }
            home = TestHome(config: "[session llama]\nkind = openai\nurl = \(llama.baseURL)\n\n"
                + "[session other]\nkind = openai\nurl = \(other.baseURL)\n")
            let workspace = try home.workspace()
            try workspace.switchSession(to: "llama")
            transcript = Transcript(workspace)
        }

        /// Types `line` with Enter below the streaming reply and waits until the line is read again.
        func enterDuringReply(_ line: String) async {
            let before = transcript.terminal.current.liveReads
            transcript.terminal.type(line + "\n")
            await transcript.terminal.until { $0.liveReads > before || $0.ended }
        }
    }

    @Test func stopTypedMidStreamStopsTheReply() async throws {
        let two = try Two()
        defer { two.gate.open() }
        let output = await two.transcript.type("first") { job in
            while job.text.isEmpty { await Task.yield() }
            two.transcript.terminal.type("/stop\n")
        }
        #expect(output == "> first\nhalf\n> /stop\nstopped 1 reply; what arrived is kept\n(stopped; what arrived is kept)\n")
        let reply = try #require(try two.transcript.workspace.store.lastMessage(session: "llama", role: .assistant))
        #expect(reply.status == .stopped)
        #expect(reply.text == "half ")
    }

    @Test func aMessageToTheSameSessionWaitsForTheReplyAndOneToAnotherGoesOut() async throws {
        let two = try Two()
        defer { two.gate.open() }
        let workspace = two.transcript.workspace
        await two.transcript.type("first") { job in
            while job.text.isEmpty { await Task.yield() }
            await two.enterDuringReply("second")
            #expect(two.llama.bodies.count == 1, "queued, not sent while the reply streams")
            await two.enterDuringReply("@other hello")
            #expect(workspace.runningJobs.contains { $0.session == "other" } || two.other.bodies.count == 1, "sent at once")
            two.gate.open()
        }
        await two.transcript.settle()
        let text = two.transcript.text
        #expect(text.hasPrefix("> first\nhalf\n> second\nqueued; sent when this reply ends\n> @other hello\n"
            + "↪ other answers in the background; you will hear when it is done\n"))
        // The rest of the reply starts its own row without the space held at the word break.
        #expect(text.contains("half whole\n") || text.contains("\nwhole\n"), "\(text)")
        // The notice of `other`'s reply may come at any moment after it was sent.
        let sending = try #require(text.range(of: "sending what you queued: second\n"))
        #expect(text[sending.upperBound...].contains("you said second\n"))
        #expect(text.contains("↩ other · hello: other here\n"))
        #expect(try workspace.store.lastMessage(session: "llama", role: .user)?.text == "second")
        #expect(two.llama.sentMessages.last?.last?.text == "second")
    }

    @Test func ctrlCStopsTheReplyAndTheLineBeingTypedComesBack() async throws {
        let two = try Two()
        defer { two.gate.open() }
        let output = await two.transcript.type("first") { job in
            while job.text.isEmpty { await Task.yield() }
            two.transcript.terminal.type("not yet sent\u{3}")
        }
        #expect(output == "> first\nhalf\n(stopped; what arrived is kept)\n[input line: not yet sent]\n")
        await two.transcript.type("")
        #expect(try two.transcript.workspace.store.lastMessage(session: "llama", role: .user)?.text == "not yet sent")
    }

    @Test func ctrlZSendsTheReplyToTheBackgroundAndAMessageQueuedBehindItWaitsForItsEnd() async throws {
        let two = try Two()
        let output = await two.transcript.type("first") { job in
            while job.text.isEmpty { await Task.yield() }
            await two.enterDuringReply("second")
            two.transcript.terminal.type("draft\u{1A}")
        }
        #expect(output.hasSuffix("↪ llama goes on in the background; you will hear when it is done\n[input line: draft]\n"))
        #expect(two.llama.bodies.count == 1, "the queued message waits for the reply in the background")
        let prompts = two.transcript.terminal.current.prompts
        two.gate.open()
        await two.transcript.settle()
        // The queued message goes out once the reply has ended; its reply ends at the next prompt.
        await two.transcript.terminal.until { $0.prompts > prompts }
        #expect(two.transcript.text.contains("↩ llama · first: half whole\n"))
        // The line being typed stays in the line, below the queued message's reply too.
        #expect(two.transcript.text.hasSuffix("sending what you queued: second\n[input line: draft]\nyou said second\n"
            + "[input line: draft]\n"))
    }

    @Test func ctrlDWhileAReplyStreamsQuitsOnceItAndWhatWasQueuedAreDone() async throws {
        let two = try Two()
        await two.transcript.type("first") { job in
            while job.text.isEmpty { await Task.yield() }
            await two.enterDuringReply("second")
            two.transcript.terminal.type("\u{4}")
            await two.enterDuringReply("")
            #expect(job.isRunning, "Ctrl-D does not stop the reply")
            two.gate.open()
        }
        await two.transcript.terminal.until { $0.ended }
        #expect(two.transcript.text.contains("hark quits once this reply has ended\n"))
        #expect(two.transcript.text.hasSuffix("sending what you queued: second\nyou said second\n"))
        #expect(try two.transcript.workspace.store.lastMessage(session: "llama", role: .assistant)?.status == .complete)
    }

    @Test func ctrlCBeforeTheFirstByteSaysNothingArrived() async throws {
        let gate = Gate()
        defer { gate.open() }
        let server = try TestOpenAIServer { _ in [.wait(gate), .text("late"), .done] }
        let home = TestHome(config: "[session llama]\nkind = openai\nurl = \(server.baseURL)\n")
        let workspace = try home.workspace()
        try workspace.switchSession(to: "llama")
        let transcript = Transcript(workspace)
        let output = await transcript.type("hello") { _ in
            while server.bodies.isEmpty { await Task.yield() }
            transcript.terminal.type("\u{3}")
        }
        #expect(output.hasSuffix("(stopped before any reply arrived)\n"), "\(output)")
        #expect(try workspace.store.lastMessage(session: "llama", role: .assistant) == nil)
    }
}
