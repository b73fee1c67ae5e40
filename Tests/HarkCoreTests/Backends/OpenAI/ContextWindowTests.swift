import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// The context budget against the OpenAI test server, which records the messages it was sent:
/// which turns go, the window the server tells, and its overflow errors as advice.
@Suite struct ContextWindowTests {
    static func workspace(_ server: TestOpenAIServer, extra: String = "") throws -> (Workspace, TestHome) {
        let home = TestHome(config: "[session llama]\nkind = openai\nurl = \(server.baseURL)\nmodel = tiny\n\(extra)\n")
        let workspace = try home.workspace()
        try workspace.switchSession(to: "llama")
        return (workspace, home)
    }

    static func message(_ number: Int, bytes: Int) -> String {
        "m\(number) " + String(repeating: "x", count: bytes - 3)
    }

    /// Messages of 200 bytes cost 54 tokens, replies ("ok") 5; 300 tokens less 50 for the
    /// reply leave 250. The fifth message is the first that cannot take every earlier turn.
    @Test func theNewestTurnsThatFitAreSentAndTheCutIsSaidOnce() async throws {
        let server = try TestOpenAIServer { _ in [.text("ok"), .done] }
        let (workspace, _) = try Self.workspace(server, extra: "context = 300\nmax_tokens = 50")
        let transcript = Transcript(workspace)
        for number in 1...4 { await transcript.type(Self.message(number, bytes: 200)) }
        #expect(server.sentMessages[3].count == 7, "the fourth message goes with all six earlier turns")
        let fifth = await transcript.type(Self.message(5, bytes: 200))
        #expect(fifth == "> \(Self.message(5, bytes: 200))\n· 2 earlier turns not sent; /compact summarises them\nok\n")
        let later = [await transcript.type(Self.message(6, bytes: 200)), await transcript.type(Self.message(7, bytes: 200))]
        #expect(!later.joined().contains("not sent"), "said once")
        let ok = Turn(role: .assistant, text: "ok")
        #expect(server.sentMessages[6] == [Turn(role: .user, text: Self.message(4, bytes: 200)), ok,
                                           Turn(role: .user, text: Self.message(5, bytes: 200)), ok,
                                           Turn(role: .user, text: Self.message(6, bytes: 200)), ok,
                                           Turn(role: .user, text: Self.message(7, bytes: 200))])
        // The guess for each prompt is kept with its reply: 54 for the message, 59 a pair.
        let reply = try #require(try workspace.store.lastMessage(session: "llama", role: .assistant))
        #expect(reply.promptEstimate == 54 + 3 * 59)
        let info = await transcript.type("/info")
        #expect(info.contains("300 tokens (context = 300) · 50 kept for the reply"))
    }

    /// Messages of 1200 bytes (304 tokens): the second prompt is long enough to ask the server
    /// for its window (1024, less 256 for the reply), which the third no longer fits whole.
    func learnsTheWindow(props: JSON?, show: JSON?) async throws -> (TestOpenAIServer, Workspace) {
        let server = try TestOpenAIServer(props: props, show: show) { _ in [.text("ok"), .done] }
        let (workspace, _) = try Self.workspace(server)
        let transcript = Transcript(workspace)
        for number in 1...3 { await transcript.type(Self.message(number, bytes: 1200)) }
        #expect(server.sentMessages[1].count == 3)
        #expect(server.sentMessages[2] == [Turn(role: .user, text: Self.message(2, bytes: 1200)), Turn(role: .assistant, text: "ok"),
                                           Turn(role: .user, text: Self.message(3, bytes: 1200))])
        return (server, workspace)
    }

    /// llama.cpp's `GET /props`, shaped as tools/server/server-context.cpp `handle_props`
    /// writes it: the slot's settings under `default_generation_settings`, `n_ctx` among them.
    @Test func llamaCppTellsItsWindowThroughProps() async throws {
        let props: JSON = ["default_generation_settings": ["n_ctx": 1024, "params": ["n_predict": -1]],
                           "total_slots": 1, "model_path": "SmolLM2-135M-Instruct.Q4_1.gguf", "build_info": "b1-test"]
        let (server, workspace) = try await learnsTheWindow(props: props, show: nil)
        #expect(server.http.requests.filter { $0.path == "/props" }.count == 1, "asked once")
        let info = await Transcript(workspace).type("/info")
        #expect(info.contains("1024 tokens (llama.cpp /props) · 256 kept for the reply"))
    }

    /// Ollama's `POST /api/show`: `parameters` is the Modelfile's lines (`num_ctx 1024`);
    /// `model_info` the model's trained length, which Ollama does not use unless asked.
    @Test func ollamaTellsItsWindowThroughShow() async throws {
        let show: JSON = ["parameters": "num_ctx                        1024\nstop                           \"<|im_end|>\"",
                          "model_info": ["general.architecture": "llama", "llama.context_length": 8192],
                          "details": ["format": "gguf", "family": "llama"]]
        let (server, _) = try await learnsTheWindow(props: nil, show: show)
        let asked = try #require(server.http.requests.first { $0.path == "/api/show" })
        #expect(try JSON.parse(asked.body)["model"]?.string == "tiny")
        #expect(ServerContextWindow.ollamaWindow(["model_info": ["qwen2.context_length": 32768]]) == 4096)
        #expect(ServerContextWindow.ollamaWindow(["model_info": ["qwen2.context_length": 2048]]) == 2048)
    }

    /// Each server's own wording of a prompt too long for the model becomes one line of advice.
    @Test(arguments: [
        // ggml-org/llama.cpp tools/server: ERROR_TYPE_EXCEED_CONTEXT_SIZE, "exceed_context_size_error",
        // with the counts beside the message.
        (#"{"error":{"code":400,"message":"request (4476 tokens) exceeds the available context size (4096 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":4476,"n_ctx":4096}}"#,
         "the thread no longer fits the model's context of 4096 tokens: /retry sends fewer turns, /compact summarises the older ones",
         4096),
        // vllm-project/vllm vllm/entrypoints/openai/serving_engine.py `_validate_input`, in its
        // ErrorResponse (`object: error`, at the top level).
        (#"{"object":"error","message":"This model's maximum context length is 2048 tokens. However, you requested 2100 tokens (2000 in the messages, 100 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}"#,
         "the thread no longer fits the model's context of 2048 tokens: /retry sends fewer turns, /compact summarises the older ones",
         2048),
        // OpenAI, as reported in chathub-dev/chathub issue 126.
        (#"{"error":{"message":"This model's maximum context length is 4097 tokens. However, your messages resulted in 4294 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"#,
         "the thread no longer fits the model's context of 4097 tokens: /retry sends fewer turns, /compact summarises the older ones",
         4097),
    ])
    func overflowErrorsBecomeAdvice(body: String, line: String, window: Int) async throws {
        let server = try TestOpenAIServer { request in
            request["messages"]?.array?.count == 1 ? [.text("hi"), .done] : [.fail(status: 400, body: body)]
        }
        let (workspace, _) = try Self.workspace(server)
        await Transcript(workspace).type("hello")
        let output = await Transcript(workspace).type("more")
        #expect(output == "> more\nhark: \(line)\n")
        #expect(!output.contains("HTTP 400"))
        // The window the server named is the one hark keeps within from now on.
        let info = await Transcript(workspace).type("/info")
        #expect(info.contains("\(window) tokens (the server's error)"))
    }

    /// llama.cpp before 2025 sent it as an event in the stream, without the counts; with
    /// `context` set the advice says to compact.
    @Test func anOverflowInTheStreamIsAdviceToo() async throws {
        let server = try TestOpenAIServer { request in
            request["messages"]?.array?.count == 1
                ? [.text("hi"), .done] : [.error("the request exceeds the available context size, try increasing it")]
        }
        let (workspace, _) = try Self.workspace(server, extra: "context = 4096")
        await Transcript(workspace).type("hello")
        let output = await Transcript(workspace).type("more")
        #expect(output == "> more\nhark: the thread no longer fits the model's context of 4096 tokens: "
            + "/compact summarises its older turns, or set context = TOKENS for llama\n")
    }

    /// A message sent alone that does not fit: no turn to leave out, so the advice is to
    /// shorten it (the body as llama.cpp's server answered a 731-token prompt with n_ctx 512).
    @Test func aMessageTooLongAloneSaysSo() async throws {
        let body = #"{"error":{"code":400,"message":"request (731 tokens) exceeds the available context size (512 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":731,"n_ctx":512}}"#
        let server = try TestOpenAIServer { _ in [.fail(status: 400, body: body)] }
        let (workspace, _) = try Self.workspace(server)
        let output = await Transcript(workspace).type("hello")
        #expect(output == "> hello\nhark: the message alone is longer than the model's context of 512 tokens: shorten it, "
            + "or start the server with a larger context\n")
    }

    /// The server's count of the last prompt corrects the guess for the next.
    @Test func theServersCountCalibratesTheNextGuess() async throws {
        let server = try TestOpenAIServer { _ in [.text("ok"), .usage(prompt: 21, completion: 1), .done] }
        let (workspace, _) = try Self.workspace(server, extra: "context = 4096")
        await Transcript(workspace).type("hello there")
        let reply = try #require(try workspace.store.lastMessage(session: "llama", role: .assistant))
        #expect(reply.promptEstimate == 7)  // 11 bytes: 3 tokens and 4 of framing
        let thread = try #require(try workspace.currentThread())
        #expect(try workspace.store.context(threadID: thread.id, session: "llama", window: TurnWindow(messages: 40)).estimator.scale == 3)
        #expect(reply.timing != nil)
    }
}
