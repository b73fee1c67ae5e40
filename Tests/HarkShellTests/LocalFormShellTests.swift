import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// The real binary on a fresh machine, as the README's run command opens it: forms filled by
/// one process per answer (each a restart), and in a real terminal.
@Suite struct LocalFormCommandLineTests {
    func hark(_ arguments: [String], home: TestHome) throws -> CommandLineTests.Run {
        let run = try CommandLineTests().hark(arguments, home: home)
        #expect(run.status == 0, "hark \(arguments.joined(separator: " ")): \(run.stderr)")
        return run
    }

    @Test func aFormFilledOneProcessAtATimeIsResumedAndExported() throws {
        let home = TestHome(sharedPrompts: [TestHome.shippedPrompts])
        let started = try hark(["/form new-contact"], home: home)
        #expect(started.stdout.hasPrefix("New contact: Note down someone you met"))
        #expect(started.stdout.hasSuffix("1/9 Name: What is the person's full name?\n(2 to 100 characters)"))
        #expect(try hark(["Ann Lee"], home: home).stdout.hasPrefix("2/9 Email: What is their email address?"))
        _ = try hark(["/thread new"], home: home)
        #expect(try hark(["a note between answers"], home: home).stdout.isEmpty, "a note has no reply")
        let resumed = try hark(["/form resume"], home: home)
        #expect(resumed.stdout.hasPrefix("Back to New contact: 1 of 8 answered.\n2/9 Email"))
        for answer in ["ann@x.org", "skip", "skip", "friend", "yesterday", "no", "skip"] { _ = try hark([answer], home: home) }
        let done = try hark(["yes"], home: home)
        #expect(done.stdout == "New contact is complete.\n/form export [FILE] writes it as JSON and Markdown.")
        let directory = TemporaryDirectory()
        let export = try hark(["/form export \(directory.path)/ann"], home: home)
        #expect(export.stdout == "wrote New contact to \(directory.path)/ann.json and \(directory.path)/ann.md\n")
        let json = try JSON.parse(try String(contentsOfFile: directory.file("ann.json"), encoding: .utf8))
        let yesterday = FormDate.local(Date()).adding(days: -1).description
        #expect(json["answers"] == ["name": "Ann Lee", "email": "ann@x.org", "phone": nil, "company": nil,
                                    "relationship": "friend", "met_on": .string(yesterday), "follow_up": false, "notes": nil])
        #expect(try String(contentsOfFile: directory.file("ann.md"), encoding: .utf8).contains("## Relationship\n\nfriend\n"))
        let forms = try hark(["/forms"], home: home).stdout
        #expect(forms.contains("done · /form export #ID writes one to files\n  #1  New contact  done"))
    }
}

@Suite(.enabled(if: TerminalDriver.isAvailable, "needs tmux; scripts/setup.sh --test installs it"))
struct LocalFormTerminalTests {
    @Test func theFirstMinuteFormsAPromptAndAResumeAfterQuitting() async throws {
        let home = TestHome(sharedPrompts: [TestHome.shippedPrompts])
        do {
            let terminal = try home.terminal()
            try await terminal.waitFor(text: "/forms lists forms to fill in, /prompts ready-made prompts.")
            try await terminal.waitFor(text: "/help lists every command.")
            try terminal.enter("/forms")
            try await terminal.waitFor(text: "travel-expense  Travel expense claim")
            try terminal.type("/form new")
            try terminal.press("Tab")
            try await terminal.waitFor(text: "› /form new-contact")
            try terminal.press("Enter")
            try await terminal.waitFor(text: "1/9 Name: What is the person's full name?")
            try await terminal.waitFor(text: "local · New contact form 0/8 ›")
            try terminal.enter("Ann Lee")
            try await terminal.waitFor(text: "local · New contact form 1/8 ›")

            // A multi-line prompt goes into the draft and the input line; Enter sends it.
            try terminal.enter("/thread new")
            try terminal.enter("/prompt translate language=German text=Hallo")
            try await terminal.waitFor(text: "… Translate the text below into German.")
            try await terminal.waitFor(text: "… Hallo")
            try terminal.press("Enter")
            try await terminal.waitFor(text: "local · Translate the text belo… ›")
            try terminal.press("C-d")
            #expect(try await terminal.waitForExit() == 0)
        }
        let store = try HistoryStore(path: home.paths.historyDatabase)
        let note = try #require(try store.lastMessage(session: "local", role: .user))
        #expect(note.text.hasPrefix("Translate the text below into German."))
        #expect(note.text.hasSuffix("\n\nHallo"))

        // After quitting, /form resume brings the form back with its question.
        let terminal = try home.terminal()
        try await terminal.waitFor(text: "local · Translate")
        try terminal.enter("/form resume")
        try await terminal.waitFor(text: "Back to New contact: 1 of 8 answered.")
        try await terminal.waitFor(text: "local · New contact form 1/8 ›")
        try terminal.enter("ann@x.org")
        try await terminal.waitFor(text: "3/9 Phone: What is their phone number?")
        try terminal.press("C-d")
        #expect(try await terminal.waitForExit() == 0)
    }
}
