import Foundation
import Testing
import TestSupport
@testable import HarkCore

@Suite struct NylaSessionTests {
    static func config(_ url: String, extra: String = "") -> String {
        "[session work]\nkind = nyla\nurl = \(url)\nlanguage = en\n\(extra)\n[session notes]\nkind = local\n"
    }

    /// The agent's reply to the first message uses every event type, cut into awkward chunks.
    static let script: TestNylaGateway.Script = { request in
        guard request.prompt.hasPrefix("Draft") else { return TestNylaGateway.echo(request) }
        return [
            .event(["type": "status", "message": "Planning"]),
            .event(["type": "tool_activity", "tool": "file_search", "status": "started", "message": "notes.md"]),
            .event(["type": "agent_progress", "agent": "writer", "step": 1, "totalSteps": 2, "message": "outlining"]),
            .chunk("## Q3 summary\n\nRevenue grew "), .chunk("12 % — größer als geplant."),
            .typed("tool_activity", ["tool": "file_search", "status": "done"]),
            .event(["type": "dataSourceAccess", "dataSource": ["id": "ds-crm", "name": "CRM"], "access": "read"]),
            .createFile(name: "q3.md", content: "# Q3\n"),
            .proposeEdit(fileID: "file-notes", content: "# Notes\nalpha\nBETA\ngamma\ndelta\n", description: "update the notes"),
            .event(["type": "agent_summary", "agent": "writer", "summary": "Drafted the summary\nand updated notes"]),
            .complete,
        ]
    }

