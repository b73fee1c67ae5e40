import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// A chatbot instance: its own endpoints, threads that are only listed and deleted, no files
/// or pending edits; plus /info and Tab completion from what the session has seen.
@Suite struct NylaChatbotTests {
    @Test func aChatbotSessionFromStartToEnd() async throws {
        let gateway = try TestNylaGateway()
        let home = TestHome(config: "[session bot]\nkind = nyla\nurl = \(gateway.url)\nlanguage = fr\n")
        let workspace = try home.workspace()
        try workspace.switchSession(to: "bot")
        workspace.interaction = ScriptedInteraction(["ann", "s3cret pass"])
        let transcript = Transcript(workspace)
        let earlier = gateway.addWorkflow(instance: "cb1", name: "Opening hours",
                                          messages: [("user", "When do you open?"), ("assistant", "At nine.")])
        await transcript.type("/login")
        await transcript.type("/instance Support")
        await transcript.type("Bonjour")
        let thread = try #require(try workspace.currentThread()?.backendID)
        for line in ["/threads", "/thread \(earlier)", "/thread rename Hours", "/thread new Later", "/edits", "/files",
                     "/thread rm \(thread)"] {
            await transcript.type(line)
        }
        func when(_ minute: Int) -> String { TimeFormat.short(TestNylaGateway.date(minute: minute)) }
        #expect(transcript.text == """
            > /login
            logged in to 127.0.0.1:\(gateway.http.port) as Ann Example
            > /instance Support
            bot now talks to Support bot (chatbot cb1, Acme AG); your next message starts a new thread
            > Bonjour
            · thread: Chat: Bonjour
            · Thinking
            Echo: Bonjour
            > /threads
            › \(thread) Chat: Bonjour \(when(3))
              \(earlier) Opening hours \(when(1))
            > /thread \(earlier)
            loaded 2 messages from the gateway
            thread #2 Opening hours (\(earlier))
            you · \(when(1))
            When do you open?
            bot · \(when(1))
            At nine.
            > /thread rename Hours
            renamed #2 to Hours
            a chatbot's threads keep their name on the gateway; renamed here only
            > /thread new Later
            new thread #3 Later; the chatbot creates it with your first message
            > /edits
            hark: pending edits belong to workspace instances and Support bot is a chatbot; /instance switches
            > /files
            hark: files belong to workspace instances and Support bot is a chatbot; /instance switches
            > /thread rm \(thread)
            deleted thread Chat: Bonjour on the gateway and here

            """)
        let body = try #require(gateway.streamBodies.first)
        #expect(body["userLanguage"]?.string == "fr")
        #expect(body["workflowId"] == .null)
        #expect(body["dataSourceIds"] == nil, "a chatbot takes no data sources")
        #expect(gateway.http.requests.contains { $0.path == "/api/chatbot/cb1/start/stream" })
        #expect(gateway.workflowIDs(instance: "cb1") == [earlier])
        #expect(try workspace.store.threads(session: "bot").map(\.title).sorted() == ["Hours", "Later"])
        #expect(workspace.currentConfig["feature"] == "chatbot")
        #expect(workspace.currentConfig["mandate"] == "m1")
    }

    @Test func instanceWithoutAnIDOffersANumberedChoice() async throws {
        let gateway = try TestNylaGateway()
        let home = TestHome(config: "[session bot]\nkind = nyla\nurl = \(gateway.url)\nlanguage = en\n")
        let workspace = try home.workspace()
        try workspace.switchSession(to: "bot")
        let interaction = ScriptedInteraction(["ann", "s3cret pass", "2"])
        workspace.interaction = interaction
        let output = await Transcript(workspace).type("/instance")
        #expect(output == """
            > /instance
            logged in to 127.0.0.1:\(gateway.http.port) as Ann Example
            bot now talks to Support bot (chatbot cb1, Acme AG); your next message starts a new thread

            """)
        #expect(interaction.questions.last?.prompt == """
              1  Team workspace (workspace ws1, Acme AG)
              2  Support bot (chatbot cb1, Acme AG)
              3  Beta research (workspace ws2, Beta GmbH)
            instance (number or id):\u{20}
            """)
        #expect(workspace.currentConfig["instance"] == "cb1")
        // Without a terminal there is nobody to ask: the current choice is shown.
        workspace.interaction = NonInteractive()
        #expect(await Transcript(workspace).type("/instance") == "> /instance\nSupport bot (chatbot cb1, Acme AG)\n")
    }

    @Test func stoppingAChatbotReplyUsesTheChatbotsStopEndpoint() async throws {
        let gate = Gate()
        defer { gate.open() }
        let gateway = try TestNylaGateway { _ in [.chunk("thinking aloud"), .wait(gate), .complete] }
        let home = TestHome(config: "[session bot]\nkind = nyla\nurl = \(gateway.url)\ninstance = cb1\nmandate = m1\nfeature = chatbot\n"
            + "auth = bearer:env:HARK_TEST_NYLA_BOT_TOKEN\n")
        setenv("HARK_TEST_NYLA_BOT_TOKEN", "tok-ann-123", 1)
        let workspace = try home.workspace()
        try workspace.switchSession(to: "bot")
        let transcript = Transcript(workspace)
        await transcript.type("stop me") { job in
            while job.text != "thinking aloud" { await Task.yield() }
            await transcript.press(.ctrlC)
        }
        let workflow = try #require(try workspace.currentThread()?.backendID)
        #expect(gateway.http.requests.contains { $0.path == "/api/chatbot/cb1/stop/\(workflow)" })
        #expect(gateway.stops.map(\.instance) == ["cb1"])
    }

    @Test func infoAndTabCompletionShowWhatTheSessionKnows() async throws {
        let gateway = try TestNylaGateway()
        let home = TestHome(config: "[session work]\nkind = nyla\nurl = \(gateway.url)\ninstance = ws1\nlanguage = en\n")
        let workspace = try home.workspace()
        try workspace.switchSession(to: "work")
        let transcript = Transcript(workspace)
        let before = await transcript.type("/info")
        #expect(before.contains("\nlogin     not logged in; /login signs in\ninstance  ws1\n"))
        workspace.interaction = ScriptedInteraction(["ann", "s3cret pass"])
        for line in ["/login", "/instances", "/threads", "/thread new Alpha", "/files", "/prompts"] { await transcript.type(line) }
        gateway.addEdit(fileID: "file-notes", content: "changed\n", description: "x")
        await transcript.type("/edits")
        let info = await transcript.type("/info")
        #expect(info.contains("\nlogin          as Ann Example (cookies in \(NylaLoginFile(paths: home.paths, session: "work").path))\n"))
        #expect(info.contains("\ninstance       Team workspace (workspace ws1, mandate Acme AG)\n"))
        #expect(info.contains("\npending edits  1\n"))
        #expect(!info.contains("s3cret"))
        #expect(try workspace.backend(for: "work").promptBadge() == "1 edit")
        #expect(Completion.complete(line: "/instance ", workspace: workspace).candidates == ["ws1", "cb1", "ws2"])
        let alpha = try #require(gateway.workflowIDs(instance: "ws1").first)
        #expect(Completion.complete(line: "/thread rm ", workspace: workspace).candidates == [alpha])
        #expect(Completion.complete(line: "/prompt s", workspace: workspace).candidates == ["summarize"])
        #expect(Completion.complete(line: "/files dr", workspace: workspace).candidates == ["drafts"])
        #expect(Completion.complete(line: "/accept ", workspace: workspace).candidates.first == "all")
        #expect(Completion.complete(line: "/file file-n", workspace: workspace).candidates == ["file-notes"])
    }
}
