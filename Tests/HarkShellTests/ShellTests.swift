import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// The shipped Shell driven in-process through the fake terminal: what happens between the
/// keys and the screen (greeting, questions, keys typed during a reply, signals, Ctrl-D).
/// The same shell in a real terminal is the tmux tests' (InteractiveShellTests and others).
@Suite struct ShellTests {
    @Test func theFirstRunGreetsWithHintsAndAConfigProblemIsAWarning() async throws {
        let home = TestHome()
        let fresh = Transcript(try home.workspace())
        let greeting = await fresh.greeting
        #expect(greeting.hasPrefix("hark \(HarkVersion.string) · session local (local) · /help for commands, Ctrl-D to quit\n"))
        #expect(greeting.contains("This session is offline: messages are notes to self"))
        #expect(fresh.terminal.prompt == "local › ")
        await fresh.type("buy oat milk")
        let later = await Transcript(try home.workspace()).greeting
        #expect(!later.contains("This session is offline"), "the hints are for a session's first run: \(later)")

        let oddHome = TestHome(config: "[session notes]\nkind = local\ncolour = blue\n")
        let odd = Transcript(try oddHome.workspace())
        let warned = await odd.greeting
        #expect(warned.contains("\nwarning: "), "\(warned)")
        #expect(warned.contains("colour"))
    }

    /// Started again in a thread whose form is open, the shell asks the form's question again.
    @Test func aFormInProgressAsksItsQuestionAgainAtStart() async throws {
        let home = TestHome(sharedPrompts: [TestHome.shippedPrompts])
        let first = Transcript(try home.workspace())
        await first.type("/form new-contact")
        let asked = await first.type("Ann Lee")
        let question = try #require(asked.split(separator: "\n").last.map(String.init))
        let greeting = await Transcript(try home.workspace()).greeting
        #expect(greeting.contains("\nBack to New contact: 1 of "), "\(greeting)")
        #expect(greeting.hasSuffix(question + "\n"), "\(greeting)")
    }

    @Test func aQuestionAtTheTerminalShowsTheAnswerButNeverThePassword() async throws {
        let gateway = try TestNylaGateway()
        let home = TestHome(config: "[session work]\nkind = nyla\nurl = \(gateway.url)\nlanguage = en\n")
        let workspace = try home.workspace()
        try workspace.switchSession(to: "work")
        let transcript = Transcript(workspace)
        transcript.answerAtTheTerminal(["ann", "s3cret pass"])
        let output = await transcript.type("/login")
        let host = "127.0.0.1:\(gateway.http.port)"
        #expect(output == "> /login\n\(host) user: ann\npassword for ann: \nlogged in to \(host) as Ann Example\n")
        #expect(!transcript.text.contains("s3cret"))
    }

    /// A shell on a session of a loopback OpenAI server that answers with `script`; the
    /// server and the home live as long as it.
    struct Llama {
        let server: TestOpenAIServer
        let home: TestHome
        let transcript: Transcript
    }

    static func llama(_ script: @escaping TestOpenAIServer.Script) throws -> Llama {
        let server = try TestOpenAIServer(script: script)
        let home = TestHome(config: "[session llama]\nkind = openai\nurl = \(server.baseURL)\n")
        let workspace = try home.workspace()
        try workspace.switchSession(to: "llama")
        return Llama(server: server, home: home, transcript: Transcript(workspace))
    }

    @Test func aCommandTypedWhileAReplyStreamsRunsAtOnceAndTheReplyGoesOnBelowIt() async throws {
        let gate = Gate()
        defer { gate.open() }
        let llama = try Self.llama { _ in [.text("slow "), .wait(gate), .text("answer"), .done] }
        defer { withExtendedLifetime(llama) {} }
        let transcript = llama.transcript
        await transcript.type("think") { job in
            while job.text.isEmpty { await Task.yield() }
            let before = transcript.terminal.current.liveReads
            transcript.terminal.type("/threads\n")
            // Back at the line below the reply: the command has run while the reply still streams.
            await transcript.terminal.until { $0.liveReads > before }
            #expect(job.isRunning)
            gate.open()
        }
        await transcript.settle()
        let text = transcript.text.replacingOccurrences(of: #"\d\d:\d\d"#, with: "HH:MM", options: .regularExpression)
        // The reply goes on at the start of a row, without the space it held at the word break.
        #expect(text == "> think\nslow\n> /threads\n› #1 think 2 msg HH:MM\nanswer\n")
    }

    @Test func aTermSignalStopsTheReplyAndEndsTheShell() async throws {
        let gate = Gate()
        defer { gate.open() }
        let llama = try Self.llama { _ in [.text("half "), .wait(gate), .text("never"), .done] }
        defer { withExtendedLifetime(llama) {} }
        let transcript = llama.transcript
        let workspace = transcript.workspace
        let output = await transcript.type("go") { job in
            while job.text.isEmpty { await Task.yield() }
            transcript.terminal.raise(SIGTERM)
        }
        #expect(output == "> go\nhalf\n(stopped; what arrived is kept)\n")
        #expect(transcript.terminal.current.ended)
        #expect(try workspace.store.lastMessage(session: "llama", role: .assistant)?.status == .stopped)
    }

    @Test func ctrlDOnAnEmptyLineQuitsAndOnADraftDropsIt() async throws {
        let home = TestHome()
        let transcript = Transcript(try home.workspace())
        await transcript.type("first \\")
        #expect(transcript.terminal.prompt == "… ", "a trailing backslash keeps the line for the next one")
        await transcript.press(.ctrlD)
        #expect(!transcript.terminal.current.ended)
        #expect(transcript.terminal.prompt == "local › ")
        await transcript.press(.ctrlD)
        #expect(transcript.terminal.current.ended)
        #expect(try transcript.workspace.store.lastMessage(session: "local", role: .user) == nil, "the draft was never sent")
    }
}
