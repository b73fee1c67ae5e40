import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// A form among the session's other threads: resumed after a restart, cancelled, left for
/// notes, deleted with its thread; templates that are broken or replaced.
@Suite struct LocalFormSessionTests {
    static func hhmm(_ text: String) -> String {
        text.replacingOccurrences(of: #"\d\d:\d\d"#, with: "HH:MM", options: .regularExpression)
    }

    @Test func aFormIsResumedAfterARestartAndNotesGoElsewhere() async throws {
        let home = LocalFormTests.home()
        do {
            let first = Transcript(try home.workspace())
            await first.type("/form travel")
            await first.type("Ann Lee")
            await first.type("E01234")
        }
        // A new workspace on the same files, as after quitting hark.
        let workspace = try home.workspace()
        let transcript = Transcript(workspace)
        #expect(try workspace.backend(for: "local").promptBadge() == "form 3/10")
        await transcript.type("/thread new")
        await transcript.type("a note while away")
        #expect(try workspace.backend(for: "local").promptBadge() == nil, "a note thread has no form")
        await transcript.type("/forms")
        await transcript.type("/form resume trip")
        await transcript.type("/form resume")
        await transcript.type("Customer workshop")
        #expect(Self.hhmm(transcript.text) == """
            > /thread new
            your next message starts a new thread
            > a note while away
            · noted
            > /forms
            forms to fill in · /form NAME starts one
              bug-report      Bug report            9 questions
              new-contact     New contact           9 questions
              travel-expense  Travel expense claim  12 questions
            in progress · /form resume ID continues one
              #1  Travel expense claim  2 of 10 answered  HH:MM
            > /form resume trip
            hark: no form in progress matches "trip"; in progress: #1 Travel expense claim
            > /form resume
            Back to Travel expense claim: 2 of 10 answered.
            3/10 Purpose: What was the trip for?
            (at most 200 characters)
            > Customer workshop
            4/10 Destination: Where did you go?

            """ + "(any text)\n")
        let formThread = try #require(try workspace.currentThread())
        #expect(formThread.title == "Travel expense claim")
        #expect(try workspace.store.messages(threadID: formThread.id).map(\.text).suffix(4) == [
            "/form resume", "Back to Travel expense claim: 2 of 10 answered.\n3/10 Purpose: What was the trip for?\n(at most 200 characters)",
            "Customer workshop", "4/10 Destination: Where did you go?\n(any text)",
        ])
        let hits = try workspace.store.search("away")
        #expect(hits.map(\.threadTitle) == ["a note while away"])
        #expect(hits.first?.message.threadID != formThread.id)
    }

    @Test func helpQuotingCancelAndCommandsThatDoNotFit() async throws {
        let transcript = Transcript(try LocalFormTests.home().workspace())
        for line in ["/form cancel", "/form new-contact extra", "/form nope", "/form new-contact", "help", "\"back\"",
                     "change", "change emial", "change notes to x", "cancel", "hello again", "/form cancel", "/form export",
                     "/form submit"] {
            await transcript.type(line)
        }
        #expect(transcript.text == """
            > /form cancel
            hark: no form is open in this thread; /form resume ID switches to one first
            > /form new-contact extra
            hark: usage: /form NAME; /forms lists the forms
            > /form nope
            hark: no form named "nope"; /forms lists them
            > /form new-contact
            New contact: Note down someone you met, while you still remember the details.
            9 questions, some only if they apply. Say help at any time to see what else you can say.
            1/8 Name: What is the person's full name?
            (2 to 100 characters)
            > help
            Name: answer with 2 to 100 characters.
            Besides answering you can say: back (the question before), skip (leave an optional question out), \
            change FIELD (correct an answer; change FIELD to VALUE sets it at once), status (your answers so far), \
            cancel (drop the form). To answer with one of these words, put it in quotes.

            1/8 Name: What is the person's full name?
            (2 to 100 characters)
            > "back"
            2/8 Email: What is their email address?
            (an email address; optional: skip leaves it out)
            > change
            Say which answer to change, e.g. change name; the questions are Name, Email, Phone, Company, \
            Relationship, Met on, Follow up, Notes.
            > change emial
            There is no question called "emial"; did you mean email?
            > change notes to x
            Notes is now x.
            2/8 Email: What is their email address?
            (an email address; optional: skip leaves it out)
            > cancel
            Cancelled New contact; plain messages are notes again.
            > hello again
            · noted
            > /form cancel
            hark: no form is open in this thread; /form resume ID switches to one first
            > /form export
            hark: no form is filled in yet; /form NAME starts one, /forms lists them
            > /form submit
            hark: no form is filled in yet; /form NAME starts one, /forms lists them

            """)
        let row = try #require(try transcript.workspace.store.database.query("SELECT stage, answers FROM local_forms").first)
        #expect(row["stage"].string == "cancelled")
        #expect(try JSON.parse(row["answers"].string ?? "") == ["name": "back", "notes": "x"])
    }

    @Test func deletingAFormsThreadDropsTheFormAndHelpAndInfoTellAboutForms() async throws {
        let workspace = try LocalFormTests.home().workspace()
        let transcript = Transcript(workspace)
        let help = await transcript.type("/help")
        #expect(help.contains("""
            prompts and forms
              /prompts                                  list the prompt library (Markdown files in prompts/)
            """))
        #expect(help.contains("  /form [NAME|cancel|export|resume|submit]  fill in a form one question at a time"))
        await transcript.type("/form bug")
        #expect(try workspace.store.database.scalar("SELECT count(*) FROM local_forms").int == 1)
        let info = await transcript.type("/info")
        #expect(info.contains("forms         3 templates · 1 in progress · /forms lists them\n"))
        #expect(info.contains("answers       read by rules only; nothing leaves this machine\n"))
        await transcript.type("/thread rm")
        #expect(try workspace.store.database.scalar("SELECT count(*) FROM local_forms").int == 0)
        #expect(await transcript.type("/form resume")
            == "> /form resume\nhark: no form is in progress in local; /forms lists the forms you can start\n")
    }

    @Test func aBrokenTemplateIsReportedWithItsFileAndField() async throws {
        let home = LocalFormTests.home()
        let path = home.writePrompt("forms/broken.json", """
            {"title": "Broken", "fields": [{"id": "when", "type": "date", "requried": true}]}
            """)
        home.writePrompt("forms/bug-report.json", """
            {"title": "My own bug report", "fields": [{"id": "what", "required": true}]}
            """)
        let transcript = Transcript(try home.workspace())
        await transcript.type("/forms")
        await transcript.type("/form broken")
        await transcript.type("/form bug-report")
        #expect(transcript.text == """
            > /forms
            forms to fill in · /form NAME starts one
              bug-report      My own bug report     1 question · yours
              new-contact     New contact           9 questions
              travel-expense  Travel expense claim  12 questions
              \(path): field "when": it has an unknown key "requried"; did you mean "required"?
            > /form broken
            hark: \(path): field "when": it has an unknown key "requried"; did you mean "required"?
            > /form bug-report
            My own bug report
            1 question. Say help at any time to see what else you can say.
            1/1 What?
            (any text)

            """)
    }
}
