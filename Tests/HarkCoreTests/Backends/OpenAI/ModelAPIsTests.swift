import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// A model session in each API, against TestOpenAIServer speaking it (TestModelWire: the
/// documented event shapes): the same history, stop, failure and reasoning behaviour whatever
/// the API, and each API's own request.
@Suite struct ModelAPIsTests {
    static let apis: [TestOpenAIServer.API] = [.chat, .messages, .responses]

    static func config(_ server: TestOpenAIServer, extra: String = "") -> String {
        "[session llama]\nkind = openai\nurl = \(server.baseURL)\napi = \(server.api.rawValue)\nmodel = tiny\n\(extra)\n"
    }

    static func workspace(_ server: TestOpenAIServer, extra: String = "") throws -> (TestHome, Workspace) {
        let home = TestHome(config: config(server, extra: extra))
        let workspace = try home.workspace()
        try workspace.switchSession(to: "llama")
        return (home, workspace)
    }

    @Test(arguments: apis)
    func repliesUsageAndTheModelAreKept(api: TestOpenAIServer.API) async throws {
        let server = try TestOpenAIServer(api: api, script: TestOpenAIServer.streaming(["Hi", " there"]))
        let (_, workspace) = try Self.workspace(server)
        let transcript = Transcript(workspace)
        await transcript.type("one")
        await transcript.type("two")
        #expect(transcript.text == "> one\nHi there\n> two\nHi there\n")
        let reply = try #require(try workspace.store.lastMessage(session: "llama", role: .assistant))
        #expect(reply.usage == Usage(promptTokens: 5, completionTokens: 2, totalTokens: 7))
        #expect(reply.model == "test-model")
    }

    @Test func messagesSendsTheSystemApartAndTheKeyAsAnthropicDoes() async throws {
        let server = try TestOpenAIServer(api: .messages, script: TestOpenAIServer.streaming(["ok"]))
        let (_, workspace) = try Self.workspace(server, extra: "system = Be brief.\nauth = bearer:env:HARK_TEST_ANTHROPIC_KEY\ntemperature = 0.2")
        setenv("HARK_TEST_ANTHROPIC_KEY", "sk-ant-test", 1)
        let transcript = Transcript(workspace)
        await transcript.type("one")
        await transcript.type("two")
        let body = try #require(server.bodies.last)
        #expect(body["system"]?.string == "Be brief.")
        #expect(body["model"]?.string == "tiny")
        #expect(body["max_tokens"]?.int == MessagesAPI.defaultMaxTokens)
        #expect(body["temperature"]?.double == 0.2)
        #expect(body["stream"] == .bool(true))
        let messages = try #require(body["messages"]?.array)
        #expect(messages.map { $0["role"]?.string ?? "" } == ["user", "assistant", "user"])
        #expect(messages.map { $0["content"]?.string ?? "" } == ["one", "ok", "two"])
        let request = try #require(server.http.requests.last)
        #expect(request.path == "/v1/messages")
        #expect(request.header("x-api-key") == "sk-ant-test")
        #expect(request.header("authorization") == nil)
        #expect(request.header("anthropic-version") == MessagesAPI.version)
    }

    @Test func responsesSendsInstructionsTypedItemsAndTheOutputLimit() async throws {
        let server = try TestOpenAIServer(api: .responses, script: TestOpenAIServer.streaming(["ok"]))
        let (_, workspace) = try Self.workspace(server, extra: "system = Be brief.\nmax_tokens = 64")
        let transcript = Transcript(workspace)
        await transcript.type("one")
        await transcript.type("two")
        let body = try #require(server.bodies.last)
        #expect(body["instructions"]?.string == "Be brief.")
        #expect(body["max_output_tokens"]?.int == 64)
        #expect(body["previous_response_id"] == nil)
        let input = try #require(body["input"]?.array)
        #expect(input.map { $0["type"]?.string ?? "" } == ["message", "message", "message"])
        #expect(input.map { $0["role"]?.string ?? "" } == ["user", "assistant", "user"])
        #expect(input.map { $0["content"]?[0]?["type"]?.string ?? "" } == ["input_text", "output_text", "input_text"])
        #expect(input.map { $0["content"]?[0]?["text"]?.string ?? "" } == ["one", "ok", "two"])
        #expect(server.http.requests.last?.path == "/v1/responses")
    }

