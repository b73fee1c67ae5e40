import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// Keys and signals at the prompt, in the shipped Shell through the fake terminal: a paste
/// shown as one line, Ctrl-L, Ctrl-Z and `fg`, the end of the terminal.
@Suite struct ShellKeysTests {
    @Test func aPasteIsOneSummaryLineAndEnterSendsAllOfIt() async throws {
        let home = TestHome()
        let transcript = Transcript(try home.workspace())
        await transcript.type("")
        let before = transcript.terminal.current.prompts
        transcript.terminal.type("summarize: \u{1B}[200~one\ntwo\nthree\u{1B}[201~\n")
        await transcript.terminal.until { $0.prompts > before }
        #expect(transcript.text.hasSuffix("> summarize: [pasted 3 lines]\n· noted\n"))
        #expect(transcript.terminal.prompt == "local · summarize: one › ", "the prompt stays, with no line of the paste above it")
        let note = try #require(try transcript.workspace.store.lastMessage(session: "local", role: .user))
        #expect(note.text == "summarize: one\ntwo\nthree")
    }

    @Test func tabOnAPastesSummaryShowsItsLinesToEditBeforeSending() async throws {
        let home = TestHome()
        let transcript = Transcript(try home.workspace())
        await transcript.type("")
        let before = transcript.terminal.current.prompts
        transcript.terminal.type("x \u{1B}[200~one\ntwo\nthree\u{1B}[201~\t four\n")
        await transcript.terminal.until { $0.prompts > before }
        #expect(transcript.text.hasSuffix("… x one\n… two\n> three four\n· noted\n"))
        let note = try #require(try transcript.workspace.store.lastMessage(session: "local", role: .user))
        #expect(note.text == "x one\ntwo\nthree four")
    }

    @Test func ctrlLClearsTheScreenAndDrawsTheDraftAgain() async throws {
        let home = TestHome()
        let transcript = Transcript(try home.workspace())
        await transcript.type("kept \\")
        let before = transcript.terminal.current.redraws
        transcript.terminal.type("\u{C}")
        await transcript.terminal.until { $0.redraws > before }
        #expect(transcript.text.hasSuffix("[screen cleared]\n… kept \n"))
    }

    @Test func ctrlZAtThePromptStopsHarkAndContinuingDrawsTheDraftAndTheLineAgain() async throws {
        let home = TestHome()
        let transcript = Transcript(try home.workspace())
        await transcript.type("kept \\")
        transcript.terminal.type("draft\u{1A}")
        await transcript.terminal.until { $0.suspensions == 1 }
        let before = transcript.terminal.current.redraws
        transcript.terminal.raise(SIGCONT)
        await transcript.terminal.until { $0.redraws > before }
        #expect(transcript.text.hasSuffix("… kept \n"), "the draft's lines above the line again, after the job shell's")
        let prompts = transcript.terminal.current.prompts
        transcript.terminal.type(" more\n")
        await transcript.terminal.until { $0.prompts > prompts }
        #expect(try transcript.workspace.store.lastMessage(session: "local", role: .user)?.text == "kept \ndraft more",
                "the draft and the line typed before the stop are still there")
    }

    @Test func theTerminalGoingAwayEndsTheShellAndSendsNothingHalfTyped() async throws {
        let home = TestHome()
        let transcript = Transcript(try home.workspace())
        await transcript.type("")
        transcript.terminal.type("half typed")
        transcript.terminal.closeKeyboard()
        await transcript.terminal.until { $0.ended }
        #expect(transcript.terminal.current.hungUp)
        #expect(try transcript.workspace.store.lastMessage(session: "local", role: .user) == nil)
    }
}
