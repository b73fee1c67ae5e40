import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// The `openai` kind against llama.cpp's real server (xllamacpp, SmolLM2-135M, temperature 0),
/// in each of the three APIs it serves. One suite, one request at a time: the server has one
/// slot, and the stop test reads its log.
@Suite(.serialized) struct LlamaServerTests {
    static let apis = ["chat", "messages", "responses"]

    static func config(_ server: LlamaTestServer, api: String, extra: String = "") -> String {
        "[session llama]\nkind = openai\nurl = \(server.baseURL)\napi = \(api)\n\(extra)\n"
    }

    /// What the server itself answers to the same message, asked whole (`stream: false`) in the
    /// same API: the streamed reply must read the same.
    static func serversOwnAnswer(_ server: LlamaTestServer, api: String, _ message: String, maxTokens: Int) async throws -> String {
        switch api {
        case "messages":
            let reply = try await server.post("/v1/messages", ["messages": [["role": "user", "content": .string(message)]],
                                                               "max_tokens": .number(Double(maxTokens))])
            return (reply["content"]?.array ?? []).compactMap { $0["text"]?.string }.joined()
        case "responses":
            let reply = try await server.post("/v1/responses", ["input": [["type": "message", "role": "user",
                                                                             "content": [["type": "input_text", "text": .string(message)]]]],
                                                                "max_output_tokens": .number(Double(maxTokens))])
            return (reply["output"]?.array ?? []).flatMap { $0["content"]?.array ?? [] }.compactMap { $0["text"]?.string }.joined()
        default:
            let reply = try await server.post("/v1/chat/completions", ["messages": [["role": "user", "content": .string(message)]],
                                                                       "max_tokens": .number(Double(maxTokens))])
            return reply["choices"]?[0]?["message"]?["content"]?.string ?? ""
        }
    }

    @Test(arguments: apis)
    func aStreamedReplyReadsAsTheServerWroteIt(api: String) async throws {
        let server = try await LlamaTestServer.shared
        let home = TestHome(config: Self.config(server, api: api, extra: "max_tokens = 12"))
        let workspace = try home.workspace()
        try workspace.switchSession(to: "llama")
        let finish = Locked<String?>(nil)
        let output = await Transcript(workspace).type("Say hi to Ann") { job in
            _ = await job.wait()
            finish.update { $0 = job.finishReason }
        }
        let expected = try await Self.serversOwnAnswer(server, api: api, "Say hi to Ann", maxTokens: 12)
        #expect(!expected.isEmpty)
        // Twelve tokens is the limit: the server cut the reply, and says so in Chat Completions
        // and Messages (`max_tokens`), which hark notes under it. Its Responses endpoint says
        // `completed` all the same (no `response.incomplete`), and hark takes the server's word.
        let note: String? = switch api {
        case "chat": ChatCompletionDecoder.cutOffNote
        case "messages": MessagesEventReader.cutOffNote
        default: nil
        }
        #expect(output == "> Say hi to Ann\n\(expected)\n" + (note.map { "» \($0)\n" } ?? ""))
        let reply = try #require(try workspace.store.lastMessage(session: "llama", role: .assistant))
        #expect(reply.text == expected)
        #expect(reply.status == .complete)
        #expect(reply.notes == (note.map { [$0] } ?? []))
        #expect(finish.read { $0 } == (api == "responses" ? "stop" : "length"))
        #expect(reply.usage?.completionTokens == 12)
        #expect((reply.usage?.promptTokens ?? 0) > 5)
        #expect(reply.model == LlamaTestServer.modelName)
    }

    /// The thread's earlier turns go along in each API's shape (the Responses API's typed items
    /// among them: llama.cpp refuses an untyped assistant item), and the server reads them.
    @Test(arguments: apis)
    func earlierTurnsGoAlong(api: String) async throws {
        let server = try await LlamaTestServer.shared
        let home = TestHome(config: Self.config(server, api: api, extra: "max_tokens = 4\nsystem = Answer briefly."))
        let workspace = try home.workspace()
        try workspace.switchSession(to: "llama")
        let transcript = Transcript(workspace)
        await transcript.type("What is 2 and 2?")
        let first = try #require(try workspace.store.lastMessage(session: "llama", role: .assistant))
        await transcript.type("And 3 and 3?")
        let second = try #require(try workspace.store.lastMessage(session: "llama", role: .assistant))
        #expect(first.status == .complete)
        #expect(second.status == .complete, "\(transcript.text)")
        // The second prompt holds the first exchange: more tokens than the first prompt and reply.
        let firstPrompt = try #require(first.usage?.promptTokens)
        let secondPrompt = try #require(second.usage?.promptTokens)
        #expect(secondPrompt > firstPrompt + (first.usage?.completionTokens ?? 0))
    }

