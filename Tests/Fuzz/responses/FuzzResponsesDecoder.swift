/// Fuzz target: the Responses decoder (Backends/OpenAI/Responses/ResponsesEventReader.swift in
/// JSONEventStream.swift), which reads an OpenAI Responses stream, or a whole Response.
/// Properties:
/// - checkChunkingInvariance (Support/ReplyDecoderSupport.swift) for any body;
/// - for any texts (the input cut in up to eight pieces), a stream of
///   `response.output_text.delta`s carrying them, with reasoning before and a function call
///   after whose arguments arrive in the same pieces, decodes to exactly the texts'
///   concatenation, the joined arguments, usage and the end.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzResponsesDecoder(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    checkChunkingInvariance({ JSONEventStreamDecoder(ResponsesEventReader()) }, input)
    checkDeltas(input)
    return 0
}

func event(_ data: String) -> String { "data: \(data)\n\n" }

func checkDeltas(_ input: FuzzInput) {
    let texts = input.fewPieces.map { String(decoding: input.piece($0), as: UTF8.self) }
    var stream = event(#"{"type":"response.created","response":{"id":"resp_1","status":"in_progress"}}"#)
        + event(#"{"type":"response.reasoning_text.delta","item_id":"rs","delta":"hmm"}"#)
    for text in texts {
        stream += event(#"{"type":"response.output_text.delta","item_id":"msg","delta":"# + jsonString(text) + "}")
    }
    stream += event(#"{"type":"response.output_item.added","item":{"type":"function_call","id":"fc","call_id":"c","name":"f","arguments":""}}"#)
    for text in texts {
        stream += event(#"{"type":"response.function_call_arguments.delta","item_id":"fc","delta":"# + jsonString(text) + "}")
    }
    stream += event(#"{"type":"response.output_item.done","item":{"type":"function_call","id":"fc","call_id":"c","name":"f"}}"#)
        + event(#"{"type":"response.completed","response":{"id":"resp_1","model":"m","status":"completed","usage":{"input_tokens":3,"output_tokens":4,"total_tokens":7}}}"#)
    let events = decodeWellFormed(JSONEventStreamDecoder(ResponsesEventReader()), contentType: "text/event-stream", stream)
    let text = texts.joined()
    let expected: [ReplyEvent] = [.backendMessageID("resp_1"), .reasoning("hmm")] + (text.isEmpty ? [] : [.text(text)])
        + [.toolCall(ToolCall(id: "c", name: "f", arguments: text.isEmpty ? "{}" : text)), .model("m"),
           .usage(Usage(promptTokens: 3, completionTokens: 4, totalTokens: 7)), .finished(reason: "tool_calls")]
    require(events == expected, "deltas \(texts) decoded as \(events)")
}
