import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// Forms that understand people, with no model: several answers in one sentence, each
/// confirmed in a line; ambiguity asked back; corrections; and notes kept apart afterwards.
@Suite struct LocalFormReadingTests {
    static let access = """
        {"title": "Access request", "fields": [
          {"id": "name", "label": "Name", "required": true, "min": 2},
          {"id": "email", "label": "Email", "type": "email", "required": true},
          {"id": "employee_id", "label": "Employee number", "pattern": "E[0-9]{5}", "required": true},
          {"id": "product", "label": "Product", "type": "choice", "choices": ["web app", "desktop app", "mobile app", "API"],
           "required": true},
          {"id": "version", "label": "Version", "pattern": "[0-9]+\\\\.[0-9]+\\\\.[0-9]+"},
          {"id": "since", "label": "Since", "type": "date", "max": "today"}
        ]}
        """

    @Test func severalAnswersAtOnceAskedBackAndCorrected() async throws {
        let home = TestHome()
        home.writePrompt("forms/access.json", Self.access)
        let clock = TestClock()
        let workspace = try home.workspace(clock: clock.clock)
        let transcript = Transcript(workspace)
        let today = FormDate.local(clock.now)
        for line in ["/form access", "I'm Ann Lee, ann@x.org, employee e01234", "the app", "the mobile one",
                     "I'm on version 2.4.1 of it", "actually it was 2.4.2", "last friday",
                     "change my email to ann.lee@x.org please", "sorry, my version is 2.4.3", "yes"] {
            await transcript.type(line)
        }
        let friday = today.adding(days: -((today.weekday - 4 + 7) % 7 == 0 ? 7 : (today.weekday - 4 + 7) % 7))
        #expect(transcript.text == """
            > /form access
            Access request
            6 questions. Say help at any time to see what else you can say.
            1/6 Name?
            (at least 2 characters)
            > I'm Ann Lee, ann@x.org, employee e01234
            Noted Name: Ann Lee.
            Noted Email: ann@x.org.
            Noted Employee number: E01234.
            4/6 Product?
            (one of: web app, desktop app, mobile app, API)
            > the app
            Did you mean web app, desktop app or mobile app?
            > the mobile one
            Noted Product: mobile app.
            5/6 Version?
            (optional: skip leaves it out)
            > I'm on version 2.4.1 of it
            Noted Version: 2.4.1.
            6/6 Since?
            (a date such as \(today), today or yesterday, not after today; optional: skip leaves it out)
            > actually it was 2.4.2
            Version is now 2.4.2.
            6/6 Since?
            (a date such as \(today), today or yesterday, not after today; optional: skip leaves it out)
            > last friday
            Noted Since: \(friday).
            Please check your answers:
              Name             Ann Lee
              Email            ann@x.org
              Employee number  E01234
              Product          mobile app
              Version          2.4.2
              Since            \(friday)
            Say yes to finish, change FIELD to correct an answer, or cancel.
            > change my email to ann.lee@x.org please
            Email is now ann.lee@x.org.
            Please check your answers:
              Name             Ann Lee
              Email            ann.lee@x.org
              Employee number  E01234
              Product          mobile app
              Version          2.4.2
              Since            \(friday)
            Say yes to finish, change FIELD to correct an answer, or cancel.
            > sorry, my version is 2.4.3
            Version is now 2.4.3.
            Please check your answers:
              Name             Ann Lee
              Email            ann.lee@x.org
              Employee number  E01234
              Product          mobile app
              Version          2.4.3
              Since            \(friday)
            Say yes to finish, change FIELD to correct an answer, or cancel.
            > yes
            Access request is complete.
            /form export [FILE] writes it as JSON and Markdown.

            """)
        // After the form, plain messages are notes again, in a thread of their own.
        await transcript.type("remember to ask Bob for the badge")
        let note = try #require(try workspace.store.lastMessage(session: "local", role: .user))
        #expect(try workspace.store.thread(id: note.threadID)?.title == "remember to ask Bob for the badge")
        let form = try #require(try workspace.store.database.scalar("SELECT thread_id FROM local_forms").int64)
        #expect(note.threadID != form)
        #expect(try workspace.backend(for: "local").promptBadge() == nil)
    }

    @Test func aCancelledFormLeavesItsThreadAndACorrectionThatFitsTwoAnswersIsAskedBack() async throws {
        let home = TestHome(sharedPrompts: [TestHome.shippedPrompts])
        let workspace = try home.workspace(clock: TestClock().clock)
        let transcript = Transcript(workspace)
        // Notes written before the form: the session comes back to their thread after it.
        await transcript.type("pack the charger")
        for line in ["/form travel-expense", "Ann Lee", "E01234", "a workshop", "Lisbon", "6 days ago", "2 days ago", "train"] {
            await transcript.type(line)
        }
        let both = await transcript.type("actually it was 3 days ago")
        #expect(both == """
            > actually it was 3 days ago
            That could change Departure or Return; say change FIELD to VALUE.

            """)
        let cancelled = await transcript.type("/form cancel")
        #expect(cancelled.hasSuffix("Cancelled Travel expense claim; plain messages are notes again.\n"))
        let formThread = try #require(try workspace.store.threads(session: "local").first { $0.title == "Travel expense claim" })
        #expect(try workspace.store.lastMessage(threadID: formThread.id, role: .assistant)?.text
            == "Cancelled Travel expense claim; plain messages are notes again.", "the reply is kept with the form")
        #expect(try workspace.currentThread()?.title == "pack the charger")
        await transcript.type("and the adapter")
        let notes = try #require(try workspace.currentThread())
        #expect(try workspace.store.messages(threadID: notes.id).map(\.text) == ["pack the charger", "and the adapter"])
    }
}
