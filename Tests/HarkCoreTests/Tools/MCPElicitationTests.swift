import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// MCP elicitation against a server written with the official Python SDK
/// (Tests/Fixtures/mcp/elicit_server.py, `ctx.elicit` and `ctx.elicit_url`), over stdio and
/// Streamable HTTP: hark declares the capability, the server's `elicitation/create` reaches
/// the call's asker as a question, and the answer reaches the tool as the SDK reads it.
@Suite(.serialized) struct MCPElicitationTests {
    static func servers() async throws -> [MCPServer] {
        [MCPServerTests.server("tickets", ["command": TestMCPServers.python + " " + TestMCPServers.elicitFixture]),
         MCPServerTests.server("tickets", ["url": try await TestMCPServers.elicitServerURL()])]
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
                       MCPServerTests.server("tickets", ["url": try await TestMCPServers.elicitServerURL(), "timeout": "3"])]
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