    /// Ctrl-C mid-reply keeps what arrived, and the server stops generating: closing the
    /// connection cancels its task. llama.cpp logs "cancel task", then frees the slot
    /// ("slot release: … stop processing: n_tokens = N", N counting prompt and reply), after
    /// which /slots says it is idle (and resets its counts, so the log is where N is read).
    @Test(arguments: apis)
    func stoppingMidReplyStopsTheServer(api: String) async throws {
        let server = try await LlamaTestServer.shared
        let (cancelled, released) = (server.occurrences(inLog: "cancel task"), server.occurrences(inLog: "stop processing: n_tokens = "))
        let home = TestHome(config: Self.config(server, api: api, extra: "max_tokens = 1500"))
        let workspace = try home.workspace()
        try workspace.switchSession(to: "llama")
        let output = await Transcript(workspace).type("Count from 1 to 500, separated by commas.") { job in
            while job.text.count < 8 && job.isRunning { await Task.yield() }
            job.stop()
        }
        #expect(output.hasSuffix("(stopped; what arrived is kept)\n"))
        let reply = try #require(try workspace.store.lastMessage(session: "llama", role: .assistant))
        #expect(reply.status == .stopped)
        #expect(reply.text.count >= 8)
        try await server.waitForLog("stop processing: n_tokens = ", count: released + 1)
        #expect(server.occurrences(inLog: "cancel task") == cancelled + 1)
        let slots = try await server.get("/slots")
        #expect(slots[0]?["is_processing"] == .bool(false))
        // Stopped long before its 1500 tokens: had it run on, the slot would hold more.
        let last = try #require(server.log.components(separatedBy: "stop processing: n_tokens = ").last)
        let tokens = try #require(Int(last.prefix { $0.isNumber }))
        #expect(tokens < 1500)
    }

    /// `seq 1 300 | hark -s llama "what is the last number?"` sends the numbers with the
    /// message: the server's own count of the prompt is the count of the stored message in its
    /// chat template (`/apply-template`, then `/tokenize`), so it received all of it, 300
    /// included. `seq 1 20000 | …` is refused before sending, by the window /props tells.
    @Test func pipedTextGoesWithTheMessageAndTooMuchIsRefusedBeforeSending() async throws {
        let server = try await LlamaTestServer.shared
        let home = TestHome(config: Self.config(server, api: "chat", extra: "max_tokens = 1"))
        func hark(_ input: String) async throws -> HarkRun {
            try await HarkRun.run(["-s", "llama", "what is the last number?"], home.environment, input: Array(input.utf8))
        }
        let numbers = (1...300).map(String.init).joined(separator: "\n")
        let run = try await hark(numbers + "\n")
        #expect(run.status == 0, "\(run.stderr)")
        let store = try HistoryStore(path: home.paths.historyDatabase)
        let sent = try #require(try store.lastMessage(session: "llama", role: .user))
        #expect(sent.text == "what is the last number?\n\n" + numbers)
        let reply = try #require(try store.lastMessage(session: "llama", role: .assistant))
        let prompt = try await server.post("/apply-template", ["messages": [["role": "user", "content": .string(sent.text)]]])
        let tokens = try await server.post("/tokenize", ["content": prompt["prompt"] ?? "", "parse_special": true])
        #expect(reply.usage?.promptTokens == tokens["tokens"]?.array?.count)
        let launched = server.occurrences(inLog: "launch_slot_")
        let refused = try await hark((1...20000).map(String.init).joined(separator: "\n") + "\n")
        let said = refused.stderr
        #expect(refused.status == 2)
        #expect(said.hasPrefix("hark: the message and its 106.3 KB of piped text are about "))
        #expect(said.contains("tokens; llama takes 2,048 (1 of them kept for the reply): --truncate head|tail sends what fits"))
        #expect(server.occurrences(inLog: "launch_slot_") == launched, "nothing reached the server")
    }

    @Test func modelListsTheServersModelsAndSwitches() async throws {
        let server = try await LlamaTestServer.shared
        let home = TestHome(config: Self.config(server, api: "chat", extra: "model = other"))
        let workspace = try home.workspace()
        try workspace.switchSession(to: "llama")
        let transcript = Transcript(workspace)
        #expect(await transcript.type("/model") == "> /model\n  \(LlamaTestServer.modelName)\n1 model; /model NAME switches llama to one\n")
        #expect(await transcript.type("/model smollm") == "> /model smollm\nhark: the server has no model smollm; did you mean smollm2?\n")
        #expect(await transcript.type("/model smollm2") == "> /model smollm2\nllama uses smollm2 for this run; /model smollm2 --save keeps it\n")
        #expect(await transcript.type("/model") == "> /model\n* \(LlamaTestServer.modelName)\n1 model; /model NAME switches llama to one\n")
        #expect(try workspace.session(named: "llama").model == "other")
        await transcript.type("/model smollm2 --save")
        #expect(try workspace.session(named: "llama").model == "smollm2")
    }

    /// llama.cpp keeps no conversations: asked to continue one by `previous_response_id`, it
    /// refuses, and the user reads why.
    @Test func previousResponseIDReachesTheServer() async throws {
        let server = try await LlamaTestServer.shared
        let home = TestHome(config: Self.config(server, api: "responses", extra: "max_tokens = 3\nprevious_response = on"))
        let workspace = try home.workspace()
        try workspace.switchSession(to: "llama")
        let transcript = Transcript(workspace)
        await transcript.type("Hello")
        let first = try #require(try workspace.store.lastMessage(session: "llama", role: .assistant))
        #expect(first.status == .complete)
        #expect(first.backendID?.hasPrefix("resp_") == true)
        let output = await transcript.type("Again")
        #expect(output.contains("does not support 'previous_response_id'"), "\(output)")
    }

    /// The second server the helper can start, for the local session's documents: llama.cpp's
    /// embedding mode answers `/v1/embeddings` with one vector per input, of the model's width.
    @Test func theEmbeddingsServerEmbeds() async throws {
        let server = try await LlamaTestServer.embeddings
        let answer = try await server.post("/v1/embeddings", ["input": ["a form field", "another"], "model": "smollm2"])
        let vectors = try #require(answer["data"]?.array)
        #expect(vectors.count == 2)
        #expect(vectors[0]["embedding"]?.array?.count == 576)
    }
}
