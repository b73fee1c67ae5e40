import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// MCP elicitation against a server written with the official Python SDK
/// (Tests/Fixtures/mcp/elicit_server.py: a `Resolve`d `Elicit` and `ctx.elicit_url`), over
/// stdio and Streamable HTTP in both eras: hark declares the capability; 2025-11-25 (stdio,
/// and HTTP held to the handshake): the server's `elicitation/create` reaches the call's asker
/// as a question; 2026-07-28 (HTTP, chosen by `server/discover`, and stdio pinned to it): the
/// call's `input_required` result does, and the call goes again with the answer. Either way the answer reaches the
/// tool as the SDK reads it.
@Suite(.serialized) struct MCPElicitationTests {
    static func servers() async throws -> [MCPServer] {
        let url = try await TestMCPServers.elicitServerURL()
        let command = TestMCPServers.python + " " + TestMCPServers.elicitFixture
        return [MCPServerTests.server("tickets", ["command": command]),
                MCPServerTests.server("tickets", ["url": url, "protocol": "2025-11-25"]),
                MCPServerTests.server("tickets", ["url": url]),
                MCPServerTests.server("tickets", ["command": command, "protocol": "2026-07-28"])]
    }

    static func answering(_ outcome: QuestionOutcome, asked: Locked<[Question]>) -> MCPServer.Asker {
        { question in
            if case .success(let question) = question { asked.update { $0.append(question) } }
            return outcome
        }
    }

    @Test func theFormsAnswerReachesTheToolOverStdioAndHTTP() async throws {
        for server in try await Self.servers() {
            defer { server.stop() }
            let asked = Locked<[Question]>([])
            let (text, isError) = try await server.call("register", arguments: [:],
                                                        asker: Self.answering(.accept(["name": "Ann", "count": 3]), asked: asked))
            #expect(!isError)
            #expect(try JSON.parse(text) == ["action": "accept", "content": ["name": "Ann", "count": 3]])
            let question = try #require(asked.read { $0.first })
            #expect(question.message == "Who is coming, and how many tickets?")
            #expect(question.asker == "mcp tickets")
            #expect(question.fields.map(\.field.id) == ["name", "count"])
        }
        // Each era was spoken, as meant.
        var modes: [String] = []
        for server in try await Self.servers() {
            defer { server.stop() }
            _ = try await server.tools()
            guard case .running(_, let info) = server.status else { continue }
            modes.append(info.split(separator: " ").suffix(2).joined(separator: " "))
        }
        #expect(modes == ["2025-11-25 (session)", "2025-11-25 (session)", "2026-07-28 (stateless)", "2026-07-28 (stateless)"])
    }

    @Test func declineAndCancelReachTheServerAsSuch() async throws {
        for server in try await Self.servers() {
            defer { server.stop() }
            for outcome in [QuestionOutcome.decline, .cancel] {
                let (text, _) = try await server.call("register", arguments: [:], asker: Self.answering(outcome, asked: Locked([])))
                #expect(try JSON.parse(text) == ["action": .string(outcome.action)])
            }
        }
    }

    @Test func aURLQuestionShowsTheHostAndItsConsentGoesBack() async throws {
        for server in try await Self.servers() {
            defer { server.stop() }
            let asked = Locked<[Question]>([])
            let (text, _) = try await server.call("connect", arguments: [:], asker: Self.answering(.accept([:]), asked: asked))
            #expect(try JSON.parse(text) == ["action": "accept"])
            let question = try #require(asked.read { $0.first })
            #expect(question.kind == .url("https://accounts.example.org/connect?id=42", host: "accounts.example.org"))
        }
    }

    /// A call made without an asker (nobody asked for the server's work) is declined.
    @Test func aQuestionWithNobodyToAskIsDeclined() async throws {
        let server = try await Self.servers()[0]
        defer { server.stop() }
        let (text, _) = try await server.call("register", arguments: [:])
        #expect(try JSON.parse(text) == ["action": "decline"])
    }
}

extension MCPElicitationTests {
    /// A person takes longer than the call's `timeout` to answer: the call waits for them (the
    /// server is silent meanwhile), over stdio and over HTTP, and still ends with the answer.
    /// The asker stands for that person: it takes 6.5 s, twice a timeout of 3 s (the server has 3 s to
    /// answer once it has the answer, on a loaded machine).
    @Test func aSlowAnswerIsNoTimeout() async throws {
        let servers = [MCPServerTests.server("tickets", ["command": TestMCPServers.python + " " + TestMCPServers.elicitFixture,
                                                         "timeout": "3"]),
                       MCPServerTests.server("tickets", ["url": try await TestMCPServers.elicitServerURL(), "timeout": "3",
                                                         "protocol": "2025-11-25"])]
        for server in servers {
            defer { server.stop() }
            _ = try await server.tools()
            let (text, isError) = try await server.call("register", arguments: [:]) { _ in
                try? await Task.sleep(for: .milliseconds(6500))
                return .accept(["name": "Ann", "count": 3])
            }
            #expect(!isError, "\(text)")
            #expect(try JSON.parse(text)["action"] == "accept")
        }
    }
}

extension MCPElicitationTests {
    /// 2026-07-28's rounds, one by one: the call's first answer is `input_required` with one
    /// `elicitation/create` under a key of the server's and an opaque state; hark sends the call
    /// again with `inputResponses` under that key and the state as it came, and the result is
    /// the tool's. Also a server that asks for what hark does not offer, and one that never stops
    /// asking, end the call with a line saying so (the SDK's driver, mcp/client/_input_required.py).
    @Test func inputRequiredRoundsAreAnsweredWithTheStateEchoed() async throws {
        let server = MCPServerTests.server("tickets", ["url": "http://127.0.0.1:1/mcp"])
        let sent = Locked<[JSON]>([])
        let asking: JSON = ["resultType": "input_required", "requestState": "opaque-1",
                            "inputRequests": ["who": ["method": "elicitation/create",
                                                      "params": ["mode": "form", "message": "Who?",
                                                                 "requestedSchema": ["type": "object", "properties": ["name": ["type": "string"]]]]]]]
        let final = try await server.answerInputRequests(asking, params: ["name": "register", "arguments": [:]],
                                                         asker: { _ in .accept(["name": "Ann"]) }) { params in
            sent.update { $0.append(params) }
            return ["content": [["type": "text", "text": "ok"]]]
        }
        #expect(final == ["content": [["type": "text", "text": "ok"]]])
        #expect(sent.read { $0 } == [["name": "register", "arguments": [:], "requestState": "opaque-1",
                                      "inputResponses": ["who": ["action": "accept", "content": ["name": "Ann"]]]]])

        let sampling: JSON = ["resultType": "input_required", "inputRequests": ["s": ["method": "sampling/createMessage", "params": [:]]]]
        await #expect(throws: MCPServer.UnofferedInput(method: "sampling/createMessage")) {
            _ = try await server.answerInputRequests(sampling, params: [:], asker: nil) { _ in [:] }
        }
        let endless = try await server.answerInputRequests(asking, params: [:], asker: nil) { _ in asking }
        #expect(endless == nil)
    }
}
