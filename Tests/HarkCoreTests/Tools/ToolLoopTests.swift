import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// A model session with `mcp = time`, end to end: the model (a fixture: a 135M model does not
/// call tools reliably) asks for the real mcp-server-time's tool in its API's format
/// (TestModelWire cites each), hark asks the user, runs it over stdio, shows the call and
/// result, sends the result back in the API's format and shows the model's answer; the
/// history keeps the exchange and replays it with the next message.
@Suite(.serialized) struct ToolLoopTests {
    static let question = #"run time.get_current_time {"timezone":"Europe/Paris"}? [y]es / [n]o / [a]lways for this tool "#

    static func model(_ api: TestOpenAIServer.API) throws -> TestOpenAIServer { try ToolLoopServer.model(api) }

    static func home(_ server: TestOpenAIServer, extra: String = "") throws -> TestHome {
        TestHome(config: TestMCPServers.section("time", "command = " + (try TestMCPServers.requireTime()))
            + "[session llama]\nkind = openai\nurl = \(server.baseURL)\napi = \(server.api.rawValue)\nmcp = time\n\(extra)\n")
    }

    /// The request's tool result (the second request), in each API's shape.
    static func toolResult(in body: JSON, api: TestOpenAIServer.API) -> (id: String?, text: String?, offered: String?) {
        switch api {
        case .chat:
            let last = body["messages"]?.array?.last
            return (last?["tool_call_id"]?.string, last?["content"]?.string, body["tools"]?.array?.first?["function"]?["name"]?.string)
        case .messages:
            let block = body["messages"]?.array?.last?["content"]?.array?.first
            return (block?["tool_use_id"]?.string, block?["content"]?.string, body["tools"]?.array?.first?["name"]?.string)
        case .responses:
            let item = body["input"]?.array?.last
            return (item?["call_id"]?.string, item?["output"]?.string, body["tools"]?.array?.first?["name"]?.string)
        }
    }

    @Test(arguments: [TestOpenAIServer.API.chat, .messages, .responses])
    func aToolCallIsAskedAboutRunShownAndAnswered(_ api: TestOpenAIServer.API) async throws {
        let server = try Self.model(api)
        let home = try Self.home(server)
        let workspace = try home.workspace()
        defer { workspace.tools.endAll() }
        try workspace.switchSession(to: "llama")
        let user = ScriptedInteraction(["y"])
        workspace.interaction = user
        let transcript = Transcript(workspace)
        let output = await transcript.type("what time is it in Paris?")

        #expect(user.questions.map(\.prompt) == [Self.question])
        let lines = output.split(separator: "\n").map(String.init)
        #expect(lines.first == "> what time is it in Paris?")
        #expect(lines.contains(#"⚙ time.get_current_time {"timezone":"Europe/Paris"}"#))
        #expect(lines.contains { $0.hasPrefix(#"  → { "timezone": "Europe/Paris", "datetime": ""#) })
        #expect(lines.last == "It is evening in Paris.")

        // The tools were offered, and the result went back as the API wants it.
        let bodies = server.bodies
        #expect(bodies.count == 2)
        let (id, text, offered) = Self.toolResult(in: bodies[1], api: api)
        #expect(offered == "time__get_current_time")
        #expect(id == "call_1")
        #expect(try JSON.parse(text ?? "")["timezone"]?.string == "Europe/Paris")

        // Kept: the call with its result, then the answer; replayed with the next message.
        let thread = try #require(try workspace.store.currentThread(session: "llama"))
        let messages = try workspace.store.messages(threadID: thread.id)
        #expect(messages.map(\.role) == [.user, .tool, .assistant])
        #expect(messages[1].text.hasPrefix("time.get_current_time {\"timezone\":\"Europe/Paris\"}\n→ {"))
        _ = await transcript.type("thanks")
        let replayed = try #require(server.bodies.last).encoded()
        #expect(replayed.contains("call_1"))
        #expect(replayed.contains("day_of_week"))
    }

    /// In a pipe nobody can answer: the call is not run, the user is told how to allow it,
    /// and the model is told it was refused.
    @Test func withNobodyToAskACallIsRefused() async throws {
        let server = try Self.model(.chat)
        let workspace = try Self.home(server).workspace()
        defer { workspace.tools.endAll() }
        let output = await Transcript(workspace).type("@llama what time is it?")
        #expect(output.contains("  → not run\n"))
        #expect(output.contains("time.get_current_time was not run: nobody to ask here; allow it with --yes-tools time.get_current_time"))
        let (id, text, _) = Self.toolResult(in: try #require(server.bodies.last), api: .chat)
        #expect(id == "call_1")
        #expect(text == "The user did not allow this call, so it was not run. Answer without it.")
    }

    /// `allow = time` in the session, or `--yes-tools`: run without a question.
    @Test(arguments: ["session", "command line"])
    func allowedToolsRunWithoutAsking(_ how: String) async throws {
        let server = try Self.model(.chat)
        let workspace = try Self.home(server, extra: how == "session" ? "allow = time" : "").workspace()
        defer { workspace.tools.endAll() }
        if how == "command line" { workspace.tools.allow(["time.get_current_time"]) }
        let user = ScriptedInteraction([])
        workspace.interaction = user
        let output = await Transcript(workspace).type("@llama what time is it?")
        #expect(user.questions.isEmpty)
        #expect(output.contains(#"  → { "timezone": "Europe/Paris""#))
    }

    /// "a": the same tool runs without asking for the rest of the run; "n": it is not run.
    @Test func alwaysAllowsTheToolForThisRunAndNoRefuses() async throws {
        let server = try Self.model(.chat)
        let workspace = try Self.home(server).workspace()
        defer { workspace.tools.endAll() }
        let user = ScriptedInteraction(["n", "a"])
        workspace.interaction = user
        let transcript = Transcript(workspace)
        #expect(await transcript.type("@llama one").contains("  → not run\n"))
        #expect(await transcript.type("@llama two").contains(#"  → { "timezone""#))
        #expect(await transcript.type("@llama three").contains(#"  → { "timezone""#))
        #expect(user.questions.count == 2)
        #expect(await transcript.type("/tools").contains("time.get_current_time"))
    }

    /// `/tools`: each server with where it runs and its state; the session's own are started.
    @Test func toolsListsServersToolsAndWhetherTheyAsk() async throws {
        let server = try Self.model(.chat)
        let workspace = try Self.home(server, extra: "allow = time.convert_time").workspace()
        defer { workspace.tools.endAll() }
        try workspace.switchSession(to: "llama")
        let output = await Transcript(workspace).type("/tools")
        let lines = output.split(separator: "\n").map(String.init)
        #expect(lines[1].hasPrefix("time  stdio: ") && lines[1].hasSuffix("  · used by llama"))
        #expect(lines[2] == "  running mcp-time 2026.10.19, protocol 2025-11-25 (session), 2 tools")
        #expect(lines[3].hasPrefix("  time.get_current_time  Get current time in a specific timezone") && lines[3].hasSuffix("asks"))
        #expect(lines[4].hasSuffix("allowed by the session's allow"))
        try workspace.switchSession(to: "local")
        #expect(await Transcript(workspace).type("/tools nope") .contains("no [mcp nope] in the config"))
    }
}
