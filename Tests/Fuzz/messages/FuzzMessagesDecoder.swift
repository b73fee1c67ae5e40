/// Fuzz target: the Messages decoder (Backends/OpenAI/Messages/MessagesEventReader.swift in
/// JSONEventStream.swift), which reads Anthropic's Messages stream, or a whole Message.
/// Properties:
/// - checkChunkingInvariance (Support/ReplyDecoderSupport.swift) for any body;
/// - for any texts (the input cut in up to eight pieces), a stream of `text_delta`s carrying
///   them, with thinking before and a tool_use after whose input arrives in the same pieces,
///   decodes to exactly the texts' concatenation, the pieces' JSON joined, usage and the end.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMessagesDecoder(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    checkChunkingInvariance({ JSONEventStreamDecoder(MessagesEventReader()) }, input)
    checkDeltas(input)
    return 0
}

func event(_ name: String, _ data: String) -> String { "event: \(name)\ndata: \(data)\n\n" }

func checkDeltas(_ input: FuzzInput) {
    let texts = input.fewPieces.map { String(decoding: input.piece($0), as: UTF8.self) }
    var stream = event("message_start", #"{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"m","usage":{"input_tokens":3,"output_tokens":1}}}"#)
        + event("content_block_start", #"{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}"#)
        + event("content_block_delta", #"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hmm"}}"#)
        + event("content_block_stop", #"{"type":"content_block_stop","index":0}"#)
        + event("content_block_start", #"{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}"#)
    for text in texts {
        stream += event("content_block_delta", #"{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"# + jsonString(text) + "}}")
        stream += event("ping", #"{"type":"ping"}"#)
    }
    stream += event("content_block_stop", #"{"type":"content_block_stop","index":1}"#)
        + event("content_block_start", #"{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"t","name":"f","input":{}}}"#)
    for text in texts {
        stream += event("content_block_delta", #"{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"# + jsonString(text) + "}}")
    }
    stream += event("content_block_stop", #"{"type":"content_block_stop","index":2}"#)
        + event("message_delta", #"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":4}}"#)
        + event("message_stop", #"{"type":"message_stop"}"#)
    let events = decodeWellFormed(JSONEventStreamDecoder(MessagesEventReader()), contentType: "text/event-stream", stream)
    let text = texts.joined()
    let expected: [ReplyEvent] = [.backendMessageID("msg_1"), .model("m"), .reasoning("hmm")] + (text.isEmpty ? [] : [.text(text)])
        + [.toolCall(ToolCall(id: "t", name: "f", arguments: text.isEmpty ? "{}" : text)),
           .usage(Usage(promptTokens: 3, completionTokens: 4, totalTokens: 7)), .finished(reason: "stop")]
    require(events == expected, "deltas \(texts) decoded as \(events)")
}
