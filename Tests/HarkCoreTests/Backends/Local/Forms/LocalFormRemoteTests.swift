import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// A form's two ways out of the machine, both only when configured: its answers submitted to
/// a webhook session (a loopback n8n), and a model (a loopback OpenAI server) reading answers.
@Suite struct LocalFormRemoteTests {
    static let ticket = """
        {
          "title": "Support ticket",
          "submit": "helpdesk",
          "fields": [
            {"id": "topic", "type": "choice", "choices": ["billing", "login"], "required": true},
            {"id": "details", "type": "text", "required": true},
            {"id": "urgent", "type": "yesno", "default": "no"}
          ]
        }
        """

    /// A flag a server handler reads from its own thread.
    final class Switch: @unchecked Sendable {
        private let lock = NSLock()
        private var on = false
        var isOn: Bool { lock.withLock { on } }
        func turnOn() { lock.withLock { on = true } }
    }

    @Test func aFinishedFormIsSubmittedToItsWebhookAndSentAgainAfterAFailure() async throws {
        let working = Switch()
        let server = try TestN8NServer { _, body in
            guard working.isOn else {
                return .whole(status: 500, contentType: "application/json",
                              body: #"{"code":0,"message":"Workflow could not be started!"}"#)
            }
            let answers = (try? JSON.parse(body["chatInput"]?.string ?? ""))?["answers"]
            return .streaming(["Ticket #42 ", "created for \(answers?["topic"]?.string ?? "?")"])
        }
        let home = TestHome(config: "[session helpdesk]\nkind = webhook\nurl = \(server.webhookURL)\n")
        home.writePrompt("forms/ticket.json", Self.ticket)
        let clock = TestClock()
        let workspace = try home.workspace(clock: clock.clock)
        let transcript = Transcript(workspace)
        for line in ["/forms", "/form ticket", "login", "cannot sign in since Monday", "skip", "yes"] {
            await transcript.type(line)
        }
        working.turnOn()
        await transcript.type("/form submit")
        let port = server.http.port
        #expect(transcript.text == """
            > /forms
            forms to fill in · /form NAME starts one
              ticket  Support ticket  3 questions · sent to helpdesk · yours
            > /form ticket
            Support ticket
            3 questions. Say help at any time to see what else you can say.
            1/3 Topic?
            (one of: billing, login)
            > login
            2/3 Details?
            (any text)
            > cannot sign in since Monday
            3/3 Urgent?
            (yes or no; skip takes no)
            > skip
            Urgent: no (the default).
            Please check your answers:
              Topic    login
              Details  cannot sign in since Monday
              Urgent   no
            Say yes to finish, change FIELD to correct an answer, or cancel.
            > yes
            Support ticket is complete.
            · sending Support ticket to helpdesk…
            Could not send it to helpdesk (127.0.0.1:\(port) answered HTTP 500: Workflow could not be started!). \
            The answers are kept: /form submit tries again, /form export writes them to files.
            > /form submit
            · sending Support ticket to helpdesk…
            Sent to helpdesk, which answered:
            Ticket #42 created for login

            """)
        // Both attempts carried the same answers and the form's uid as the n8n session.
        let record = try #require(try workspace.store.database.query("SELECT uid, stage, submitted_to FROM local_forms").first)
        #expect(record["stage"].string == "submitted")
        #expect(record["submitted_to"].string == "helpdesk")
        let bodies = server.http.requests.compactMap { try? JSON.parse($0.body) }
        #expect(bodies.count == 2)
        for body in bodies {
            #expect(body["action"]?.string == "sendMessage")
            #expect(body["sessionId"]?.string == record["uid"].string)
            let payload = try JSON.parse(body["chatInput"]?.string ?? "")
            #expect(payload["form"]?.string == "ticket")
            #expect(payload["form_id"]?.string == record["uid"].string)
            #expect(payload["submitted_at"]?.string == TimeFormat.iso8601(clock.now))
            #expect(payload["answers"] == ["topic": "login", "details": "cannot sign in since Monday", "urgent": false])
        }
        // The reply is kept in the form's thread like any other; the session is back on its notes.
        let thread = try #require(try workspace.store.threads(session: "local").first { $0.title == "Support ticket" })
        #expect(try workspace.store.lastMessage(threadID: thread.id, role: .assistant)?.text
            == "Sent to helpdesk, which answered:\nTicket #42 created for login")
        #expect(try workspace.currentThread() == nil, "no notes before the form: the next note starts a thread")
    }

    @Test func aSubmitSessionThatDoesNotExistIsNamed() async throws {
        let home = TestHome()
        home.writePrompt("forms/ticket.json", Self.ticket)
        let transcript = Transcript(try home.workspace())
        for line in ["/form ticket", "billing", "double charge", "yes", "yes"] { await transcript.type(line) }
        #expect(transcript.text.hasSuffix("""
            > yes
            Support ticket is complete.
            Could not send it to helpdesk (no session named "helpdesk"; `hark sessions` lists them). \
            The answers are kept: /form submit tries again, /form export writes them to files.

            """))
    }

    /// `local` reading with `llama`, the test server; `local` and `model` are more lines of each.
    /// No time budget unless `local` sets one: on a loaded machine, a test's own wait is no measure.
    static func modelHome(_ server: TestOpenAIServer, local: String = "llm_timeout = 0", model: String = "") -> TestHome {
        TestHome(config: """
            [session local]
            kind = local
            llm = llama
            \(local)

            [session llama]
            kind = openai
            url = \(server.baseURL)
            model = tiny
            \(model)
            """, sharedPrompts: [TestHome.shippedPrompts])
    }

    /// The model's reply to each prompt, by what the user answered.
    static func modelScript(_ body: JSON) -> [TestOpenAIServer.Step] {
        let prompt = body["messages"]?.array?.last?["content"]?.string ?? ""
        if prompt.hasSuffix("Answer: the day after the conference") {
            // A field already answered, which must be ignored.
            return [.text("```json\n{\"met_on\": \"2025-12-30\", "), .text("\"relationship\": \"friend\"}\n```"), .done]
        }
        if prompt.hasSuffix("Answer: if they answer my mail") {
            // A date the field's minimum (today) refuses.
            return [.text("Sure! {\"follow_up\": true, \"follow_up_on\": \"2025-06-01\"}"), .done]
        }
        if prompt.hasSuffix("Answer: whenever") { return [.text("Sure! The answer is yes."), .done] }
        return [.text("{}"), .done]
    }

    /// The rules read what they can; the model is asked only for answers they cannot read, and
    /// what it proposes is checked like a typed answer.
    @Test func aModelReadsOnlyWhatTheRulesCannotAndEveryValueIsStillChecked() async throws {
        let server = try TestOpenAIServer(script: Self.modelScript)
        let clock = TestClock()
        let workspace = try Self.modelHome(server).workspace(clock: clock.clock)
        let transcript = Transcript(workspace)
        for line in ["/form new-contact", "I'm Ann Lee, reach me at ann@x.org", "skip", "ACME, I think", "partner",
                     "the day after the conference", "whenever", "if they answer my mail"] {
            await transcript.type(line)
        }
        #expect(transcript.text == """
            > /form new-contact
            New contact: Note down someone you met, while you still remember the details.
            9 questions, some only if they apply. Say help at any time to see what else you can say.
            1/8 Name: What is the person's full name?
            (2 to 100 characters)
            > I'm Ann Lee, reach me at ann@x.org
            Noted Name: Ann Lee.
            Noted Email: ann@x.org.
            3/8 Phone: What is their phone number?
            (e.g. +49 30 1234567; optional: skip leaves it out)
            > skip
            4/8 Company: Which company or organisation are they with?
            (optional: skip leaves it out)
            > ACME, I think
            5/8 Relationship: How do you know them?
            (one of: customer, supplier, partner, colleague, friend, other)
            > partner
            6/8 Met on: When did you meet?
            (a date such as 2026-01-01, today or yesterday, not after today; skip takes 2026-01-01)
            > the day after the conference
            · reading your answer with llama…
            Noted Met on: 2025-12-30.
            7/8 Follow up: Do you want to follow up with them?
            (yes or no; skip takes no)
            > whenever
            · reading your answer with llama…
            » llama did not answer with a JSON object; your answer was read by the rules
            Follow up needs yes or no; "whenever" is neither.
            > if they answer my mail
            · reading your answer with llama…
            Noted Follow up: yes.
            8/9 Follow up on: By when?
            (a date such as 2026-01-01, today or yesterday, not before today)

            """.replacingOccurrences(of: "2026-01-01", with: FormDate.local(clock.now).description))
        // Three prompts: what the rules read (a name and an address, a company, a choice) needed no model.
        let prompts = server.bodies.compactMap { $0["messages"]?.array?.last?["content"]?.string }
        #expect(prompts.count == 3)
        #expect(prompts[0].contains("\"met_on\" is a date written YYYY-MM-DD, or null if the answer does not say.\n"))
        // Only the open question's field is asked for: a small model offered the others guesses them.
        for other in ["follow_up", "follow_up_on", "relationship", "notes"] {
            #expect(!prompts[0].contains("\"\(other)\""), "\(other) is not asked for")
        }
        let schema = try #require(server.bodies.first?["response_format"]?["json_schema"]?["schema"]?["properties"]?.object)
        #expect(schema.keys.sorted() == ["met_on"])
        #expect(prompts[0].contains("The question was \"When did you meet?\""))
        // What the model sent beyond the field asked for is ignored: the relationship already
        // answered, and the follow-up date (before today, which the field would refuse anyway).
        let answers = try JSON.parse(try #require(try workspace.store.database.scalar("SELECT answers FROM local_forms").string))
        #expect(answers == ["name": "Ann Lee", "email": "ann@x.org", "phone": nil, "company": "ACME, I think",
                            "relationship": "partner", "met_on": "2025-12-30", "follow_up": true])
    }

    @Test func aFailingModelFallsBackToTheRulesAndSaysSo() async throws {
        let server = try TestOpenAIServer(status: 500, errorBody: #"{"error":{"message":"model not loaded","type":"server_error"}}"#) { _ in [] }
        let transcript = Transcript(try Self.modelHome(server).workspace())
        for line in ["/form new-contact", "Ann Lee", "skip", "skip", "skip", "friend"] { await transcript.type(line) }
        let output = await transcript.type("after the conference")
        #expect(output.hasPrefix("""
            > after the conference
            · reading your answer with llama…
            » llama failed (127.0.0.1:\(server.http.port) answered HTTP 500: model not loaded); your answer was read by the rules
            Met on needs a date such as
            """))
        #expect(server.bodies.count == 1, "answers the rules read went to no model")
    }

    @Test func anLLMSettingThatNamesNoSessionIsNamedInTheNotice() async throws {
        let home = TestHome(config: "[session local]\nkind = local\nllm = nowhere\n", sharedPrompts: [TestHome.shippedPrompts])
        let transcript = Transcript(try home.workspace())
        for line in ["/form new-contact", "Ann Lee", "skip", "skip", "skip", "friend"] { await transcript.type(line) }
        let output = await transcript.type("after the conference")
        #expect(output.contains("» the llm session nowhere cannot be used (no session named \"nowhere\"; `hark sessions` lists them); your answer was read by the rules\nMet on needs a date"))
    }
}
