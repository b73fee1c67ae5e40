/// Decodes an OpenAI-compatible `/chat/completions` reply: the SSE stream of chunks
/// (`choices[0].delta.content`, `reasoning_content` from llama.cpp and vLLM or `reasoning`
/// from Ollama, `usage` in any chunk, `choices` possibly empty, `data: [DONE]` at the end),
/// or a whole JSON completion from a server that ignored `stream: true`.
public struct ChatCompletionDecoder: ReplyDecoder {
    private var parser = SSEParser()
    private var isEventStream = true
    private var whole: [UInt8] = []
    private var sawDone = false
    private var finishReason: String?
    private var reportedModel = false
    /// The tool calls streamed so far, handed out as `.toolCall`s at the end.
    private var toolCalls = ToolCallAssembler()
    /// Content read in this feed and not yet handed out.
    private var text: [UInt8] = []
    /// The layout of the last chunk whose walk did nothing but append its content: most chunks
    /// are read by comparing them with it (ChunkTemplate).
    private var template = ChunkTemplate()
    /// Off in tests that check the template against the full walk.
    var usesTemplate = true
    /// How many chunks the template read, for those tests.
    private(set) var chunksReadByTemplate = 0

    public init() {}

    public mutating func start(head: HTTPResponseHead) throws {
        isEventStream = try ModelReplyBody.isEventStream(head)
    }

    public mutating func feed(_ bytes: [UInt8], into replies: inout [ReplyEvent]) throws {
        try feed(bytes, into: &replies, more: false)
    }

    public mutating func feed(_ bytes: [UInt8], into replies: inout [ReplyEvent], more: Bool) throws {
        guard isEventStream else { return try ModelReplyBody.append(bytes, to: &whole) }
        // The parser calls back into this decoder, so it is taken out of `self` for the call.
        var parser = SSEParser()
        swap(&parser, &self.parser)
        var failed = true
        defer {
            swap(&parser, &self.parser)
            // Text waits for the bytes that follow unless this feed failed.
            if failed || !more { flushText(into: &replies) }
        }
        do {
            try bytes.withUnsafeBufferPointer { buffer in
                var offset = 0
                while offset < buffer.count {
                    let rest = UnsafeBufferPointer(rebasing: buffer[offset...])
                    // Between events, a whole event laid out like the template is read here,
                    // without the parser's line search and dispatch (ChunkTemplate).
                    if usesTemplate, !sawDone, parser.isBetweenEvents,
                       let length = template.appendContent(ofEventAt: rest, maxDataBytes: SSEParser.defaultMaxEventBytes, to: &text) {
                        chunksReadByTemplate += 1
                        offset += length
                        continue
                    }
                    // Each call ends at an event's end at the latest, so an `error:` line is
                    // acted on right after its event, however the bytes were cut.
                    offset += try parser.feed(rest, stoppingAtBlankLine: true) { event in
                        if sawDone { return }
                        if event.dataEquals("[DONE]") {
                            sawDone = true
                            return
                        }
                        if usesTemplate, template.appendContent(of: event.data, to: &text) {
                            chunksReadByTemplate += 1
                            return
                        }
                        do { try scan(chunk: event.data, into: &replies) } catch is JSONError {
                            // Masked before it is cut (an echoed key would keep its start).
                            let start = MessageLine.quote(String(decoding: event.data.prefix(4096), as: UTF8.self), 60)
                            throw HarkError.protocolViolation("the server sent an event that is not JSON: \(start)")
                        }
                    }
                    if let error = parser.takeErrorField(), !sawDone {
                        flushText(into: &replies)
                        throw Self.serverError(error)
                    }
                }
            }
        } catch is SSEParser.Failure {
            throw HarkError.protocolViolation("an event in the stream is larger than \(SSEParser.defaultMaxEventBytes >> 20) MB")
        }
        failed = false
    }

    /// One streamed chunk read without building it (see JSONScanner). Its content is appended
    /// to `text`, which becomes one `.text` event per network read. A chunk that does nothing
    /// else becomes the template the next chunks are compared with.
    private mutating func scan(chunk: UnsafeBufferPointer<UInt8>, into replies: inout [ReplyEvent]) throws {
        var reasoning: String?
        var model: String?
        var usage: Usage?
        var failed = false
        var callsTools = false
        var setsFinishReason = false
        var contentStrings = 0
        var content: Range<Int>?
        let textBefore = text.count
        var ignored: [Range<Int>] = []
        try JSONScanner.scan(chunk, ignored: &ignored) { root in
            try root.forEachMember { key, value in
                if key == "choices" {
                    try value.firstElement { choice in
                        try choice.forEachMember { key, value in
                            if key == "delta" {
                                try value.forEachMember { key, value in
                                    if key == "content" {
                                        content = try value.appendString(to: &text)
                                        contentStrings += 1
                                    }
                                    else if key == "reasoning_content" || key == "reasoning" { reasoning = try value.string() }
                                    else if key == "tool_calls" {
                                        // Some servers send `null` here in every chunk.
                                        try value.firstElement { _ in callsTools = true }
                                    }
                                }
                            } else if key == "finish_reason" {
                                if let reason = try value.string() {
                                    finishReason = reason
                                    setsFinishReason = true
                                }
                            }
                        }
                    }
                } else if key == "usage" {
                    usage = try Self.usage(in: &value)
                } else if key == "model", !reportedModel {
                    model = try value.string()
                } else if key == "error" {
                    failed = true
                } else if key == "object" {
                    // vLLM up to 0.3 sent a mid-stream error as the bare ErrorResponse.
                    if try value.string() == "error" { failed = true }
                }
            }
        }
        if failed || callsTools {
            // Rare: decode the whole chunk, for the server's message or the pieces of a tool
            // call (read with the rest of the chunk, in order).
            text.removeSubrange(textBefore...)
            flushText(into: &replies)
            try decode(chunk: try JSON.parse(Array(chunk)), delta: "delta", into: &replies)
            return
        }
        let newModel = model.flatMap { !reportedModel && !$0.isEmpty ? $0 : nil }
        let someReasoning = reasoning.flatMap { $0.isEmpty ? nil : $0 }
        let someUsage = usage.flatMap { $0 == Usage() ? nil : $0 }
        guard newModel != nil || someReasoning != nil || someUsage != nil else {
            // Nothing but one content string was read and no state changed: a chunk laid out
            // like this one with another string in its place does exactly the same.
            if !setsFinishReason, contentStrings == 1, let content { template.take(chunk, content: content, ignored: ignored) }
            return
        }
        // Events other than text keep their place: earlier chunks' text before them, this
        // chunk's content after the model and reasoning.
        flushText(before: textBefore, into: &replies)
        if let newModel {
            reportedModel = true
            replies.append(.model(newModel))
        }
        if let someReasoning { replies.append(.reasoning(someReasoning)) }
        if let someUsage {
            flushText(into: &replies)
            replies.append(.usage(someUsage))
        }
    }

