/// Turns a Nyla chat stream (SSE over POST) into reply events. Text chunks are the reply;
/// `status`, `tool_activity` and `agent_progress` become dim status lines (never stored, never
/// spoken), and so does a thread's new name; summaries, created files and data-source access
/// become compact notices; `complete` and `stopped` end the reply and `error` fails it. A stream that ends
/// without one of those was cut off. Fed bytes cut anywhere; no I/O.
public struct NylaEventDecoder: ReplyDecoder {
    private var parser = SSEParser()
    private var workflowID: String?
    private var title: String?
    private var sawText = false
    private(set) var ended = false

    /// `workflowID` and `title` are what the local thread already knows, so only news is shown.
    public init(workflowID: String?, title: String?) {
        self.workflowID = workflowID
        self.title = title
    }

    public mutating func start(head: HTTPResponseHead) throws {}

    public mutating func feed(_ bytes: [UInt8], into replies: inout [ReplyEvent]) throws {
        let events: [SSEEvent]
        do { events = try parser.feed(bytes) } catch {
            throw HarkError.protocolViolation("the gateway sent an event larger than \(SSEParser.defaultMaxEventBytes >> 20) MB")
        }
        for event in events where !ended {
            try translate(event, into: &replies)
        }
    }

    public mutating func finish(into replies: inout [ReplyEvent]) throws {
        parser.finish()
        guard ended else {
            throw HarkError.protocolViolation("the gateway closed the stream before the reply was complete")
        }
    }

    private mutating func translate(_ sse: SSEEvent, into replies: inout [ReplyEvent]) throws {
        let data: JSON
        if let parsed = try? JSON.parse(sse.data) {
            data = parsed
        } else if sse.type == "chunk" || (sse.type == "message" && !sse.data.isEmpty) {
            // A bare text payload: the text is the chunk.
            data = ["type": "chunk", "content": .string(sse.text)]
        } else {
            return
        }
        let (event, eventWorkflow) = NylaWire.event(sseType: sse.type, data: data)
        if let eventWorkflow { replies += learn(workflow: eventWorkflow) }
        switch event {
        case .chunk(let text):
            guard !text.isEmpty else { break }
            sawText = true
            replies.append(.text(text))
        case .message(let role, let text, let id):
            // The user's message echoed, or the whole reply once more after its chunks.
            guard role != "user", !text.isEmpty else { break }
            if let id { replies.append(.backendMessageID(id)) }
            if !sawText {
                sawText = true
                replies.append(.text(text))
            }
        case .status(let text):
            if !text.isEmpty { replies.append(.status(Self.oneLine(text))) }
        case .toolActivity(let tool, let state, let message):
            var line = "tool " + tool
            if let state { line += " " + state }
            if let message { line += ": " + message }
            replies.append(.status(Self.oneLine(line)))
        case .agentProgress(let agent, let message, let step, let total):
            var line = agent ?? "agent"
            if let step { line += " " + String(step) + (total.map { "/" + String($0) } ?? "") }
            if let message { line += ": " + message }
            replies.append(.status(Self.oneLine(line)))
        case .agentSummary(let agent, let summary):
            guard !summary.isEmpty else { break }
            replies.append(.notice(Self.oneLine((agent.map { $0 + ": " } ?? "summary: ") + summary)))
        case .fileCreated(let file):
            replies.append(.notice(Self.oneLine("file created: \(file.name) (\(file.id))")))
        case .dataSourceAccess(let name, let access):
            replies.append(.notice(Self.oneLine("data source: \(name)" + (access.map { " (\($0))" } ?? ""))))
        case .workflowUpdated(let id, let name):
            if let id { replies += learn(workflow: id) }
            if let name, name != title {
                title = name
                // A status, not a notice: the last notice sums up a reply that ends in the
                // background, and a thread's name says nothing about the reply.
                replies.append(.status(Self.oneLine("thread: " + name)))
            }
        case .complete(let messageID):
            ended = true
            if let messageID { replies.append(.backendMessageID(messageID)) }
            replies.append(.finished(reason: "complete"))
        case .stopped:
            ended = true
            replies.append(.notice("the gateway stopped the reply"))
            replies.append(.finished(reason: "stopped"))
        case .error(let message):
            ended = true
            throw HarkError.backend("the gateway reported an error: " + Self.oneLine(message))
        case .other:
            break
        }
    }

    /// The thread's server id, reported once when it is new (a first message creates it).
    private mutating func learn(workflow id: String) -> [ReplyEvent] {
        guard id != workflowID else { return [] }
        workflowID = id
        return [.backendThreadID(id)]
    }

    /// One line, without control characters, at most 160 characters, secrets masked first.
    static func oneLine(_ text: String) -> String {
        let flat = String(SecretValues.redact(text).unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : Character($0) })
            .split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        return flat.count > 160 ? String(flat.prefix(159)) + "…" : flat
    }
}
