import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// The real binary on a fresh machine, as the README's run command opens it: forms filled by
/// one process per answer (each a restart), and in a real terminal.
@Suite struct LocalFormCommandLineTests {
    func hark(_ arguments: [String], home: TestHome) async throws -> CommandLineTests.Run {
        let run = try await CommandLineTests().hark(arguments, home: home)
        #expect(run.status == 0, "hark \(arguments.joined(separator: " ")): \(run.stderr)")
        return run
    }

    @Test func aFormFilledOneProcessAtATimeIsResumedAndExported() async throws {
        let home = TestHome(sharedPrompts: [TestHome.shippedPrompts])
        let started = try await hark(["/form new-contact"], home: home)
        #expect(started.stdout.hasPrefix("New contact: Note down someone you met"))
        #expect(started.stdout.hasSuffix("1/8 Name: What is the person's full name?\n(2 to 100 characters)"))
        #expect(try await hark(["Ann Lee"], home: home).stdout.hasPrefix("2/8 Email: What is their email address?"))
        _ = try await hark(["/thread new"], home: home)
        #expect(try await hark(["a note between answers"], home: home).stdout.isEmpty, "a note has no reply")
        let resumed = try await hark(["/form resume"], home: home)
        #expect(resumed.stdout.hasPrefix("Back to New contact: 1 of 8 answered.\n2/8 Email"))
        for answer in ["ann@x.org", "skip", "skip", "friend", "yesterday", "no", "skip"] { _ = try await hark([answer], home: home) }
        let done = try await hark(["yes"], home: home)
        #expect(done.stdout == "New contact is complete.\n/form export [FILE] writes it as JSON and Markdown.")
        let directory = TemporaryDirectory()
        let export = try await hark(["/form export \(directory.path)/ann"], home: home)
        #expect(export.stdout == "wrote New contact to \(directory.path)/ann.json and \(directory.path)/ann.md\n")
        let json = try JSON.parse(try String(contentsOfFile: directory.file("ann.json"), encoding: .utf8))
        let yesterday = FormDate.local(Date()).adding(days: -1).description
        #expect(json["answers"] == ["name": "Ann Lee", "email": "ann@x.org", "phone": nil, "company": nil,
                                    "relationship": "friend", "met_on": .string(yesterday), "follow_up": false, "notes": nil])
        #expect(try String(contentsOfFile: directory.file("ann.md"), encoding: .utf8).contains("## Relationship\n\nfriend\n"))
        let forms = try await hark(["/forms"], home: home).stdout
        #expect(forms.contains("done · /form export #ID writes one to files\n  #1  New contact  done"))
    }
}

