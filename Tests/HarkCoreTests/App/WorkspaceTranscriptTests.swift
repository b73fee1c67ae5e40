import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// Golden transcripts of the shell's core commands, driven like a user would type them.
@Suite struct WorkspaceTranscriptTests {
    static func home(_ server: TestOpenAIServer, extra: String = "") -> TestHome {
        setenv("HARK_TEST_OPENAI_KEY", "sk-test-very-secret", 1)
        return TestHome(config: """
            [session llama]
            kind = openai
            url = \(server.baseURL)
            model = tiny
            auth = bearer:env:HARK_TEST_OPENAI_KEY
            \(extra)
            [session notes]
            kind = local
            """)
    }

    @Test func notesThreadsHistorySearchAndExport() async throws {
        let server = try TestOpenAIServer(script: TestOpenAIServer.streaming(["unused"]))
        let home = Self.home(server)
        let transcript = Transcript(try home.workspace())
        await transcript.type("remember the aardvark")
        await transcript.type("/thread rename Zoo")
        await transcript.type("/thread new Groceries")
        await transcript.type("oat milk")
        await transcript.type("/threads")
        await transcript.type("/thread Zoo")
        await transcript.type("/search aardvark")
        await transcript.type("/history 1")
        await transcript.type("/export json")
        let text = transcript.text
            .replacingOccurrences(of: #"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"#, with: "TIME", options: .regularExpression)
            .replacingOccurrences(of: #"\d\d:\d\d"#, with: "HH:MM", options: .regularExpression)
        #expect(text == """
            > remember the aardvark
            · noted
            > /thread rename Zoo
            renamed #1 to Zoo
            > /thread new Groceries
            new thread #2 Groceries
            > oat milk
            · noted
            > /threads
            › #2 Groceries 1 msg HH:MM
              #1 Zoo       1 msg HH:MM
            > /thread Zoo
            thread #1 Zoo
            you · HH:MM
            remember the aardvark
            > /search aardvark
            #1 local · Zoo · you · HH:MM
              remember the aardvark
            > /history 1
            1 you · HH:MM
            remember the aardvark
            > /export json
            {
              "documents": [],
              "threads": [
                {
                  "created_at": "TIME",
                  "id": 1,
                  "messages": [
                    {
                      "created_at": "TIME",
                      "id": 1,
                      "role": "user",
                      "session": "local",
                      "status": "complete",
                      "text": "remember the aardvark",
                      "thread": 1
                    }
                  ],
                  "server_id": null,
                  "session": "local",
                  "title": "Zoo"
                }
              ]
            }

            """)
    }

    @Test func aReplyFinishingInTheBackgroundIsAnnouncedAndCountedUnread() async throws {
        let gate = Gate()
        let server = try TestOpenAIServer { _ in [.text("slow "), .wait(gate), .text("answer"), .done] }
        defer { gate.open() }
        let home = Self.home(server)
        let transcript = Transcript(try home.workspace())
        await transcript.type("/session llama")
        // The notice names what ran, not the thread it ran in.
        await transcript.type("/thread new research")
        await transcript.type("think hard") { job in
            while job.text.isEmpty { await Task.yield() }
            await transcript.press(.ctrlZ)
        }
        await transcript.type("/session notes")
        await transcript.type("meanwhile, a note")
        gate.open()
        await transcript.settle()
        #expect(try transcript.workspace.store.unreadCounts() == ["llama": 1])
        #expect(transcript.terminal.bells == 1, "the notice rings the bell")
        await transcript.type("/sessions")
        #expect(transcript.terminal.prompt == "[llama 1] notes · meanwhile, a note › ", "the prompt counts unread replies")
        await transcript.type("/next")
        #expect(try transcript.workspace.store.unreadCounts().isEmpty)
        let text = transcript.text.replacingOccurrences(of: #"\d\d:\d\d"#, with: "HH:MM", options: .regularExpression)
        #expect(text == """
            > /session llama
            > /thread new research
            new thread #1 research
            > think hard
            slow 
            ↪ llama goes on in the background; you will hear when it is done
            > /session notes
            > meanwhile, a note
            · noted
            ↩ llama · think hard: slow answer
            > /sessions
              local local  offline
              llama openai 127.0.0.1:\(server.http.port) 1 unread
            › notes local  offline
            > /next
            1 new reply in llama:
            llama · HH:MM
            slow answer

            """)
    }

    @Test func saveWritesTheLastReplyToAFile() async throws {
        let server = try TestOpenAIServer(script: TestOpenAIServer.streaming(["let x = 1", "\nprint(x)"]))
        let transcript = Transcript(try Self.home(server).workspace())
        let folder = TemporaryDirectory()
        await transcript.type("/save \(folder.path)/early.swift")
        await transcript.type("/session llama")
        await transcript.type("write it")
        await transcript.type("/save \(folder.path)/main.swift")
        await transcript.type("/save")
        #expect(transcript.text.hasSuffix("""
            > /save \(folder.path)/main.swift
            wrote the last reply (19 bytes) to \(folder.path)/main.swift
            > /save
            hark: usage: /save FILE

            """))
        #expect(transcript.text.contains("> /save \(folder.path)/early.swift\nhark: there is no reply in this thread yet\n"))
        #expect(try String(contentsOfFile: folder.path + "/main.swift", encoding: .utf8) == "let x = 1\nprint(x)\n")
    }

    @Test func atNameForwardPipeAndBangCommand() async throws {
        let server = try TestOpenAIServer { body in
            let question = body["messages"]?.array?.last?["content"]?.string ?? ""
            return [.text("echo: " + question), .done]
        }
        let home = Self.home(server)
        let transcript = Transcript(try home.workspace())
        await transcript.type("@llama one two three")
        await transcript.type("/session llama")
        await transcript.type("/pipe wc -w")
        await transcript.type("/forward notes")
        await transcript.type("!printf 'from a command'")
        await transcript.type("/pipe exit 3")
        #expect(transcript.text == """
            > @llama one two three
            llama ›
            echo: one two three
            > /session llama
            > /pipe wc -w
            4
            > /forward notes
            notes ›
            · noted
            > !printf 'from a command'
            echo: from a command
            > /pipe exit 3
            exit 3 exited with status 3

            """)
        let notes = try transcript.workspace.store.recentMessages(session: "notes", limit: 5)
        #expect(notes.map(\.text) == ["echo: one two three"])
    }

    @Test func mistakesGetOneLineAndNothingIsLost() async throws {
        let server = try TestOpenAIServer(script: TestOpenAIServer.streaming(["ok"]))
        let home = Self.home(server)
        let transcript = Transcript(try home.workspace())
        await transcript.type("/sesions")
        await transcript.type("/jobs")
        await transcript.type("@nobody hi")
        await transcript.type("/history many")
        await transcript.type("/thread rm 99")
        await transcript.type("!")
        await transcript.type("/pipe cat")
        await transcript.type("/export xml nowhere extra")
        #expect(transcript.text == """
            > /sesions
            hark: unknown command /sesions; did you mean /sessions?
            > /jobs
            hark: /jobs does not apply to a local session; /help lists what does
            > @nobody hi
            hark: no session named "nobody"; `hark sessions` lists them
            > /history many
            hark: usage: /history [N] [--all]; N is a positive number
            > /thread rm 99
            hark: no thread "99" in this session; /threads lists them
            > !
            hark: type a shell command after !, e.g. !git diff
            > /pipe cat
            hark: there is no reply in this thread yet
            > /export xml nowhere extra
            hark: usage: /export [md|json] [FILE]

            """)
    }

    @Test func infoNamesTheSecretsSourceNeverItsValue() async throws {
        let server = try TestOpenAIServer(script: TestOpenAIServer.streaming(["fine"]))
        let home = Self.home(server)
        let transcript = Transcript(try home.workspace())
        await transcript.type("/session llama")
        await transcript.type("hello")
        let info = await transcript.type("/info")
        #expect(info.contains("auth          bearer:env:HARK_TEST_OPENAI_KEY"))
        #expect(server.http.requests.last?.header("authorization") == "Bearer sk-test-very-secret")
        // The secret is nowhere in what the user saw or in the database file.
        #expect(!transcript.text.contains("sk-test-very-secret"))
        let database = try Data(contentsOf: URL(fileURLWithPath: transcript.workspace.store.database.path))
        #expect(database.range(of: Data("sk-test-very-secret".utf8)) == nil)
    }
}
