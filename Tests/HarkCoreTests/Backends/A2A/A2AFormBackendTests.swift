import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// An A2A agent's form (`form` and `approve` in Tests/Fixtures/a2a/agent.py, served by the
/// a2a-sdk): asked with the question engine, the answers sent back as a data part in the same
/// task, which the agent reads with the SDK's `get_data_parts`.
@Suite struct A2AFormBackendTests {
    /// Someone at the keyboard: types `lines` into a form, presses `key` at a one-key choice.
    final class Answerer: Interaction, @unchecked Sendable {
        let lines: [String]
        let key: Character?
        private let lock = NSLock()
        private var seen: [String] = []

        init(lines: [String] = [], key: Character? = nil) {
            self.lines = lines
            self.key = key
        }

        var shown: [String] { lock.withLock { seen } }
        var isInteractive: Bool { true }
        func ask(_ prompt: String, secret: Bool) async -> String? { nil }

        func choose(_ prompt: String, options: [Character]) async -> Character? {
            lock.withLock { seen.append(prompt) }
            return key
        }

        func fill(_ question: QuestionConversation) async -> QuestionOutcome? {
            var conversation = question
            var lines = conversation.begin()
            defer { lock.withLock { seen += lines } }
            for line in self.lines {
                switch conversation.take(line) {
                case .ask(let more): lines += more
                case .done(let outcome, let more):
                    lines += more
                    return outcome
                }
            }
            return .cancel
        }
    }

    static func workspace(_ agent: TestA2AAgent, _ name: String = "echo", answerer: Interaction? = nil) throws -> Workspace {
        let workspace = try TestHome(config: "[hark]\ndefault = \(name)\n\n[session \(name)]\nkind = a2a\nurl = \(agent.url(name))\n")
            .workspace()
        if let answerer { workspace.interaction = answerer }
        return workspace
    }

    /// The task named in "task ID needs an answer." and in "task ID got …".
    static func tasks(in output: String) -> [String] {
        output.split(separator: "\n").compactMap { line in
            guard let start = line.range(of: "task ")?.upperBound else { return nil }
            return String(line[start...].prefix { $0 != " " })
        }
    }

    /// The last user message the agent holds in the task's history.
    static func lastUserMessage(_ agent: TestA2AAgent, task: String) async throws -> JSON? {
        let result = try await agent.call("echo", method: "GetTask", params: ["id": .string(task), "historyLength": 20])["result"]
        return result?["history"]?.array?.last { $0["role"]?.string == "ROLE_USER" }
    }

    @Test func aFormIsAskedFieldByFieldAndAnsweredAsADataPartInTheSameTask() async throws {
        let agent = try await TestA2AAgent.shared()
        // Asked in the engine's order: words first (the request id's Enter takes its known value).
        let answerer = Answerer(lines: ["I'm Ann", "", "three of them", "yes"])
        let workspace = try Self.workspace(agent, answerer: answerer)
        let output = await Transcript(workspace).type("form")
        #expect(answerer.shown.contains("1/3 Name: Your name"), "\(answerer.shown)")
        #expect(answerer.shown.contains { $0.contains("echo asks: Who is coming, and how many tickets?") })
        #expect(output.contains(#"got the data part {"count": 3, "name": "Ann", "request_id": "request_id_4711"}"#), "\(output)")
        // The form's JSON is not shown: the agent's words are.
        #expect(!output.contains("\"form_data\""))
        let tasks = Self.tasks(in: output)
        #expect(tasks.count == 2 && Set(tasks).count == 1, "\(output)")
        let reply = try #require(try workspace.store.lastMessage(session: "echo", role: .assistant))
        #expect(reply.backendID == tasks.first)
        #expect(try await agent.taskState("echo", id: tasks[0]) == "TASK_STATE_COMPLETED")
        let sent = try #require(try await Self.lastUserMessage(agent, task: tasks[0]))
        #expect(sent["parts"] == [["data": ["name": "Ann", "count": 3, "request_id": "request_id_4711"]]])
        #expect(sent["taskId"]?.string == tasks[0])
        #expect(sent["contextId"]?.string == (try workspace.currentThread()?.backendID))
    }

    @Test func anApprovalTakesOneKey() async throws {
        let agent = try await TestA2AAgent.shared()
        let answerer = Answerer(key: "d")
        let output = await Transcript(try Self.workspace(agent, answerer: answerer)).type("approve")
        #expect(answerer.shown == ["echo asks: Deploy v2.4.1 to production? [a]pprove / [d]eny "])
        #expect(output.contains("» you chose Deny"), "\(output)")
        #expect(output.contains(#"got the data part {"decision": "deny"}"#), "\(output)")
    }

    @Test func withNobodyToAskTheTaskWaitsAndWordsAnswerIt() async throws {
        let agent = try await TestA2AAgent.shared()
        let workspace = try Self.workspace(agent)
        let transcript = Transcript(workspace)
        let output = await transcript.type("form")
        #expect(output.contains("» echo asked \"Who is coming, and how many tickets?\" and nobody is here to answer: declined; "
                                + "the task stays input-required (your next message answers it); give the answers with "
                                + "--answer name=… --answer count=… or --answers FILE.json\n"), "\(output)")
        #expect(output.hasSuffix("· input-required: your next message answers the agent\n"))
        let task = try #require(Self.tasks(in: output).first)
        #expect(try await agent.taskState("echo", id: task) == "TASK_STATE_INPUT_REQUIRED")
        let words = await transcript.type("Ann, three")
        #expect(words.contains("task \(task) got words: Ann, three"), "\(words)")
    }

    @Test func scriptedAnswersFillTheFormOfA0_3Agent() async throws {
        let agent = try await TestA2AAgent.shared()
        let workspace = try Self.workspace(agent, "legacy")
        var answers = ScriptedAnswers()
        try answers.add(pairs: ["name=Ann", "count=three"])
        workspace.tools.questions.use(answers)
        let output = await Transcript(workspace).type("form")
        #expect(output.contains(#"got the data part {"count": 3, "name": "Ann", "request_id": "request_id_4711"}"#), "\(output)")
        #expect(!output.contains("declined"))
    }
}
