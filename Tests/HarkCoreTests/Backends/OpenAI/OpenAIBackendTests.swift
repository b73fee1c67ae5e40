import Foundation
import Testing
import TestSupport
@testable import HarkCore

@Suite struct OpenAIBackendTests {
    static func config(_ url: String, extra: String = "") -> String {
        "[session llama]\nkind = openai\nurl = \(url)\nmodel = tiny\n\(extra)\n"
    }

    @Test func earlierTurnsSystemPromptAndSettingsAreSent() async throws {
        let server = try TestOpenAIServer(script: TestOpenAIServer.streaming(["Hi", " there"]))
        let directory = TemporaryDirectory()
        let prompt = directory.write("concise.md", "---\nname: concise\n---\nBe brief.\n")
        let home = TestHome(config: Self.config(server.baseURL, extra: "system = @\(prompt)\ntemperature = 0.2\nmax_tokens = 64"))
        let workspace = try home.workspace()
        try workspace.switchSession(to: "llama")
        let transcript = Transcript(workspace)
        await transcript.type("one")
        await transcript.type("two")
        #expect(transcript.text == "> one\nHi there\n> two\nHi there\n")
        let body = try #require(server.bodies.last)
        #expect(body["model"]?.string == "tiny")
        #expect(body["stream"] == .bool(true))
        #expect(body["temperature"]?.double == 0.2)
        #expect(body["max_tokens"]?.int == 64)
        #expect(body["stream_options"]?["include_usage"] == .bool(true))
        let messages = try #require(body["messages"]?.array)
        #expect(messages.map { $0["role"]?.string ?? "" } == ["system", "user", "assistant", "user"])
        #expect(messages.map { $0["content"]?.string ?? "" } == ["Be brief.", "one", "Hi there", "two"])
        let reply = try #require(try workspace.store.lastMessage(session: "llama", role: .assistant))
        #expect(reply.usage == Usage(promptTokens: 5, completionTokens: 2, totalTokens: 7))
        #expect(reply.model == "test-model")
    }

    // Reasoning, a stop and a cut stream: ModelAPIsTests, for chat and the other APIs alike.

    /// Mid-stream errors of older servers, over the wire: one line with the server's message,
    /// the partial reply kept as `failed` with that error.
    @Test(arguments: [TestOpenAIServer.Step.llamaError("Input prompt is too big compared to KV size."),
                      .vllmError("Input prompt is too big compared to KV size.")])
    func oldServersMidStreamErrorsFailTheReply(_ error: TestOpenAIServer.Step) async throws {
        let server = try TestOpenAIServer { _ in [.text("half "), .text("way"), error, .done] }
        let home = TestHome(config: Self.config(server.baseURL))
        let workspace = try home.workspace()
        let output = await Transcript(workspace).type("@llama go")
        #expect(output == "> @llama go\nllama ›\nhalf way\nhark: Input prompt is too big compared to KV size.\n")
        let reply = try #require(try workspace.store.lastMessage(session: "llama", role: .assistant))
        #expect(reply.status == .failed)
        #expect(reply.text == "half way")
        #expect(reply.error == "Input prompt is too big compared to KV size.")
    }

    /// A reply cut by max_tokens: shown and stored with a note that says so and offers
    /// /continue (`--json`'s done carrying the reason: CommandLineTests).
    @Test func aReplyCutAtMaxTokensIsMarkedAndContinueIsOffered() async throws {
        let server = try TestOpenAIServer { _ in [.text("Once upon"), .finish("length"), .done] }
        let home = TestHome(config: Self.config(server.baseURL, extra: "max_tokens = 2"))
        let workspace = try home.workspace()
        try workspace.switchSession(to: "llama")
        let transcript = Transcript(workspace)
        let output = await transcript.type("tell a story")
        #expect(output == "> tell a story\nOnce upon\n» \(ChatCompletionDecoder.cutOffNote)\n")
        let reply = try #require(try workspace.store.lastMessage(session: "llama", role: .assistant))
        #expect(reply.status == .complete)
        #expect(reply.notes == [ChatCompletionDecoder.cutOffNote])
        #expect(await transcript.type("/history 1").contains("» " + ChatCompletionDecoder.cutOffNote))
        // /continue asks in hark's words: the history shows it as a note, not as the user's turn.
        await transcript.type("/continue")
        let history = await transcript.type("/history")
        #expect(history.contains("\n  · /continue: asked for the rest of the reply\n"), "\(history)")
        #expect(!history.contains(Workspace.continueInstruction))
    }

    @Test func anErrorBeforeTheStreamShowsTheServersMessage() async throws {
        let server = try TestOpenAIServer(status: 401, errorBody: #"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}"#) { _ in [] }
        let home = TestHome(config: Self.config(server.baseURL))
        let output = await Transcript(try home.workspace()).type("@llama hi")
        #expect(output.contains("hark: 127.0.0.1:\(server.http.port) refused the credentials (HTTP 401): Incorrect API key provided; check the session's auth"))
    }

    @Test func sseEdgeCasesOverTheWire() async throws {
        // A BOM, a comment, CRLFs split across writes, multi-line data, a final usage chunk
        // with no choices: all through real HTTP chunks.
        let server = try TestOpenAIServer { _ in
            [.raw("\u{FEFF}"), .raw(": ping\r"), .raw("\n\r\n"),
             .raw("data: {\"choices\":[{\"delta\":\r"), .raw("\ndata: {\"content\":\"multi\"}}]}\r\n\r\n"),
             .raw("data: {\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1,\"total_tokens\":2}}\n\n"),
             .raw("data: [DONE]\n\n")]
        }
        let home = TestHome(config: Self.config(server.baseURL))
        let workspace = try home.workspace()
        let output = await Transcript(workspace).type("@llama hi")
        #expect(output == "> @llama hi\nllama ›\nmulti\n")
        #expect(try workspace.store.lastMessage(session: "llama", role: .assistant)?.usage?.totalTokens == 2)
    }

    @Test func retryResendsTheLastMessageWithoutDuplicatingIt() async throws {
        let counter = Counter()
        let server = try TestOpenAIServer { _ in counter.next() == 1 ? [.error("overloaded")] : [.text("fine"), .done] }
        let home = TestHome(config: Self.config(server.baseURL))
        let workspace = try home.workspace()
        try workspace.switchSession(to: "llama")
        let transcript = Transcript(workspace)
        await transcript.type("question")
        await transcript.type("/retry")
        #expect(transcript.text == "> question\nhark: overloaded\n> /retry\nfine\n")
        let thread = try #require(try workspace.currentThread())
        let messages = try workspace.store.messages(threadID: thread.id, superseded: true)
        #expect(messages.map(\.role) == [.user, .assistant, .assistant])
        #expect(messages.map(\.status) == [.complete, .failed, .complete])
        #expect(messages.map(\.supersededBy) == [nil, messages[0].id, nil], "the failed reply is kept, replaced by the retry's")
        // The retried request carried the question once, without the failed reply.
        let last = try #require(server.bodies.last?["messages"]?.array)
        #expect(last.map { $0["content"]?.string ?? "" } == ["question"])
    }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func next() -> Int { lock.withLock { value += 1; return value } }
}
