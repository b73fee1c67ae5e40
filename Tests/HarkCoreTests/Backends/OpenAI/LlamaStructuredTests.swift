import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// The local session's model at work on llama.cpp's real server (SmolLM2-135M): form answers
/// read through the fields' schema, which llama.cpp turns into a grammar, and /ask answers with
/// their passages under them. In LlamaServerTests' suite, so one request runs at a time.
extension LlamaServerTests {
    static func localHome(_ server: LlamaTestServer, api: String = "chat") -> TestHome {
        // A budget no loaded machine reaches: what is checked here is what the model writes.
        TestHome(config: """
            [session local]
            kind = local
            llm = llama
            llm_timeout = 300

            [session llama]
            kind = openai
            url = \(server.baseURL)
            api = \(api)
            model = smollm2
            """, sharedPrompts: [TestHome.shippedPrompts])
    }

    /// Under the grammar, what the 135M model writes is an object whose product is one of the
    /// choices or null, in either API llama.cpp reads the schema in.
    @Test(arguments: ["chat", "responses"])
    func theModelCanOnlyWriteWhatTheSchemaAllows(api: String) async throws {
        let server = try await LlamaTestServer.shared
        let workspace = try Self.localHome(server, api: api).workspace()
        let backend = try #require(try workspace.backend(for: "llama") as? StructuredReplying)
        let template = try ChoiceSynonymsTests.shipped("bug-report")
        let product = try #require(template.field("product"))
        let format = FormSchema.format(current: product, others: [])
        let choices: [JSON] = product.choices.map { .string($0) } + [.null]
        for answer in ["the one I use on the train", "it crashed in the thing on my wrist", "whatever"] {
            let prompt = FormModelReader.prompt(answer: answer, current: product,
                                                today: FormDate(year: 2026, month: 3, day: 7)!)
            let query = StructuredQuery(session: "llama", backend: backend, timeLimit: nil)
            guard case .object(let object) = try await query.ask(prompt, format: format, progress: { _ in }) else {
                Issue.record("no JSON object for \(answer)")
                continue
            }
            #expect(Set(object.keys) == ["product"], "\(object)")
            #expect(choices.contains(object["product"] ?? "missing"), "\(object)")
        }
    }

    /// Through the form: a value the field takes, or the rules' reading with one notice.
    @Test func aFormAnswerTheRulesCannotReadIsReadByTheModel() async throws {
        let server = try await LlamaTestServer.shared
        let transcript = Transcript(try Self.localHome(server).workspace())
        for line in ["/form bug-report", "Export to PDF crashes"] { await transcript.type(line) }
        let output = await transcript.type("the one I use on the train")
        let lines = output.split(separator: "\n").map(String.init)
        #expect(lines.contains("· reading your answer with llama…"))
        let notices = lines.filter { $0.hasPrefix("» ") }
        if let noted = lines.first(where: { $0.hasPrefix("Noted Product: ") }) {
            #expect(["web app", "desktop app", "mobile app", "API"].map { "Noted Product: \($0)." }.contains(noted))
            #expect(notices.isEmpty)
        } else {
            #expect(notices.count == 1, "\(output)")
            #expect(notices.first?.hasSuffix("; your answer was read by the rules") == true)
            #expect(lines.contains { $0.hasPrefix("Product must be one of") })
        }
    }

    /// /ask with the model: whatever SmolLM2 answers, the passage that holds the answer is on
    /// screen under it, cited or shown because the answer did not stand on what it cited.
    @Test func theAnswersPassageIsOnScreenUnderEveryAnswer() async throws {
        let server = try await LlamaTestServer.shared
        let library = TemporaryDirectory("hark-docs")
        DocumentFixtures.write(into: library)
        let home = Self.localHome(server)
        defer { withExtendedLifetime(home) {} }  // its folder holds the history
        let transcript = Transcript(try home.workspace())
        await transcript.type("/docs add \(library.file("handbook.md")) \(library.file("trips"))")
        let questions = [("how long do I have to file expenses?", "handbook.md:5-9", "within 30 days"),
                         ("how many holiday days do I get?", "handbook.md:14-15", "28 days"),
                         ("when is my return flight?", "trips/booking.md:10-11", "15 November 2025")]
        for (question, citation, words) in questions {
            let output = await transcript.type("/ask \(question)")
            let passage = try #require(output.range(of: "] \(citation)"), "\(output)")
            #expect(output[passage.upperBound...].contains(words), "\(output)")
            let marked = output.contains(AskPrompt.notFound)
            // Marked answers are followed by every passage; others by the ones they cite.
            #expect(marked || output.components(separatedBy: "] ").count - 1 <= 5)
        }
    }
}
