import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// `/ask` with `llm` set: the question and the best passages go to the model's session (a
/// loopback OpenAI server), its answer streams with citations, and the sources are kept with
/// the reply. With /v1/embeddings, passages are also found by meaning (vectors merged with
/// BM25 by reciprocal rank fusion); without it, BM25 alone and no error.
@Suite struct LocalAskModelTests {
    static func home(_ server: TestOpenAIServer) -> TestHome { LocalFormRemoteTests.modelHome(server) }

    /// A stand-in for an embedding model: texts about coming back, leaving, money or anything
    /// else point in four different directions, whatever their words.
    static func meaning(_ text: String) -> [Float] {
        let words = Set(text.lowercased().split(whereSeparator: { !$0.isLetter }).map(String.init))
        if !words.isDisjoint(with: ["return", "home", "back"]) { return [1, 0, 0, 0.1] }
        if !words.isDisjoint(with: ["departure", "leave", "outbound"]) { return [0, 1, 0, 0.1] }
        if !words.isDisjoint(with: ["expense", "expenses", "receipt", "money"]) { return [0, 0, 1, 0.1] }
        return [0, 0, 0, 1]
    }

    static func prompt(_ body: JSON) -> String { body["messages"]?.array?.last?["content"]?.string ?? "" }

    @Test func theModelAnswersFromPassagesFoundByMeaningAndCitesThem() async throws {
        let server = try TestOpenAIServer(embeddings: .vectors(Self.meaning)) { body in
            Self.prompt(body).contains("Return: 15 November 2025")
                ? [.text("You fly home on 15 November 2025 "), .text("at 18:40 [1]."), .usage(prompt: 90, completion: 12), .done]
                : [.text("The passages do not say."), .done]
        }
        let library = TemporaryDirectory("hark-docs")
        DocumentFixtures.write(into: library)
        let home = Self.home(server)
        defer { withExtendedLifetime(home) {} }  // its folder holds the history
        let workspace = try home.workspace()
        let transcript = Transcript(workspace)
        let added = await transcript.type("/docs add \(library.file("trips")) \(library.file("handbook.md"))")
        #expect(added.contains("added 2 files (7 passages"))
        #expect(added.contains("llama made vectors for 7 passages: /ask also finds passages by meaning"))
        #expect(try workspace.store.database.scalar("SELECT count(*) FROM local_chunk_vectors WHERE model = 'tiny'").int == 7)

        // No word of the question is in the booking: the passage is found by its vector.
        let answer = await transcript.type("/ask when do I fly home?")
        #expect(answer == """
            > /ask when do I fly home?
            · asking llama with 5 passages…
            You fly home on 15 November 2025 at 18:40 [1].

            Sources:
            [1] trips/booking.md:10-11 (Booking confirmation › Return)
            [2] trips/booking.md:1-4 (Booking confirmation)
            [3] handbook.md:1-3 (Staff handbook)
            [4] handbook.md:11-12 (Staff handbook › Travel › Mileage)
            [5] handbook.md:14-15 (Staff handbook › Holidays)

            """)
        // The question and the passages, numbered and with their text, went to the model.
        let chat = server.bodies.filter { $0["messages"] != nil }
        let prompt = Self.prompt(try #require(chat.last))
        #expect(prompt.hasSuffix("Question: when do I fly home?"))
        #expect(prompt.contains("[1] trips/booking.md:10-11 (Booking confirmation › Return)\n## Return\nReturn: 15 November 2025, 18:40 from Lisbon LIS\n"))
        #expect(prompt.contains("Cite each passage you use by its number in brackets, like [1]."))
        // The reply is kept with its sources, as a reply of the local session's thread.
        let reply = try #require(try workspace.store.lastMessage(session: "local", role: .assistant))
        #expect(reply.text.hasPrefix("You fly home on 15 November 2025 at 18:40 [1].\n\nSources:\n[1] trips/booking.md:10-11"))
        #expect(try workspace.store.lastMessage(session: "local", role: .user)?.text == "/ask when do I fly home?")
    }

    @Test func withoutEmbeddingsTheWordsAloneFindThePassages() async throws {
        let server = try TestOpenAIServer(embeddings: .notSupported) { body in
            [.text(Self.prompt(body).contains("within 30 days") ? "Within 30 days of returning [1]." : "?"), .done]
        }
        let library = TemporaryDirectory("hark-docs")
        DocumentFixtures.write(into: library)
        let home = Self.home(server)
        defer { withExtendedLifetime(home) {} }  // its folder holds the history
        let workspace = try home.workspace()
        let transcript = Transcript(workspace)
        let added = await transcript.type("/docs add \(library.file("handbook.md"))")
        #expect(added == "> /docs add \(library.file("handbook.md"))\nadded 1 file (4 passages, 373 B)\n")
        let answer = await transcript.type("/ask how long to file expense claims")
        #expect(answer.hasPrefix("""
            > /ask how long to file expense claims
            · asking llama with 1 passage…
            Within 30 days of returning [1].

            Sources:
            [1] handbook.md:5-9 (Staff handbook › Travel › Expenses)
            """))
        #expect(try workspace.store.database.scalar("SELECT count(*) FROM local_chunk_vectors").int == 0)
        let embeddingRequests = server.http.requests.filter { $0.path.hasSuffix("/embeddings") }
        #expect(embeddingRequests.count == 1, "a server without embeddings is asked once")
    }

    @Test func aModelThatFailsLeavesThePassages() async throws {
        let server = try TestOpenAIServer(status: 500, errorBody: #"{"error":{"message":"model not loaded","type":"server_error"}}"#) { _ in [] }
        let library = TemporaryDirectory("hark-docs")
        DocumentFixtures.write(into: library)
        let home = Self.home(server)
        defer { withExtendedLifetime(home) {} }  // its folder holds the history
        let transcript = Transcript(try home.workspace())
        await transcript.type("/docs add \(library.file("handbook.md"))")
        let answer = await transcript.type("/ask holiday days")
        #expect(answer == """
            > /ask holiday days
            · asking llama with 2 passages…
            » llama failed (127.0.0.1:\(server.http.port) answered HTTP 500: model not loaded); here are the passages instead
            [1] handbook.md:14-15  Staff handbook › Holidays
                ## Holidays Everyone has 28 days of paid holiday a year.
            [2] handbook.md:5-9  Staff handbook › Travel › Expenses
                ## Travel  ### Expenses Expense claims must be filed within 30 days of returning from a trip. Keep every receipt; a missing receipt needs a short…

            """)
    }
}