    /// Local times of messages stored today differ from run to run; dates from the gateway do not.
    static func normalized(_ text: String) -> String {
        text.replacingOccurrences(of: #"· \d{2}:\d{2}\n"#, with: "· HH:MM\n", options: .regularExpression)
    }

    @Test func aWholeSession() async throws {
        let gateway = try TestNylaGateway(awkward: true, script: Self.script)
        let home = TestHome(config: Self.config(gateway.url))
        let workspace = try home.workspace()
        let interaction = ScriptedInteraction(["ann", "s3cret pass"])
        workspace.interaction = interaction
        let files = TemporaryDirectory()
        let brief = files.write("brief.txt", "Brief: keep it short.\n")
        let downloads = TemporaryDirectory()
        let host = "127.0.0.1:\(gateway.http.port)"
        let store = workspace.store
        let transcript = Transcript(workspace)
        let fromWebApp = gateway.addWorkflow(instance: "ws1", name: "From the web app",
                                             messages: [("user", "Where are the minutes?"), ("assistant", "In docs/minutes.md.")])
        // Not logged in yet: one line says what to do.
        for line in ["/session work", "hello", "/login", "/instances", "/instance ws1", "Draft the Q3 summary"] {
            await transcript.type(line)
        }
        #expect(workspace.currentConfig["instance"] == "ws1", "the choice is kept in the config")
        #expect(try workspace.backend(for: "work").promptBadge() == "1 edit")
        let draft = try #require(try workspace.currentThread()?.backendID)
        for line in ["/threads", "/thread new Budget", "/thread rename Budget 2027", "What is left?", "/threads",
                     "/thread \(fromWebApp)", "/thread \(draft)", "/attach \(brief)", "Summarize the brief"] {
            await transcript.type(line)
        }
        let attached = try #require(gateway.fileIDs(named: "brief.txt").first)
        #expect(gateway.streamBodies.last?["fileIds"] == [.string(attached)])
        #expect(gateway.streamBodies.last?["workflowId"]?.string == draft)
        let proposed = try #require(gateway.editStatuses.keys.first)
        let second = gateway.addEdit(fileID: attached, content: "Brief: keep it very short.\n", description: "stress brevity")
        for line in ["/files", "/files docs", "/upload \(brief) docs", "/file file-notes", "/file file-logo",
                     "/download file-notes \(downloads.path)", "/edits", "/accept \(proposed)", "/reject all", "/edits",
                     "/prompts", "/prompt summarize topic=sales", "\u{15}/prompt translate", "\u{15}/logout", "/threads"] {
            // Ctrl-U (U+0015) first clears the input line a prompt was put into.
            await transcript.type(line)
        }
        let budget = try #require(try store.threads(session: "work").first { $0.title == "Budget 2027" }?.backendID)
        let uploaded = try #require(gateway.fileIDs(named: "brief.txt").last)
        func when(_ minute: Int) -> String { TimeFormat.short(TestNylaGateway.date(minute: minute)) }
        #expect(Self.normalized(transcript.text) == """
            > /session work
            > hello
            hark: not logged in to \(host); /login signs in (or set password = env:VAR, or auth = bearer:SECRET)
            > /login
            logged in to \(host) as Ann Example
            > /instances
            Acme AG (m1)
              Workspace
                ws1  Team workspace
              Chatbot
                cb1  Support bot
              Trustee
                tr1  Books 2026 (not a chat instance)
            Beta GmbH (m2)
              Workspace
                ws2  Beta research
            /instance ID chooses the one this session talks to
            > /instance ws1
            work now talks to Team workspace (workspace ws1, Acme AG); your next message starts a new thread
            > Draft the Q3 summary
            · thread: Chat: Draft the Q3 summary
            · Planning
            · tool file_search started: notes.md
            · writer 1/2: outlining
            ## Q3 summary

            Revenue grew 12 % — größer als geplant.
            · tool file_search done
            » data source: CRM (read)
            » file created: q3.md (file-6)
            » writer: Drafted the summary and updated notes
            » 1 pending edit; /edits shows it
            > /threads
            › \(draft) Chat: Draft the Q3 summary \(when(4))
              \(fromWebApp) From the web app           \(when(1))
            > /thread new Budget
            new thread #3 Budget (\(budget))
            > /thread rename Budget 2027
            renamed #3 to Budget 2027
            > What is left?
            · Thinking
            Echo: What is left?
            > /threads
            › \(budget) Budget 2027                \(when(6))
              \(draft) Chat: Draft the Q3 summary \(when(4))
              \(fromWebApp) From the web app           \(when(1))
            > /thread \(fromWebApp)
            loaded 2 messages from the gateway
            thread #4 From the web app (\(fromWebApp))
            you · \(when(1))
            Where are the minutes?
            work · \(when(1))
            In docs/minutes.md.
            > /thread \(draft)
            thread #2 Draft the Q3 summary (\(draft))
            you · HH:MM
            Draft the Q3 summary
            work · HH:MM
            ## Q3 summary

            Revenue grew 12 % — größer als geplant.
              » data source: CRM (read)
              » file created: q3.md (file-6)
              » writer: Drafted the summary and updated notes
              » 1 pending edit; /edits shows it
            > /attach \(brief)
            brief.txt uploaded as \(attached); it goes with your next message
            > Summarize the brief
            · Thinking
            Echo: Summarize the brief
            > /files
            fold-docs   docs/            folder
            \(attached)     brief.txt  22 B  text/plain     \(when(7))
            file-6      q3.md      5 B   text/markdown  \(when(2))
            file-notes  notes.md   25 B  text/markdown  \(when(0))
            > /files docs
            fold-drafts  drafts/         folder
            file-logo    logo.png  12 B  image/png  \(when(0))
            > /upload \(brief) docs
            uploaded brief.txt as \(uploaded) into docs (22 B)
            > /file file-notes
            notes.md · text/markdown · 25 B · lines 1–4 of 4
            # Notes
            alpha
            beta
            gamma
            > /file file-logo
            logo.png: image/png, 12 B; binary, /download file-logo saves it
            > /download file-notes \(downloads.path)
            saved notes.md (25 B) to \(downloads.path)/notes.md
            > /edits
            \(proposed)  notes.md · update the notes
            --- a/notes.md
            +++ b/notes.md
            @@ -1,4 +1,5 @@
             # Notes
             alpha
            -beta
            +BETA
             gamma
            +delta

            \(second)  brief.txt · stress brevity
            --- a/brief.txt
            +++ b/brief.txt
            @@ -1 +1 @@
            -Brief: keep it short.
            +Brief: keep it very short.

            /accept ID|all applies, /reject ID|all discards
            > /accept \(proposed)
            accepted \(proposed) (notes.md)
            1 pending edit left
            > /reject all
            rejected the pending edit
            > /edits
            no pending edits in Team workspace
            > /prompts
            summarize  three bullets on a topic
            translate  Translate the following text into German:
            review     Review the attached file for mistakes.
            /prompt NAME puts one in the input line
            > /prompt summarize topic=sales
            [input line: Summarize sales in three bullet points.]
            > /prompt translate
            [input line: Translate the following text into German: keep the tone]
            > /logout
            logged out of \(host); its cookies are deleted
            > /threads
            hark: login cancelled

            """)
        // The questions: the user name with echo, the password without; after /logout the next
        // command asks again (and this user gives up).
        #expect(interaction.questions.map(\.secret) == [false, true, false])
        #expect(interaction.questions.first?.prompt == "\(host) user: ")
        // The gateway's state changed as the user decided; the download is the file's content.
        #expect(gateway.fileContent("file-notes") == "# Notes\nalpha\nBETA\ngamma\ndelta\n")
        #expect(gateway.editStatuses == [proposed: "accepted", second: "rejected"])
        #expect(gateway.fileContent(attached) == "Brief: keep it short.\n")
        #expect(FileManager.default.contents(atPath: downloads.file("notes.md")) == Data("# Notes\nalpha\nbeta\ngamma\n".utf8))
        #expect(gateway.activeSessions == 0)
        #expect(gateway.misplacedRefreshCookies == 0, "the refresh cookie only goes to its own path")
        #expect(try workspace.backend(for: "work").promptBadge() == nil)
        try Self.checkHistory(store, draft: draft, budget: budget, fromWebApp: fromWebApp)
        try Self.checkNoSecrets(home, gateway: gateway)
    }

    @Test func rejectingOneEditLeavesItsFileAndAcceptingAllAppliesTheRest() async throws {
        let gateway = try TestNylaGateway()
        setenv("HARK_TEST_NYLA_EDITS_TOKEN", "tok-ann-123", 1)
        let home = TestHome(config: Self.config(gateway.url, extra: "auth = bearer:env:HARK_TEST_NYLA_EDITS_TOKEN\ninstance = ws1"))
        let workspace = try home.workspace()
        try workspace.switchSession(to: "work")
        let notes = gateway.addFile(name: "todo.txt", content: Array("buy milk\n".utf8), mimeType: "text/plain")
        let first = gateway.addEdit(fileID: "file-notes", content: "# Notes\nrejected\n", description: "one")
        let second = gateway.addEdit(fileID: notes, content: "buy oat milk\n", description: "two")
        let third = gateway.addEdit(fileID: notes, content: "buy oat milk\nand bread\n", description: "three")
        let transcript = Transcript(workspace)
        let shown = await transcript.type("/edits \(second)")
        #expect(shown == """
            > /edits \(second)
            \(second)  todo.txt · two
            --- a/todo.txt
            +++ b/todo.txt
            @@ -1 +1 @@
            -buy milk
            +buy oat milk

            /accept ID|all applies, /reject ID|all discards

            """)
        #expect(try workspace.backend(for: "work").promptBadge() == "3 edits")
        let rejected = await transcript.type("/reject \(first)")
        #expect(rejected == "> /reject \(first)\nrejected \(first) (notes.md)\n2 pending edits left\n")
        #expect(gateway.fileContent("file-notes") == "# Notes\nalpha\nbeta\ngamma\n")
        let accepted = await transcript.type("/accept all")
        #expect(accepted == "> /accept all\naccepted all 2 pending edits\n")
        #expect(gateway.editStatuses == [first: "rejected", second: "accepted", third: "accepted"])
        #expect(gateway.fileContent(notes) == "buy oat milk\nand bread\n")
        #expect(try workspace.backend(for: "work").promptBadge() == nil)
    }

    /// The threads carry the gateway's ids; replies are complete and hold only the reply text.
    static func checkHistory(_ store: HistoryStore, draft: String, budget: String, fromWebApp: String) throws {
        let threads = try store.threads(session: "work").sorted { $0.id < $1.id }
        #expect(threads.map(\.title) == ["hello", "Draft the Q3 summary", "Budget 2027", "From the web app"])
        #expect(threads.map(\.backendID) == [nil, draft, budget, fromWebApp])
        let failed = try store.messages(threadID: threads[0].id)
        #expect(failed.map(\.status) == [.complete, .failed])
        #expect(failed[1].error?.hasPrefix("not logged in to 127.0.0.1:") == true)
        let drafted = try store.messages(threadID: threads[1].id)
        #expect(drafted.map(\.role) == [.user, .assistant, .user, .assistant])
        #expect(drafted.map(\.status) == [.complete, .complete, .complete, .complete])
        #expect(drafted[1].text == "## Q3 summary\n\nRevenue grew 12 % — größer als geplant.", "no status line in the reply")
        #expect(drafted[1].backendID?.hasPrefix("m-") == true)
        #expect(drafted[3].text == "Echo: Summarize the brief")
        let imported = try store.messages(threadID: threads[3].id)
        #expect(imported.map(\.text) == ["Where are the minutes?", "In docs/minutes.md."])
        #expect(imported.map(\.createdAt) == [TestNylaGateway.date(minute: 1), TestNylaGateway.date(minute: 1)])
        #expect(try store.unreadCounts()["work"] == nil, "imported messages are not news")
    }

    /// Neither the password nor a cookie reaches the history database.
    static func checkNoSecrets(_ home: TestHome, gateway: TestNylaGateway) throws {
        let cookies = gateway.http.requests.compactMap { $0.header("cookie") }
        let sessionCookie = try #require(cookies.first.flatMap { header in
            header.split(separator: ";").first { $0.contains("nyla_session=") }?.split(separator: "=").last.map(String.init)
        })
        for suffix in ["", "-wal"] {
            guard let data = FileManager.default.contents(atPath: home.paths.historyDatabase + suffix) else { continue }
            let bytes = String(decoding: data, as: UTF8.self)
            #expect(!bytes.contains("s3cret pass"))
            #expect(!bytes.contains(sessionCookie))
        }
    }
}
