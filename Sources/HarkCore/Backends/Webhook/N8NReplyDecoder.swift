/// Decodes what an n8n webhook answers, deciding by the first bytes rather than the content
/// type (a streamed body still says application/json):
/// - streaming: newline-delimited JSON chunks `{"type":"begin|item|end|error","content":…}`,
///   cut anywhere by the network; a line that is not JSON is an item with that text; a JSON
///   line of any other type (n8n's `{"type":"keepalive"}` every 30 s) is skipped, as n8n's chat
///   widget skips it; an `error` chunk (a failing node, also one set to continue) is a notice
///   and the stream goes on;
/// - anything else is read whole: JSON with `output`, `text` or `message` (first match wins),
///   an array of such items, other JSON shown as JSON, text as text. `{"executionStarted":
///   true,"executionId":…}` (the trigger's "Using Response Nodes" mode) is handed over to the
///   chat WebSocket when the caller gave a hand-over (see N8NChat).
public struct N8NReplyDecoder: ReplyDecoder {
    enum Mode { case undecided, streaming, whole }

    private var mode = Mode.undecided
    private var pending: [UInt8] = []
    private var splitter = LineSplitter()
    private var contentType: String?
    private var itemCount = 0
    /// Error chunks read before any answer: shown once an answer follows, or, when none does,
    /// the last one fails the reply (shown once, as the failure, not also as a notice).
    private var heldErrors: [String] = []
    private var lastTextRun: String?
    private let maxWholeBytes: Int
    /// Text read in this feed and not yet handed out: one `.text` event per network read.
    private var text: [UInt8] = []
    /// The last item line whose content was appended with no separator before it: most lines
    /// are read by comparing them with it (ChunkTemplate). Cleared when the run it belongs to
    /// stops being the last one that wrote text.
    private var template = ChunkTemplate()
    /// Off in tests that check the template against the full walk.
    var usesTemplate = true
    /// How many lines the template read, for those tests.
    private(set) var chunksReadByTemplate = 0

    /// Where an execution that answers over the chat WebSocket is handed over; nil shows it as
    /// a notice (a workflow that sends no reply).
    private let handOver: N8NExecutionHandOver?

    public init(maxWholeBytes: Int = 64 << 20, handOver: N8NExecutionHandOver? = nil) {
        self.maxWholeBytes = maxWholeBytes
        self.handOver = handOver
    }

    public mutating func start(head: HTTPResponseHead) throws {
        contentType = head.header("content-type")
    }

    public mutating func feed(_ bytes: [UInt8], into events: inout [ReplyEvent]) throws {
        try feed(bytes, into: &events, more: false)
    }

    public mutating func feed(_ bytes: [UInt8], into events: inout [ReplyEvent], more: Bool) throws {
        var failed = true
        // Text waits for the bytes that follow unless this feed failed.
        defer { if failed || !more { flushText(into: &events) } }
        do { try decode(bytes, into: &events) } catch LineSplitter.Failure.lineTooLarge(let limit) {
            throw HarkError.protocolViolation("a line of the webhook's stream is larger than \(limit >> 20) MB")
        }
        failed = false
    }

    private mutating func decode(_ bytes: [UInt8], into events: inout [ReplyEvent]) throws {
        switch mode {
        case .streaming:
            // The splitter calls back into this decoder, so it is taken out of `self` for the call.
            var splitter = LineSplitter()
            swap(&splitter, &self.splitter)
            defer { swap(&splitter, &self.splitter) }
            try bytes.withUnsafeBufferPointer { buffer in
                try splitter.feed(buffer) { line in try self.line(line, into: &events) }
            }
        case .whole:
            pending += bytes
            if pending.count > maxWholeBytes {
                throw HarkError.protocolViolation("the webhook's reply is larger than \(maxWholeBytes >> 20) MB")
            }
        case .undecided:
            pending += bytes
            guard let first = pending.firstIndex(where: { !Self.isSpace($0) }) else { return }
            guard pending[first] == UInt8(ascii: "{") else {
                mode = .whole
                return
            }
            guard let newline = pending[first...].firstIndex(of: 0x0A) else {
                if pending.count > maxWholeBytes { mode = .whole }
                return
            }
            if Self.startsStream(Array(pending[first..<newline])) {
                mode = .streaming
                let buffered = pending
                pending = []
                try lines(try splitter.feed(buffered), into: &events)
                return
            }
            mode = .whole
        }
    }

    public mutating func finish(into events: inout [ReplyEvent]) throws {
        if mode == .streaming {
            if let last = splitter.finish() { try lines([last], into: &events) }
            try finishStream(into: &events)
            return
        }
        // A single streamed chunk without a trailing newline is still a stream.
        let trimmed = Array(pending.drop(while: Self.isSpace).reversed().drop(while: Self.isSpace).reversed())
        if Self.startsStream(trimmed) {
            mode = .streaming
            try lines([trimmed], into: &events)
            try finishStream(into: &events)
            return
        }
        events += try Self.whole(trimmed, contentType: contentType, handOver: handOver) + [.finished(reason: nil)]
    }