    /// The token counts of a chunk's `usage` (the last chunk's, when asked for).
    private static func usage(in value: inout JSONScanner) throws -> Usage {
        var counts = Usage()
        try value.forEachMember { key, value in
            if key == "prompt_tokens" { counts.promptTokens = try value.int() }
            else if key == "completion_tokens" { counts.completionTokens = try value.int() }
            else if key == "total_tokens" { counts.totalTokens = try value.int() }
        }
        return counts
    }

    /// Hands out the content gathered so far as one event: its pieces were each made valid
    /// UTF-8 as they were read, so joining them changes nothing.
    private mutating func flushText(into replies: inout [ReplyEvent]) {
        flushText(before: text.count, into: &replies)
    }

    private mutating func flushText(before end: Int, into replies: inout [ReplyEvent]) {
        guard end > 0 else { return }
        replies.append(.text(text.withUnsafeBufferPointer { String(alreadyValidUTF8: UnsafeBufferPointer(rebasing: $0[..<end])) }))
        // A reply sent in one huge piece gives its buffer back instead of keeping it; what one
        // batch of reads brings (HTTPReply takes up to a megabyte) keeps it: a buffer given
        // back and grown again each time was fresh pages to fault in and to unmap again.
        if end == text.count { if text.capacity > 8 << 20 { text = [] } else { text.removeAll(keepingCapacity: true) } }
        else { text.removeSubrange(..<end) }
    }

    static let done: [UInt8] = Array("[DONE]".utf8)

    private mutating func decode(chunk json: JSON, delta key: String, into replies: inout [ReplyEvent]) throws {
        if let error = json["error"] {
            let message = ServerMessage.fromJSON(["error": error]) ?? "the model reported an error"
            throw HarkError.backend(message)
        }
        if json["object"]?.string == "error" {
            throw HarkError.backend(ServerMessage.fromJSON(json) ?? "the model reported an error")
        }
        if !reportedModel, let model = json["model"]?.string, !model.isEmpty {
            reportedModel = true
            replies.append(.model(model))
        }
        if let choice = json["choices"]?[0] {
            let delta = choice[key]
            if let reasoning = delta?["reasoning_content"]?.string ?? delta?["reasoning"]?.string, !reasoning.isEmpty {
                replies.append(.reasoning(reasoning))
            }
            if let content = delta?["content"]?.string, !content.isEmpty {
                replies.append(.text(content))
            }
            for (position, piece) in (delta?["tool_calls"]?.array ?? []).enumerated() {
                toolCalls.add(piece, position: position)
            }
            if let reason = choice["finish_reason"]?.string { finishReason = reason }
        }
        if let usage = json["usage"], usage.object != nil {
            replies.append(.usage(Usage(promptTokens: usage["prompt_tokens"]?.int,
                                        completionTokens: usage["completion_tokens"]?.int,
                                        totalTokens: usage["total_tokens"]?.int)))
        }
    }

    /// Chat Completions streams a call's id and name once, then its arguments in pieces, all
    /// under the call's `index` (a whole completion lists the calls complete).


    public mutating func finish(into replies: inout [ReplyEvent]) throws {
        if !isEventStream {
            let json: JSON
            do { json = try JSON.parse(whole) } catch {
                throw HarkError.protocolViolation("the server's completion is not JSON")
            }
            try decode(chunk: json, delta: "message", into: &replies)
            finished(into: &replies)
            return
        }
        flushText(into: &replies)
        parser.finish()
        guard sawDone else {
            throw HarkError.protocolViolation("the stream ended without [DONE]; the reply may be cut short")
        }
        finished(into: &replies)
    }

    /// The end of a whole reply. One cut by the token limit says so, and stays in the history
    /// with that note: the text is not the model's whole answer.
    private func finished(into replies: inout [ReplyEvent]) {
        replies += toolCalls.finished().map(ReplyEvent.toolCall)
        if finishReason == "length" { replies.append(.notice(Self.cutOffNote)) }
        replies.append(.finished(reason: finishReason))
    }

    static let cutOffNote = "cut off at the token limit (finish_reason length); /continue asks for the rest"

    /// llama.cpp's `error:` line: `{"code":500,"message":"…","type":"server_error"}`, or any
    /// other error body, as one line.
    static func serverError(_ value: [UInt8]) -> HarkError {
        .backend(ServerMessage.extract(from: value, contentType: nil).map(ServerMessage.sanitize) ?? "the server reported an error")
    }
}
