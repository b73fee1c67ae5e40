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

    /// A home whose library holds the handbook; both must live as long as the test (the
    /// home's folder holds the history, and /ask reads the file again if it changed).
    static func handbook(_ server: TestOpenAIServer) async throws -> ((TestHome, TemporaryDirectory), Transcript) {
        let library = TemporaryDirectory("hark-docs")
        DocumentFixtures.write(into: library)
        let home = Self.home(server)
        let transcript = Transcript(try home.workspace())
        await transcript.type("/docs add \(library.file("handbook.md"))")
        return ((home, library), transcript)
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

            [1] trips/booking.md:10-11  Booking confirmation › Return
                ## Return Return: 15 November 2025, 18:40 from Lisbon LIS…

            """)
        // The question and the passages, numbered and with their text, went to the model.
        let chat = server.bodies.filter { $0["messages"] != nil }
        let prompt = Self.prompt(try #require(chat.last))
        #expect(prompt.hasSuffix("Question: when do I fly home?"))
        #expect(prompt.contains("[1] trips/booking.md:10-11 (Booking confirmation › Return)\n## Return\nReturn: 15 November 2025, 18:40 from Lisbon LIS\n"))
        #expect(prompt.contains("Cite each passage you use by its number in brackets, like [1]."))
        // The reply is kept with the passage it cites, as a reply of the local session's thread.
        let reply = try #require(try workspace.store.lastMessage(session: "local", role: .assistant))
        #expect(reply.text.hasPrefix("You fly home on 15 November 2025 at 18:40 [1].\n\n[1] trips/booking.md:10-11  Booking confirmation › Return\n"))
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

            [1] handbook.md:5-9  Staff handbook › Travel › Expenses
                ## Travel  ### Expenses Expense claims must be filed within 30 days of returning from a trip.
            """))
        #expect(try workspace.store.database.scalar("SELECT count(*) FROM local_chunk_vectors").int == 0)
        let embeddingRequests = server.http.requests.filter { $0.path.hasSuffix("/embeddings") }
        #expect(embeddingRequests.count == 1, "a server without embeddings is asked once")
    }

    @Test func aModelThatFailsLeavesThePassages() async throws {
        let server = try TestOpenAIServer(status: 500, errorBody: #"{"error":{"message":"model not loaded","type":"server_error"}}"#) { _ in [] }
        let (home, transcript) = try await Self.handbook(server)
        defer { withExtendedLifetime(home) {} }  // its folder holds the history
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

    /// An answer that cites nothing, or cites a passage without its words, is marked, and the
    /// passages sent are shown under it, so the one that holds the answer is on screen.
    @Test func anAnswerThatDoesNotStandOnItsPassagesIsMarked() async throws {
        let server = try TestOpenAIServer(embeddings: .notSupported) { body in
            let prompt = Self.prompt(body)
            if prompt.hasSuffix("Question: holiday days") { return [.text("You get 30 days of holiday [1]."), .done] }
            return [.text("Question: how long can I file expenses without incurring a penalty?"), .done]
        }
        let (home, transcript) = try await Self.handbook(server)
        defer { withExtendedLifetime(home) {} }  // its folder holds the history
        let nothingCited = await transcript.type("/ask how long to file expense claims")
        #expect(nothingCited == """
            > /ask how long to file expense claims
            · asking llama with 1 passage…
            Question: how long can I file expenses without incurring a penalty?

            · not found in your documents
            [1] handbook.md:5-9  Staff handbook › Travel › Expenses
                ## Travel  ### Expenses Expense claims must be filed within 30 days of returning from a trip. Keep every receipt; a missing receipt needs a short…

            """)
        // 30 days is the expenses passage's number, cited as the holidays passage's.
        let wrong = await transcript.type("/ask holiday days")
        #expect(wrong.contains("You get 30 days of holiday [1].\n\n· not found in your documents\n[1] handbook.md:14-15"), "\(wrong)")
        #expect(wrong.contains("[2] handbook.md:5-9"))
    }
}