    private mutating func finishStream(into events: inout [ReplyEvent]) throws {
        flushText(into: &events)
        if itemCount == 0 {
            // Only errors: the workflow failed without an answer; the last error is the failure.
            if let last = heldErrors.popLast() {
                events += heldErrors.map { .notice($0) }
                heldErrors = []
                throw HarkError.backend("n8n: " + last)
            }
            events.append(.notice("no response"))
        }
        events.append(.finished(reason: nil))
    }

    /// Whether a body whose first line is this is a stream: a chunk of a type hark knows, or
    /// the keepalive n8n writes while an agent thinks (it may come first).
    static func startsStream(_ line: [UInt8]) -> Bool {
        guard let chunk = streamChunk(line) else { return false }
        return chunk.isKnown || chunk.type == "keepalive"
    }

    static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }

    /// One streamed chunk: its type, text, and the node run it belongs to.
    struct Chunk {
        var type: String
        /// The content string's text as UTF-8, nil when it is absent or not a string.
        var content: [UInt8]?
        var run: String
        var nodeName: String?
        /// Where the content's token lies in the line, when the line has one content member.
        var contentToken: Range<Int>?
        /// Where the values lie that were not read (`metadata.timestamp`, which changes with
        /// every line): the template lets them vary.
        var ignored: [Range<Int>] = []

        /// The chunk types n8n's chat widget acts on (`packages/frontend/@n8n/chat/src/api/
        /// message.ts`); it skips every other line that is JSON.
        var isKnown: Bool { type == "begin" || type == "item" || type == "end" || type == "error" }
    }

    /// The chunk on this line (a JSON object with a string `type`, of any type), or nil when
    /// the line is not one. Read with JSONScanner: a long reply is hundreds of thousands.
    static func streamChunk(_ line: [UInt8]) -> Chunk? {
        line.withUnsafeBufferPointer { streamChunk($0) }
    }

    static func streamChunk(_ line: UnsafeBufferPointer<UInt8>) -> Chunk? {
        guard line.first == UInt8(ascii: "{") else { return nil }
        var type: String?
        var content: [UInt8]?
        var contentToken: Range<Int>?
        var contentMembers = 0
        var node = ""
        var nodeName: String?
        var runIndex = "0"
        var ignored: [Range<Int>] = []
        do {
            try JSONScanner.scan(line, ignored: &ignored) { root in
                try root.forEachMember { key, value in
                    if key == "type" { type = try value.string() }
                    else if key == "content" {
                        var bytes: [UInt8] = []
                        contentToken = try value.appendString(to: &bytes)
                        content = contentToken == nil ? nil : bytes
                        contentMembers += 1
                    }
                    else if key == "metadata" {
                        try value.forEachMember { key, value in
                            if key == "nodeId" { node = try value.string() ?? "" }
                            else if key == "nodeName" { nodeName = try value.string() }
                            else if key == "runIndex" { runIndex = (try value.int()).map(String.init) ?? "0" }
                        }
                    }
                }
            }
        } catch {
            return nil
        }
        guard let type else { return nil }
        return Chunk(type: type, content: content, run: node + "#" + runIndex, nodeName: nodeName,
                     contentToken: contentMembers == 1 ? contentToken : nil, ignored: ignored)
    }

    private mutating func lines(_ lines: [[UInt8]], into events: inout [ReplyEvent]) throws {
        for line in lines {
            try line.withUnsafeBufferPointer { line in try self.line(line, into: &events) }
        }
    }

    private mutating func line(_ line: UnsafeBufferPointer<UInt8>, into events: inout [ReplyEvent]) throws {
        if usesTemplate, template.appendContent(of: line, to: &text) {
            // An item of the run that wrote last: counted, its text appended (none when empty).
            itemCount += 1
            chunksReadByTemplate += 1
            return
        }
        guard let chunk = Self.streamChunk(line) else {
            if line.first == UInt8(ascii: "{"), (try? JSONScanner.scan(line) { try $0.skip() }) != nil {
                return  // JSON of no type: n8n's widget skips it too
            }
            // Not JSON: n8n's own client shows such a line as text.
            releaseHeldErrors(into: &events)
            itemCount += 1
            text.append(contentsOf: String(decoding: line, as: UTF8.self).utf8)
            return
        }
        switch chunk.type {
        case "item":
            releaseHeldErrors(into: &events)
            itemCount += 1
            guard let content = chunk.content, !content.isEmpty else { return }
            // Several agents (or runs of one) in a reply: keep their texts apart.
            let runChanged = lastTextRun != chunk.run
            if lastTextRun != nil, runChanged { text.append(contentsOf: "\n\n".utf8) }
            lastTextRun = chunk.run
            text.append(contentsOf: content)
            if let token = chunk.contentToken {
                // Counted, and its text appended after its own run's: a line laid out like this
                // one with another string in its place does exactly the same.
                template.take(line, content: token, ignored: chunk.ignored)
            } else if runChanged {
                // The template's lines add no separator only while its run is the last to write.
                template.clear()
            }
        case "error":
            // n8n sends one for each failing node, then goes on (packages/core/src/execution-engine/
            // workflow-execute.ts): a notice of its own, on one line, before the text that follows.
            let node = chunk.nodeName.map { Self.oneLine($0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "a node"
            let detail = chunk.content.map { Self.oneLine(String(decoding: $0, as: UTF8.self)) } ?? ""
            let note = detail.isEmpty ? "\(node) failed" : "\(node) failed: \(detail)"
            if itemCount == 0 {
                heldErrors.append(note)
            } else {
                flushText(into: &events)
                events.append(.notice(note))
            }
        default:
            break  // begin, end, keepalive and any type to come
        }
    }

    /// Errors held back while no answer had come: an answer came, so they are notices before it.
    private mutating func releaseHeldErrors(into events: inout [ReplyEvent]) {
        guard !heldErrors.isEmpty else { return }
        events += heldErrors.map { .notice($0) }
        heldErrors = []
    }

    /// A text on one line: line breaks and runs of spaces become one space.
    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: { $0.isNewline || $0 == " " || $0 == "\t" }).joined(separator: " ")
    }

    /// Hands out the text gathered so far as one event (its pieces are each valid UTF-8).
    private mutating func flushText(into events: inout [ReplyEvent]) {
        guard !text.isEmpty else { return }
        // Every piece of `text` was made valid UTF-8 as it was read (contents, separators, lines
        // that are not JSON), so it is not checked again.
        events.append(.text(text.withUnsafeBufferPointer { String(alreadyValidUTF8: $0) }))
        text.removeAll(keepingCapacity: true)
    }

    /// A reply read whole. A body that is not text (an image, a zip) is not a reply: it fails
    /// (exit 6), and what arrived is kept with the failed reply rather than shown.
    static func whole(_ body: [UInt8], contentType: String?, handOver: N8NExecutionHandOver? = nil) throws -> [ReplyEvent] {
        guard !body.isEmpty else { return [.notice("no response")] }
        if let json = try? JSON.parse(body) {
            if json["executionStarted"] != nil && answer(in: json) == nil {
                // `{executionStarted, executionId, resumeToken?}`: packages/cli/src/webhooks/
                // webhook-helpers.ts, handleHostedChatResponse.
                if let handOver, let id = json["executionId"]?.string ?? json["executionId"]?.int.map(String.init), !id.isEmpty {
                    handOver.started(N8NExecution(id: id, token: json["resumeToken"]?.string))
                    return []
                }
                return [.notice("the workflow started and sends no reply")]
            }
            if let text = answer(in: json) { return [.text(text)] }
            if let items = json.array {
                let texts = items.compactMap { answer(in: $0["json"] ?? $0) }
                if !texts.isEmpty { return [.text(texts.joined(separator: "\n\n"))] }
            }
            if let text = json.string { return [.text(text)] }
            return [.text("```json\n" + json.encoded(pretty: true) + "\n```")]
        }
        let type = (contentType ?? "").lowercased()
        let looksText = type.isEmpty || type.hasPrefix("text/") || type.contains("json") || type.contains("xml")
        if looksText, String(validatingUTF8Bytes: body) != nil {
            return [.text(String(decoding: body, as: UTF8.self))]
        }
        throw UnshowableReply(received: String(decoding: body, as: UTF8.self), error: .protocolViolation(
            "the webhook answered with \(body.count) bytes of binary data" + (type.isEmpty ? "" : " (\(type))")
                + ", not a reply; the history keeps what arrived"))
    }

    /// n8n's chat client reads `output`, then `text`, then `message`.
    static func answer(in json: JSON) -> String? {
        for key in ["output", "text", "message"] {
            if let value = json[key]?.string { return value }
        }
        return nil
    }
}

/// An execution an n8n Chat Trigger started in "Using Response Nodes" mode: the webhook
/// answered `{"executionStarted":true,"executionId":…,"resumeToken"?}` and the replies come
/// over the chat WebSocket.
public struct N8NExecution: Sendable, Equatable {
    public var id: String
    /// Newer n8n versions sign the socket's URL (`token`, packages/cli/src/chat/chat-token.service.ts).
    public var token: String?
}

/// Where N8NReplyDecoder hands such an execution to the backend, which opens the socket.
public final class N8NExecutionHandOver: @unchecked Sendable {
    private let lock = Lock()
    private var value: N8NExecution?

    public init() {}

    func started(_ execution: N8NExecution) { lock.withLock { value = execution } }
    var execution: N8NExecution? { lock.withLock { value } }
}

extension String {
    /// Strict UTF-8 decoding: nil when the bytes are not valid UTF-8.
    init?(validatingUTF8Bytes bytes: [UInt8]) {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var scalars = String.UnicodeScalarView()
        loop: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): scalars.append(scalar)
            case .emptyInput: break loop
            case .error: return nil
            }
        }
        self = String(scalars)
    }
}
