import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// Golden transcripts of whole form conversations in the local session, then the rows and
/// files they leave behind.
@Suite struct LocalFormTests {
    static func home(_ config: String = "") -> TestHome {
        TestHome(config: "[session local]\nkind = local\n" + config, sharedPrompts: [TestHome.shippedPrompts])
    }

    @Test func aBugReportWithInvalidAnswersBackChangeAndAConditionalField() async throws {
        let clock = TestClock()
        let home = Self.home()
        let workspace = try home.workspace(clock: clock.clock)
        let transcript = Transcript(workspace)
        let today = FormDate.local(clock.now)
        for line in ["/form bug", "Bug", "Export crashes on big files", "web", "desk", "v2", "2.4.1", "back", "3.0",
                     "skip", "maybe", "yes", "open a 20 MB file\nchoose Export", "skip", "\(today.adding(days: 1))",
                     "yesterday", "change severity to critical", "ann(at)x.org", "ann@Example.ORG", "change reproducible",
                     "no", "status", "yes"] {
            await transcript.type(line)
        }
        #expect(transcript.text == """
            > /form bug
            Bug report: Report a defect so that someone else can reproduce it and fix it.
            9 questions, some only if they apply. Say help at any time to see what else you can say.
            1/8 Summary: What went wrong, in one line?
            (5 to 120 characters)
            > Bug
            Summary needs at least 5 characters; yours has 3.
            > Export crashes on big files
            2/8 Product: Which product is it about?
            (one of: web app, desktop app, mobile app, API)
            > web
            3/8 Version: Which version are you using?
            (e.g. 2.4.1; optional: skip leaves it out)
            > desk
            Version should look like 2.4.1; "desk" does not.
            > v2
            Version should look like 2.4.1; "v2" does not.
            > 2.4.1
            4/8 Severity: How bad is it?
            (one of: low, medium, high, critical; skip takes medium)
            > back
            3/8 Version: Which version are you using?
            (e.g. 2.4.1; now: 2.4.1; skip keeps it)
            > 3.0
            4/8 Severity: How bad is it?
            (one of: low, medium, high, critical; skip takes medium)
            > skip
            Severity: medium (the default).
            5/8 Reproducible: Can you make it happen again?
            (yes or no)
            > maybe
            Reproducible needs yes or no; "maybe" is neither.
            > yes
            6/9 Steps to reproduce: Which steps make it happen?
            (end a line with \\ to write more lines)
            > [pasted 2 lines]
            7/9 Expected: What did you expect to happen instead?
            (end a line with \\ to write more lines; optional: skip leaves it out)
            > skip
            8/9 First noticed: When did you first notice it?
            (a date such as \(today), today or yesterday, not after today; optional: skip leaves it out)
            > \(today.adding(days: 1))
            First noticed cannot be after today (\(today)); \(today.adding(days: 1)) is.
            > yesterday
            9/9 Your email: Where can we reach you with questions about it?
            (an email address)
            > change severity to critical
            Severity is now critical.
            9/9 Your email: Where can we reach you with questions about it?
            (an email address)
            > ann(at)x.org
            Your email needs an email address such as name@example.org; "ann(at)x.org" is not one.
            > ann@Example.ORG
            Please check your answers:
              Summary             Export crashes on big files
              Product             web app
              Version             3.0
              Severity            critical
              Reproducible        yes
              Steps to reproduce  open a 20 MB file
                                  choose Export
              Expected            (skipped)
              First noticed       \(today.adding(days: -1))
              Your email          ann@example.org
            Say yes to finish, change FIELD to correct an answer, or cancel.
            > change reproducible
            5/9 Reproducible: Can you make it happen again?
            (yes or no; now: yes; skip keeps it)
            > no
            Please check your answers:
              Summary        Export crashes on big files
              Product        web app
              Version        3.0
              Severity       critical
              Reproducible   no
              Expected       (skipped)
              First noticed  \(today.adding(days: -1))
              Your email     ann@example.org
            Say yes to finish, change FIELD to correct an answer, or cancel.
            > status
            Bug report: 8 of 8 answered.
              Summary        Export crashes on big files
              Product        web app
              Version        3.0
              Severity       critical
              Reproducible   no
              Expected       (skipped)
              First noticed  \(today.adding(days: -1))
              Your email     ann@example.org

            Say yes to finish, change FIELD to correct an answer, or cancel.
            > yes
            Bug report is complete.
            /form export [FILE] writes it as JSON and Markdown.

            """)
        // The form has a thread of its own: the command, then answers and questions in turn.
        // Once it is done, the session is back on its notes: none were written, so the next starts a thread.
        #expect(try workspace.currentThread() == nil)
        let thread = try #require(try workspace.store.threads(session: "local").first { $0.title == "Bug report" })
        let messages = try workspace.store.messages(threadID: thread.id)
        #expect(messages.count == 46)
        #expect(messages.map(\.role) == [MessageRole.user, .assistant].repeated(23))
        #expect(messages[0].text == "/form bug")
        #expect(messages[24].text == "open a 20 MB file\nchoose Export")
        #expect(messages[25].text.hasPrefix("7/9 Expected"))
        // The progress row: done, the answers typed, the hidden field's answer kept aside.
        let row = try #require(try workspace.store.database.query(
            "SELECT stage, current_field, answers, template, completed_at FROM local_forms").first)
        #expect(row["stage"].string == "done")
        #expect(row["current_field"] == .null)
        #expect(row["template"].string == "bug-report")
        #expect(row["completed_at"].double == clock.now.timeIntervalSince1970)
        let answers = try JSON.parse(row["answers"].string ?? "")
        #expect(answers["reproducible"] == .bool(false))
        #expect(answers["severity"]?.string == "critical")
        #expect(answers["expected"] == .null)
        #expect(answers["steps"]?.string == "open a 20 MB file\nchoose Export")
        // After the form, plain messages are notes again, acknowledged, in a thread of their own.
        #expect(await transcript.type("remember to attach the log") == "> remember to attach the log\n· noted\n")
        let note = try #require(try workspace.store.lastMessage(session: "local", role: .user))
        #expect(note.text == "remember to attach the log")
        #expect(note.threadID != thread.id)
        #expect(try workspace.store.thread(id: note.threadID)?.title == "remember to attach the log")
    }

    @Test func exportWritesJSONAndMarkdownOfTheAskedQuestions() async throws {
        let clock = TestClock()
        let home = Self.home()
        let workspace = try home.workspace(clock: clock.clock)
        let transcript = Transcript(workspace)
        let today = FormDate.local(clock.now)
        for line in ["/form new-contact", "Ann Lee", "ann@x.org", "+49 30 1234567", "skip", "customer", "skip", "yes",
                     "\(today.adding(days: 7))", "Met at the Berlin meetup.\nLikes Swift.", "yes"] {
            await transcript.type(line)
        }
        let directory = TemporaryDirectory()
        let output = await transcript.type("/form export \(directory.path)/ann.json")
        #expect(output == "> /form export \(directory.path)/ann.json\nwrote New contact to \(directory.path)/ann.json and \(directory.path)/ann.md\n")
        let json = try String(contentsOfFile: directory.file("ann.json"), encoding: .utf8)
        let uid = try #require(try JSON.parse(json)["uid"]?.string)
        let stamp = TimeFormat.iso8601(clock.now)
        #expect(json == """
            {
              "answers": {
                "company": null,
                "email": "ann@x.org",
                "follow_up": true,
                "follow_up_on": "\(today.adding(days: 7))",
                "met_on": "\(today)",
                "name": "Ann Lee",
                "notes": "Met at the Berlin meetup.\\nLikes Swift.",
                "phone": "+49 30 1234567",
                "relationship": "customer"
              },
              "completed_at": "\(stamp)",
              "created_at": "\(stamp)",
              "fields": [
                {
                  "id": "name",
                  "label": "Name",
                  "type": "text",
                  "value": "Ann Lee"
                },
                {
                  "id": "email",
                  "label": "Email",
                  "type": "email",
                  "value": "ann@x.org"
                },
                {
                  "id": "phone",
                  "label": "Phone",
                  "type": "text",
                  "value": "+49 30 1234567"
                },
                {
                  "id": "company",
                  "label": "Company",
                  "type": "text",
                  "value": null
                },
                {
                  "id": "relationship",
                  "label": "Relationship",
                  "type": "choice",
                  "value": "customer"
                },
                {
                  "id": "met_on",
                  "label": "Met on",
                  "type": "date",
                  "value": "\(today)"
                },
                {
                  "id": "follow_up",
                  "label": "Follow up",
                  "type": "yesno",
                  "value": true
                },
                {
                  "id": "follow_up_on",
                  "label": "Follow up on",
                  "type": "date",
                  "value": "\(today.adding(days: 7))"
                },
                {
                  "id": "notes",
                  "label": "Notes",
                  "type": "multiline",
                  "value": "Met at the Berlin meetup.\\nLikes Swift."
                }
              ],
              "form": "new-contact",
              "id": 1,
              "status": "done",
              "submitted_to": null,
              "title": "New contact",
              "uid": "\(uid)"
            }

            """)
        let markdown = try String(contentsOfFile: directory.file("ann.md"), encoding: .utf8)
        let time = TimeFormat.format(clock.now)
        #expect(markdown == """
            # New contact

            Note down someone you met, while you still remember the details.

            _Form new-contact #1 · started \(time) · completed \(time)_

            ## Name

            Ann Lee

            ## Email

            ann@x.org

            ## Phone

            +49 30 1234567

            ## Company

            _skipped_

            ## Relationship

            customer

            ## Met on

            \(today)

            ## Follow up

            yes

            ## Follow up on

            \(today.adding(days: 7))

            ## Notes

            Met at the Berlin meetup.
            Likes Swift.


            """)
    }
}

extension Array {
    /// The elements, `count` times over.
    func repeated(_ count: Int) -> [Element] { (0..<count).flatMap { _ in self } }
}
