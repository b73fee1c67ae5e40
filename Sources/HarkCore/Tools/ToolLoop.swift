import FoundationEssentials
import Glibc

/// One reply of a model that may call tools, whatever its API: asks the model, and while it
/// answers with tool calls, has each one approved and run and asks again with the results,
/// until it answers with text (or `limit` rounds have passed).
///
/// An API folder gives it one thing: how to stream a request of the conversation so far
/// (`stream(tools, rounds)`: the tools to offer, and this reply's rounds as assistant turns
/// carrying their calls and results). Its decoder reports each call the model made as a
/// `.toolCall` before `.finished`. Everything else (approval, MCP, what is shown and kept) is
/// here, in the same typed events for every API: `.toolCall` when a call is about to be asked
/// about, `.toolResult` once it ran or was refused.
///
/// Pulled, like HTTPReply: nothing is asked or run before the consumer has taken the event
/// before it, so the call shows before its question.
public final class ToolLoop: @unchecked Sendable {
    public typealias Stream = @Sendable (_ tools: ToolSet, _ rounds: [Turn]) -> AsyncThrowingStream<ReplyEvent, Error>

    private let host: ToolHost
    private let servers: [String]
    private let sessionAllows: [String]
    private let limit: Int
    private let stream: Stream

    private var tools: ToolSet?
    private var iterator: AsyncThrowingStream<ReplyEvent, Error>.AsyncIterator?
    private var rounds: [Turn] = []
    private var pending: [ReplyEvent] = []
    /// This round: the text the model wrote, the calls it made, those not yet shown, the one
    /// shown and awaiting its answer, and the results so far.
    private var text = ""
    private var calls: [ToolCall] = []
    private var toShow: [ToolCall] = []
    private var shown: ToolCall?
    private var results: [ToolResult] = []
    private var done = false

    /// The largest result a model is given; the rest is cut with a note saying so.
    static let resultLimit = 100_000

    public init(host: ToolHost, servers: [String], sessionAllows: [String], limit: Int, stream: @escaping Stream) {
        self.host = host
        self.servers = servers
        self.sessionAllows = sessionAllows
        self.limit = limit
        self.stream = stream
    }

    public func events() -> AsyncThrowingStream<ReplyEvent, Error> {
        AsyncThrowingStream { [self] in try await next() }
    }

    private func next() async throws -> ReplyEvent? {
        while true {
            if !pending.isEmpty { return pending.removeFirst() }
            if done { return nil }
            if let call = shown {
                shown = nil
                return .toolResult(try await run(call))
            }
            if !toShow.isEmpty {
                shown = toShow.removeFirst()
                return .toolCall(shown!)
            }
            if iterator == nil, !calls.isEmpty {
                // The round's stream has ended and every call of it has its result (while the
                // stream runs, `calls` gathers them): ask the model again with the results.
                rounds.append(Turn(role: .assistant, text: text, tools: results))
                text = ""
                calls = []
                results = []
            }
            let tools = try await offered()
            if iterator == nil { iterator = stream(tools, rounds).makeAsyncIterator() }
            guard let event = try await iterator!.next() else {
                iterator = nil
                if calls.isEmpty {
                    done = true
                    return nil
                }
                startRound(tools)
                continue
            }
            switch event {
            case .toolCall(let call):
                calls.append(call)
            case .finished where !calls.isEmpty:
                // `tool_calls`: not the reply's end; the stream ends next.
                break
            case .text(let piece):
                text += piece
                return event
            default:
                return event
            }
        }
    }

    /// The tools of the session's servers, started on first use; a server that failed says so.
    private func offered() async throws -> ToolSet {
        if let tools { return tools }
        let (set, notices) = await host.offer(servers)
        try Task.checkCancellation()
        tools = set
        pending += notices.map(ReplyEvent.notice)
        return set
    }

    /// The model's calls are known: each is shown, then asked about and run, in order.
    private func startRound(_ tools: ToolSet) {
        let round = rounds.count + 1
        guard round <= limit else {
            done = true
            pending.append(.notice("stopped after \(limit) rounds of tool calls (tool_rounds); "
                + "the model's last \(calls.count == 1 ? "call was" : "calls were") not run"))
            pending.append(.finished(reason: "tool_rounds"))
            return
        }
        toShow = calls.map { call in
            var resolved = call
            if let offered = tools.resolve(call.name) {
                resolved.server = offered.server
                resolved.tool = offered.tool.name
            }
            return resolved
        }
        calls = toShow
    }

    /// A shown call: approved (or not), run, and its result as the model is told.
    private func run(_ call: ToolCall) async throws -> ToolResult {
        let round = rounds.count + 1
        let asked = Locked<(questions: [AskedQuestion], notices: [String])>(([], []))
        func result(_ outcome: ToolResult.Outcome, _ text: String) -> ToolResult {
            let (questions, notices) = asked.read { $0 }
            pending += notices.map(ReplyEvent.notice)
            let made = ToolResult(call: call, outcome: outcome, text: Self.clipped(text), round: round, questions: questions)
            results.append(made)
            return made
        }
        guard let serverName = call.server, let tool = call.tool, let server = host.server(named: serverName) else {
            let names = (tools?.tools ?? []).map(\.function).joined(separator: ", ")
            return result(.error, "there is no tool \(call.name); the tools are: \(names.isEmpty ? "none" : names)")
        }
        let arguments: JSON
        if call.arguments.trimmingSpaces.isEmpty {
            arguments = .object([:])
        } else if let parsed = try? JSON.parse(call.arguments), parsed.object != nil {
            arguments = parsed
        } else {
            return result(.error, "the arguments are not a JSON object: \(MessageLine.clip(call.arguments, 200))")
        }
        switch await host.decide(call, sessionAllows: sessionAllows) {
        case .refuse(let notice):
            try Task.checkCancellation()
            if let notice { pending.append(.notice(notice)) }
            return result(.refused, "The user did not allow this call, so it was not run. Answer without it.")
        case .run:
            break
        }
        try Task.checkCancellation()
        do {
            let (text, isError) = try await server.call(tool, arguments: arguments, asker: asker(for: call, keeping: asked))
            return result(isError ? .error : .ok, text)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            return result(.error, error.userMessage)
        }
    }

    /// Answers what the call's server asks while it runs, keeping each question (answers
    /// masked) for the history and the lines for the user.
    private func asker(for call: ToolCall, keeping asked: Locked<(questions: [AskedQuestion], notices: [String])>) -> MCPServer.Asker {
        let host = self.host
        return { question in
            switch question {
            case .failure(let unsupported):
                asked.update {
                    $0.notices.append("\(call.displayName) asked something hark cannot ask (\(unsupported.message)): declined")
                    $0.questions.append(AskedQuestion(message: unsupported.message, mode: "form", action: "decline", answers: nil))
                }
                return .decline
            case .success(let question):
                let (outcome, lines) = await host.answer(question)
                var answers: JSON?
                if case .accept(let values) = outcome, !question.fields.isEmpty { answers = question.masked(values) }
                let mode = question.fields.isEmpty ? "url" : "form"
                asked.update {
                    $0.notices += lines
                    $0.questions.append(AskedQuestion(message: MessageLine.make(question.message, limit: 300), mode: mode,
                                                      action: outcome.action, answers: answers))
                }
                return outcome
            }
        }
    }

    static func clipped(_ text: String) -> String {
        guard text.unicodeScalars.count > resultLimit else { return text }
        let kept = String(String.UnicodeScalarView(text.unicodeScalars.prefix(resultLimit)))
        return kept + "\n[… \(text.unicodeScalars.count - resultLimit) more characters not shown]"
    }
}