    /// With `previous_response = on` the server keeps the conversation: only the new message
    /// goes, with the last whole reply's id.
    @Test func previousResponseSendsOnlyTheNewMessage() async throws {
        let server = try TestOpenAIServer(api: .responses, script: TestOpenAIServer.streaming(["ok"]))
        let (_, workspace) = try Self.workspace(server, extra: "previous_response = on")
        let transcript = Transcript(workspace)
        await transcript.type("one")
        await transcript.type("two")
        let first = server.bodies[0], second = server.bodies[1]
        #expect(first["previous_response_id"] == nil)
        #expect(second["previous_response_id"]?.string == "resp_1")
        #expect(second["input"]?.array?.count == 1)
        #expect(second["input"]?[0]?["content"]?[0]?["text"]?.string == "two")
    }

    @Test(arguments: apis)
    func reasoningIsShownButNotStoredAsTheReply(api: TestOpenAIServer.API) async throws {
        let server = try TestOpenAIServer(api: api) { _ in [.reasoning("let me think"), .text("42"), .done] }
        let (_, workspace) = try Self.workspace(server)
        let output = await Transcript(workspace).type("answer?")
        #expect(output == "> answer?\nlet me think\n\n42\n")
        #expect(try workspace.store.lastMessage(session: "llama", role: .assistant)?.text == "42")
    }

    /// `/think off` hides reasoning (one dim line says the model thinks), `/think on` shows it
    /// again; `think = off` is the same from the config.
    @Test(arguments: apis)
    func thinkOffHidesReasoning(api: TestOpenAIServer.API) async throws {
        let server = try TestOpenAIServer(api: api) { _ in [.reasoning("let me think"), .reasoning(" more"), .text("42"), .done] }
        let (home, workspace) = try Self.workspace(server)
        let transcript = Transcript(workspace)
        #expect(await transcript.type("/think off") == "> /think off\nreasoning is hidden in llama for this run\n")
        #expect(await transcript.type("answer?") == "> answer?\n· thinking (hidden; /think on shows it)\n42\n")
        #expect(await transcript.type("/think") == "> /think\nreasoning is hidden in llama; /think on changes it\n")
        await transcript.type("/think on")
        #expect(await transcript.type("again?") == "> again?\nlet me think more\n\n42\n")
        #expect(try workspace.store.lastMessage(session: "llama", role: .assistant)?.text == "42")
        await transcript.type("/think off --save")
        let saved = try String(contentsOfFile: home.paths.configFile, encoding: .utf8)
        #expect(saved.contains("think = off"))
        #expect(await Transcript(try home.workspace()).type("@llama once more") == "> @llama once more\nllama ›\n· thinking (hidden; /think on shows it)\n42\n")
    }

    @Test(arguments: apis)
    func stoppingKeepsWhatArrivedAsStopped(api: TestOpenAIServer.API) async throws {
        let gate = Gate()
        let server = try TestOpenAIServer(api: api) { _ in [.text("partial "), .text("answer"), .wait(gate), .text("never"), .done] }
        defer { gate.open() }
        let (_, workspace) = try Self.workspace(server)
        let output = await Transcript(workspace).type("go") { job in
            while job.text != "partial answer" { await Task.yield() }
            job.stop()
        }
        #expect(output == "> go\npartial answer\n(stopped; what arrived is kept)\n")
        let reply = try #require(try workspace.store.lastMessage(session: "llama", role: .assistant))
        #expect(reply.status == .stopped)
        #expect(reply.text == "partial answer")
    }

    @Test(arguments: apis)
    func aCutStreamIsKeptAsPartial(api: TestOpenAIServer.API) async throws {
        let server = try TestOpenAIServer(api: api) { _ in [.text("half"), .close] }
        let (_, workspace) = try Self.workspace(server)
        let output = await Transcript(workspace).type("go")
        #expect(output.hasPrefix("> go\nhalf\nhark: "))
        let reply = try #require(try workspace.store.lastMessage(session: "llama", role: .assistant))
        #expect(reply.status == .partial)
        #expect(reply.text == "half")
    }

    @Test(arguments: apis)
    func aMidStreamErrorShowsTheServersMessage(api: TestOpenAIServer.API) async throws {
        let server = try TestOpenAIServer(api: api) { _ in [.text("par"), .error("Overloaded")] }
        let (_, workspace) = try Self.workspace(server)
        let output = await Transcript(workspace).type("go")
        #expect(output == "> go\npar\nhark: Overloaded\n")
        // The server's own error: the reply failed (a cut connection leaves it partial).
        #expect(try workspace.store.lastMessage(session: "llama", role: .assistant)?.status == .failed)
    }