@Suite(.enabled(if: TerminalDriver.isAvailable, "needs tmux; scripts/setup.sh --test installs it"))
struct LocalFormTerminalTests {
    @Test func theFirstMinuteFormsAPromptAndAResumeAfterQuitting() async throws {
        let home = TestHome(sharedPrompts: [TestHome.shippedPrompts])
        do {
            let terminal = try home.terminal()
            try await terminal.waitFor(text: "/prompts ready-made prompts.")
            try await terminal.waitFor(text: "Your files: /docs add PATH… makes them searchable, /ask QUESTION finds what answers it.")
            try await terminal.waitFor(text: "/help lists every command.")
            try terminal.enter("/forms")
            try await terminal.waitFor(text: "travel-expense  Travel expense claim")
            try terminal.type("/form new")
            try terminal.press("Tab")
            try await terminal.waitFor(text: "› /form new-contact")
            try terminal.press("Enter")
            try await terminal.waitFor(text: "1/8 Name: What is the person's full name?")
            try await terminal.waitFor(text: "local · New contact form 1/8 ›")
            try terminal.enter("Ann Lee")
            try await terminal.waitFor(text: "local · New contact form 2/8 ›")

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
        try await terminal.waitFor(text: "local · New contact form 2/8 ›")
        try terminal.enter("ann@x.org")
        try await terminal.waitFor(text: "3/8 Phone: What is their phone number?")
        try terminal.press("C-d")
        #expect(try await terminal.waitForExit() == 0)
    }

    /// The travel form filled with sentences as people type them, in a real terminal: values
    /// read out of them and confirmed, an ambiguous answer asked back, a correction, and the
    /// notes thread afterwards.
    @Test func theTravelFormFilledWithSentences() async throws {
        let home = TestHome(sharedPrompts: [TestHome.shippedPrompts])
        var environment = home.environment
        environment["TERM"] = "xterm-256color"
        environment["EDITRC"] = home.directory.write("editrc", "")
        let terminal = try TerminalDriver([BuiltProducts.hark], environment: environment, rows: 50)
        try await terminal.waitFor(text: "/help lists every command.")
        func say(_ line: String, then expected: String) async throws {
            try terminal.type(line)
            try terminal.press("Enter")
            try await terminal.waitFor(text: expected)
        }
        let today = FormDate.local(Date())
        // The prompt's badge counts as the question's header does: the questions asked with the
        // answers so far (the distance only for an own car, the missing receipts only without).
        try await say("/form travel-expense", then: "1/10 Name: What is your full name?")
        try await terminal.waitFor(text: "Travel expense claim form 1/10 ›")
        try await say("I'm Ann Lee, employee e01234", then: "Noted Employee number: E01234.")
        try await terminal.waitFor(text: "3/10 Purpose: What was the trip for?")
        try await say("a customer workshop", then: "4/10 Destination")
        try await say("Lisbon", then: "5/10 Departure")
        try await say("I left 6 days ago", then: "Noted Departure: \(today.adding(days: -6)).")
        try await say("2 days ago", then: "7/10 Transport")
        try await say("actually it was 3 days ago", then: "Return is now \(today.adding(days: -3)).")
        try await say("by car", then: "Did you mean own car or rental car?")
        try await say("my own car", then: "Noted Transport: own car.")
        try await say("about 320 km", then: "Noted Distance: 320 km.")
        try await say("€1,250.50", then: "10/11 Receipts")
        try await terminal.waitFor(text: "Travel expense claim form 10/11 ›")
        try await say("not really", then: "Noted Receipts: no.")
        try await say("the taxi receipt got wet", then: "12/12 Approver")
        try await terminal.waitFor(text: "Travel expense claim form 12/12 ›")
        try await say("it's boss@example.org", then: "Please check your answers:")
        try await terminal.waitFor(text: "1250.5 EUR")
        try await say("yes", then: "Travel expense claim is complete.")
        try await terminal.waitFor(text: "\nlocal › ")
        try terminal.type("book the next trip earlier")
        try terminal.press("Enter")
        // The note is stored, acknowledged, and the prompt names the thread it started.
        try await terminal.waitFor(text: "· noted")
        try await terminal.waitFor(text: "local · book the next trip earl… ›")
        try terminal.press("C-d")
        #expect(try await terminal.waitForExit() == 0)
        let store = try HistoryStore(path: home.paths.historyDatabase)
        let form = try JSON.parse(try #require(try store.database.scalar("SELECT answers FROM local_forms").string))
        #expect(form == ["employee": "Ann Lee", "employee_id": "E01234", "purpose": "a customer workshop", "destination": "Lisbon",
                         "departed": .string(today.adding(days: -6).description), "returned": .string(today.adding(days: -3).description),
                         "transport": "own car", "distance": 320, "amount": 1250.5, "receipts": false,
                         "missing_receipts": "the taxi receipt got wet", "approver": "boss@example.org"])
        let note = try #require(try store.lastMessage(session: "local", role: .user))
        #expect(note.text == "book the next trip earlier")
        #expect(try store.thread(id: note.threadID)?.title == "book the next trip earlier")
    }
}

