import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// Golden transcripts of long conversations: `/compact`, `/edit last`, `/thread fork`,
/// `/copy`, and the numbers `/info` shows; then the database rows and what the server was sent.
@Suite struct ConversationTranscriptTests {
    /// Answers "answer N" to the Nth message, and a summary when asked for one.
    static func server() throws -> TestOpenAIServer {
        let counter = Locked(0)
        return try TestOpenAIServer { body in
            let last = body["messages"]?.array?.last?["content"]?.string ?? ""
            if last.hasPrefix("Summarise our conversation") {
                return [.text("We covered the first "), .text("and second questions."), .usage(prompt: 40, completion: 8), .done]
            }
            let number = counter.update { count -> Int in
                count += 1
                return count
            }
            return [.text("answer \(number)"), .usage(prompt: 10 * number, completion: 2), .done]
        }
    }

    static func transcript(_ server: TestOpenAIServer, extra: String = "") throws -> Transcript {
        let home = TestHome(config: """
            [session llama]
            kind = openai
            url = \(server.baseURL)
            model = tiny
            context = 4096
            \(extra)
            """)
        return Transcript(try home.workspace())
    }

    static func clean(_ text: String) -> String {
        text.replacingOccurrences(of: #"\d\d:\d\d"#, with: "HH:MM", options: .regularExpression)
    }

    @Test func compactSummarisesTheOlderTurnsAndSendsTheSummaryInTheirPlace() async throws {
        let server = try Self.server()
        let transcript = try Self.transcript(server)
        for line in ["/session llama", "first question", "second question", "third question", "/compact", "fourth question"] {
            await transcript.type(line)
        }
        #expect(transcript.text == """
            > /session llama
            > first question
            answer 1
            > second question
            answer 2
            > third question
            answer 3
            > /compact
            · summary of 4 earlier turns:
            We covered the first and second questions.
            · kept as this thread's summary; it is sent in place of those turns
            > fourth question
            answer 4

            """)
        // The summary request: the four older turns, then the instruction; the newest exchange stays.
        let asked = server.sentMessages[3]
        #expect(asked.map(\.text).prefix(4) == ["first question", "answer 1", "second question", "answer 2"])
        #expect(asked.last?.text == OpenAIBackend.summaryInstruction)
        // Then the summary goes in place of those turns.
        #expect(server.sentMessages[4] == [
            Turn(role: .system, text: "Summary of the earlier conversation (4 turns), in their place:\n"
                + "We covered the first and second questions."),
            Turn(role: .user, text: "third question"), Turn(role: .assistant, text: "answer 3"),
            Turn(role: .user, text: "fourth question"),
        ])
        let store = transcript.workspace.store
        let thread = try #require(try transcript.workspace.currentThread())
        let messages = try store.messages(threadID: thread.id)
        #expect(messages.count == 8, "the summary is a note, not a message")
        #expect(try store.summary(threadID: thread.id) == ThreadSummary(text: "We covered the first and second questions.",
                                                                       turns: 4, throughMessageID: messages[3].id))
        let again = await transcript.type("/compact")
        #expect(again == "> /compact\n· summary of 6 earlier turns:\nWe covered the first and second questions.\n"
            + "· kept as this thread's summary; it is sent in place of those turns\n")
        #expect(server.sentMessages[5].first?.role == .system, "the old summary goes into the new one")
    }

    @Test func editLastReplacesTheMessageAndItsReplyAndKeepsBoth() async throws {
        let server = try Self.server()
        let transcript = try Self.transcript(server)
        await transcript.type("/session llama")
        await transcript.type("what is 2+2")
        transcript.editorText = "what is 3+3"
        await transcript.type("/edit last")
        await transcript.type("/history --all")
        await transcript.type("/history")
        #expect(Self.clean(transcript.text) == """
            > /session llama
            > what is 2+2
            answer 1
            > /edit last
            [editor opens on: what is 2+2]
            [editor closes with: what is 3+3]
            answer 2
            > /history --all
            you · HH:MM · superseded (/edit last)
            what is 2+2
            llama · HH:MM · superseded (/edit last)
            answer 1
            1 you · HH:MM
            what is 3+3
            2 llama · HH:MM
            answer 2
            > /history
            1 you · HH:MM
            what is 3+3
            2 llama · HH:MM
            answer 2

            """)
        #expect(server.sentMessages[1] == [Turn(role: .user, text: "what is 3+3")], "the old message and reply are not sent")
        let thread = try #require(try transcript.workspace.currentThread())
        let rows = try transcript.workspace.store.messages(threadID: thread.id, superseded: true)
        #expect(rows.map(\.supersededBy) == [rows[2].id, rows[2].id, nil, nil])
        // An unchanged message sends nothing; /retry still asks again.
        transcript.editorText = nil
        #expect(await transcript.type("/edit last").hasSuffix("unchanged; nothing sent (/retry asks again)\n"))
        #expect(await transcript.type("/retry") == "> /retry\nanswer 3\n")
        #expect(server.sentMessages[2] == [Turn(role: .user, text: "what is 3+3")])
        // The reply /retry replaced is kept, marked as /edit last marks, and never sent again.
        let all = Self.clean(await transcript.type("/history --all"))
        #expect(all.contains("\nllama · HH:MM · superseded (/retry)\nanswer 2\n"), "\(all)")
        await transcript.type("and 4+4?")
        #expect(server.sentMessages.last?.map(\.text) == ["what is 3+3", "answer 3", "and 4+4?"])
    }

    @Test func forkCopiesTheMessagesUpToNAndLeavesTheOriginal() async throws {
        let server = try Self.server()
        let transcript = try Self.transcript(server)
        for line in ["/session llama", "first question", "second question"] { await transcript.type(line) }
        let store = transcript.workspace.store
        let original = try #require(try transcript.workspace.currentThread())
        let output = await transcript.type("/thread fork 3")
        #expect(output == "> /thread fork 3\nforked #1 first question into #2 first question (fork) with 3 messages\n")
        let fork = try #require(try transcript.workspace.currentThread())
        #expect(fork.id != original.id)
        let copied = try store.messages(threadID: fork.id)
        let source = try store.messages(threadID: original.id)
        #expect(copied.map(\.text) == ["first question", "answer 1", "second question"])
        #expect(copied.map(\.role) == source.prefix(3).map(\.role))
        #expect(copied.map(\.createdAt) == source.prefix(3).map(\.createdAt))
        #expect(copied[1].usage == source[1].usage)
        #expect(Set(copied.map(\.id)).isDisjoint(with: source.map(\.id)))
        #expect(try store.thread(id: original.id)?.messageCount == 4, "the original is untouched")
        #expect(try store.unreadCounts().isEmpty, "copies are not news")
        await transcript.type("a different second question")
        #expect(server.sentMessages.last?.map(\.text) == ["first question", "answer 1", "second question",
                                                         "a different second question"])
        #expect(await transcript.type("/thread fork 9") == "> /thread fork 9\nhark: thread #2 has 5 messages; /history numbers them\n")
    }

    /// An n8n agent keeps its memory by session id: a fork gets a new one and says it starts
    /// the agent afresh.
    @Test func aServerThreadIsForkedHereAndSaysSo() async throws {
        let n8n = try TestN8NServer { _, _ in .streaming(["noted"]) }
        let home = TestHome(config: "[session helpdesk]\nkind = webhook\nurl = \(n8n.webhookURL)\n")
        let transcript = Transcript(try home.workspace())
        await transcript.type("/session helpdesk")
        await transcript.type("order 1042 is late")
        let original = try #require(try transcript.workspace.currentThread())
        #expect(await transcript.type("/thread fork") == """
            > /thread fork
            forked #1 order 1042 is late into #2 order 1042 is late (fork) with 2 messages
            forked here only: the server keeps its own threads, so it starts this one without the earlier messages

            """)
        let fork = try #require(try transcript.workspace.currentThread())
        #expect(fork.backendID != nil && fork.backendID != original.backendID)
        await transcript.type("and order 1043?")
        #expect(n8n.history(fork.backendID ?? "").map(\.text) == ["and order 1043?", "noted"])
        #expect(n8n.history(original.backendID ?? "").count == 2, "the original's memory is untouched")
    }

    @Test func copyPutsTheReplyOrOneOfItsCodeBlocksOnTheClipboard() async throws {
        let server = try TestOpenAIServer { _ in
            [.text("Two ways:\n\n```sh\nls -la\n```\n\nor\n\n```python\nprint('hi')  \n```\n"), .done]
        }
        let transcript = try Self.transcript(server)
        await transcript.type("@llama list files")
        await transcript.type("/session llama")
        #expect(await transcript.type("/copy code") == "> /copy code\n[clipboard ← code block 2 of 2 (python)]\nprint('hi')  \n[end of clipboard]\n")
        #expect(await transcript.type("/copy code 1") == "> /copy code 1\n[clipboard ← code block 1 of 2 (sh)]\nls -la\n[end of clipboard]\n")
        #expect(await transcript.type("/copy code 3") == "> /copy code 3\nhark: usage: /copy code [N]; the last reply has 2 code blocks\n")
        #expect(await transcript.type("/copy").hasPrefix("> /copy\n[clipboard ← the last reply]\nTwo ways:\n"))
    }

    @Test func infoShowsTheBudgetTokensAndSpeeds() async throws {
        let server = try Self.server()
        let transcript = try Self.transcript(server, extra: "max_tokens = 100")
        await transcript.type("/session llama")
        await transcript.type("first question")
        await transcript.type("second question")
        let info = await transcript.type("/info")
        #expect(info.contains("4096 tokens (context = 4096) · 100 kept for the reply"))
        #expect(info.contains("4 messages · 30 tokens in · 4 out · last prompt 20 tokens"))
        #expect(info.contains("last replies  first byte "))
    }
}
