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
        #expect(record[1].string == "submitted")
        #expect(record[2].string == "helpdesk")
        let bodies = server.http.requests.compactMap { try? JSON.parse($0.body) }
        #expect(bodies.count == 2)
        for body in bodies {
            #expect(body["action"]?.string == "sendMessage")
            #expect(body["sessionId"]?.string == record[0].string)
            let payload = try JSON.parse(body["chatInput"]?.string ?? "")
            #expect(payload["form"]?.string == "ticket")
            #expect(payload["form_id"]?.string == record[0].string)
            #expect(payload["submitted_at"]?.string == TimeFormat.iso8601(clock.now))
            #expect(payload["answers"] == ["topic": "login", "details": "cannot sign in since Monday", "urgent": false])
        }
        // The reply is kept in the form's thread like any other.
        let thread = try #require(try workspace.currentThread())
        #expect(try workspace.store.lastMessage(threadID: thread.id, role: .assistant)?.text
            == "Sent to helpdesk, which answered:\nTicket #42 created for login")
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

    static func modelHome(_ server: TestOpenAIServer) -> TestHome {
        TestHome(config: """
            [session local]
            kind = local
            llm = llama

            [session llama]
            kind = openai
            url = \(server.baseURL)
            model = tiny
            """, sharedPrompts: [TestHome.shippedPrompts])
    }

    /// The model's reply to each prompt, by what the user answered.
    static func modelScript(_ body: JSON) -> [TestOpenAIServer.Step] {
        let prompt = body["messages"]?.array?.last?["content"]?.string ?? ""
        if prompt.hasSuffix("Answer: I'm Ann Lee, reach me at ann@x.org") {
            // A code fence around it, and a phone number the phone field's pattern refuses.
            return [.text("```json\n{\"name\": \"Ann Lee\", "), .text("\"email\": \"ann@x.org\", \"phone\": \"none given\"}\n```"), .done]
        }
        if prompt.hasSuffix("Answer: ACME, I think") { return [.text("Sure! The company is ACME."), .done] }
        if prompt.hasSuffix("Answer: at the meetup two days ago") {
            return [.text("{\"met_on\": \"2025-12-30\", \"relationship\": \"friend\"}"), .done]
        }
        return [.text("{}"), .done]
    }

    @Test func aModelReadsSeveralAnswersOutOfFreeTextAndEveryValueIsStillChecked() async throws {
        let server = try TestOpenAIServer(script: Self.modelScript)
        let clock = TestClock()
        let workspace = try Self.modelHome(server).workspace(clock: clock.clock)
        let transcript = Transcript(workspace)
        for line in ["/form new-contact", "I'm Ann Lee, reach me at ann@x.org", "skip", "ACME, I think", "partner",
                     "at the meetup two days ago"] {
            await transcript.type(line)
        }
        #expect(transcript.text == """
            > /form new-contact
            New contact: Note down someone you met, while you still remember the details.
            9 questions, some only if they apply. Say help at any time to see what else you can say.
            1/9 Name: What is the person's full name?
            (2 to 100 characters)
            > I'm Ann Lee, reach me at ann@x.org
            · reading your answer with llama…
            Noted Name: Ann Lee; Email: ann@x.org.
            3/9 Phone: What is their phone number?
            (e.g. +49 30 1234567; optional: skip leaves it out)
            > skip
            4/9 Company: Which company or organisation are they with?
            (optional: skip leaves it out)
            > ACME, I think
            · reading your answer with llama…
            » llama did not answer with a JSON object; your answer was read by the rules
            5/9 Relationship: How do you know them?
            (one of: customer, supplier, partner, colleague, friend, other)
            > partner
            6/9 Met on: When did you meet?
            (a date such as 2026-01-01, today or yesterday, not after today; skip takes 2026-01-01)
            > at the meetup two days ago
            · reading your answer with llama…
            Noted Met on: 2025-12-30.
            7/9 Follow up: Do you want to follow up with them?
            (yes or no; skip takes no)

            """.replacingOccurrences(of: "2026-01-01", with: FormDate.local(clock.now).description))
        // Three prompts: clear answers (skip, partner) need no model.
        let prompts = server.bodies.compactMap { $0["messages"]?.array?.last?["content"]?.string }
        #expect(prompts.count == 3)
        #expect(prompts[0].contains("\"name\": text (Name)\n\"email\": an email address (Email)\n"))
        #expect(prompts[0].contains("\"relationship\": one of \"customer\", \"supplier\", \"partner\", \"colleague\", \"friend\", \"other\""))
        #expect(!prompts[0].contains("\"notes\""), "long texts are not left to a model")
        #expect(prompts[0].contains("\"follow_up_on\""), "a conditional field may be answered early")
        #expect(!prompts[2].contains("\"relationship\""), "answered fields are not asked for again")
        #expect(prompts[0].contains("The question asked was \"What is the person's full name?\" (key \"name\")."))
        #expect(!prompts[1].contains("\"email\""), "answered fields are not asked for again")
        // What the model read is checked like typed answers: the phone it made up was refused,
        // its relationship for a field already answered was ignored.
        let answers = try JSON.parse(try #require(try workspace.store.database.query("SELECT answers FROM local_forms").first?[0].string))
        #expect(answers == ["name": "Ann Lee", "email": "ann@x.org", "phone": nil, "company": "ACME, I think",
                            "relationship": "partner", "met_on": "2025-12-30"])
    }

    @Test func aFailingModelFallsBackToTheRulesAndSaysSo() async throws {
        let server = try TestOpenAIServer(status: 500, errorBody: #"{"error":{"message":"model not loaded","type":"server_error"}}"#) { _ in [] }
        let transcript = Transcript(try Self.modelHome(server).workspace())
        await transcript.type("/form new-contact")
        let output = await transcript.type("Ann Lee")
        #expect(output == """
            > Ann Lee
            · reading your answer with llama…
            » llama failed (127.0.0.1:\(server.http.port) answered HTTP 500: model not loaded); your answer was read by the rules
            2/9 Email: What is their email address?
            (an email address; optional: skip leaves it out)

            """)
    }

    @Test func anLLMSettingThatNamesNoSessionIsNamedInTheNotice() async throws {
        let home = TestHome(config: "[session local]\nkind = local\nllm = nowhere\n", sharedPrompts: [TestHome.shippedPrompts])
        let transcript = Transcript(try home.workspace())
        await transcript.type("/form new-contact")
        let output = await transcript.type("Ann Lee")
        #expect(output.contains("» the llm session nowhere cannot be used (no session named \"nowhere\"; `hark sessions` lists them); your answer was read by the rules\n2/9 Email"))
    }
}