    /// A reply cut by the token limit ends with `length` in every API (Anthropic's
    /// `max_tokens`, Responses' `incomplete` with `max_output_tokens`), and says so in a note
    /// shown and kept with it, in the API's words.
    @Test(arguments: apis)
    func aReplyCutByTheLimitEndsWithLength(api: TestOpenAIServer.API) async throws {
        let server = try TestOpenAIServer(api: api) { _ in [.text("cut"), .finish("length"), .done] }
        let (_, workspace) = try Self.workspace(server)
        let reason = Locked<String?>(nil)
        let output = await Transcript(workspace).type("go") { job in
            _ = await job.wait()
            reason.update { $0 = job.finishReason }
        }
        #expect(reason.read { $0 } == "length")
        let note = switch api {
        case .chat: ChatCompletionDecoder.cutOffNote
        case .messages: MessagesEventReader.cutOffNote
        case .responses: ResponsesEventReader.cutOffNote
        }
        #expect(output == "> go\ncut\n» \(note)\n")
        #expect(try workspace.store.lastMessage(session: "llama", role: .assistant)?.notes == [note])
    }

    @Test(arguments: apis)
    func toolCallsArriveAsEvents(api: TestOpenAIServer.API) async throws {
        let server = try TestOpenAIServer(api: api) { _ in
            [.toolCall(id: "call_1", name: "get_time", arguments: [#"{"tz":"#, #""UTC"}"#]), .finish("tool_calls"), .done]
        }
        let (_, workspace) = try Self.workspace(server)
        let output = await Transcript(workspace).type("time?")
        #expect(output == "> time?\n⚙ get_time {\"tz\":\"UTC\"}\n")
    }

    @Test func anUnknownAPIIsAConfigErrorWithASuggestion() async throws {
        let home = TestHome(config: "[session llama]\nkind = openai\nurl = http://127.0.0.1:9/v1\napi = message\n")
        let output = await Transcript(try home.workspace()).type("@llama hi")
        #expect(output == "> @llama hi\nhark: session llama: api must be chat, messages, responses; did you mean messages?\n")
    }

    /// `/model` reads Ollama's own list too, and sends the API's headers.
    @Test func modelReadsOllamasListWithTheAPIsHeaders() async throws {
        let server = try TestOpenAIServer(api: .messages, models: ["models": [["name": "qwen3:0.6b"], ["name": "gemma3:270m"]]]) { _ in [] }
        let (_, workspace) = try Self.workspace(server, extra: "auth = bearer:env:HARK_TEST_ANTHROPIC_KEY")
        setenv("HARK_TEST_ANTHROPIC_KEY", "sk-ant-test", 1)
        let output = await Transcript(workspace).type("/model")
        #expect(output == "> /model\n  qwen3:0.6b\n  gemma3:270m\n2 models; /model NAME switches llama to one\n")
        let request = try #require(server.http.requests.last)
        #expect(request.path == "/v1/models")
        #expect(request.header("x-api-key") == "sk-ant-test")
        #expect(request.header("anthropic-version") == MessagesAPI.version)
        #expect(Completion.complete(line: "/model ge", workspace: workspace).candidates == ["gemma3:270m"])
    }

    /// The url may be the full endpoint: `/model` and the other APIs are found beside it.
    @Test func aFullEndpointURLGivesTheBase() {
        #expect(ModelAPIs.base(of: "http://h:1/v1/chat/completions") == "http://h:1/v1")
        #expect(ModelAPIs.base(of: "http://h:1/v1/messages/") == "http://h:1/v1")
        #expect(ModelAPIs.base(of: "http://h:1/v1") == "http://h:1/v1")
    }

    /// Which turns go, for every API: the latest `context`, starting on a user's.
    @Test func theTurnsSentStartOnTheUsers() {
        let history = [Turn(role: .user, text: "a"), Turn(role: .assistant, text: "b"), Turn(role: .user, text: "c"),
                       Turn(role: .assistant, text: "d")]
        #expect(ModelPrompt.turnsToSend(history, limit: 3).map(\.text) == ["c", "d"])
        #expect(ModelPrompt.turnsToSend(history, limit: 4).map(\.text) == ["a", "b", "c", "d"])
        #expect(ModelPrompt.turnsToSend(history, limit: 0).isEmpty)
    }
}
