/// Fuzz target: ChatCompletionDecoder (Backends/OpenAI/ChatCompletionDecoder.swift), which reads
/// an OpenAI-compatible server's streamed (SSE) or whole chat completion. Properties:
/// - checkChunkingInvariance (Support/ReplyDecoderSupport.swift), for streamed and whole bodies;
/// - the chunk template (ChunkTemplate.swift) is invisible: however the body is fed, the
///   events and the error are those of a decoder that walks every chunk;
/// - for any texts (the input cut in up to eight pieces), a stream of chunks whose deltas carry
///   them decodes to exactly their concatenation.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzChatCompletionDecoder(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    checkChunkingInvariance({ ChatCompletionDecoder() }, input)
    checkTemplateIsInvisible({ ChatCompletionDecoder() }, contentType: "text/event-stream", input)
    checkDeltas(input)
    return 0
}

extension ChatCompletionDecoder: TemplatedDecoder {}

func checkDeltas(_ input: FuzzInput) {
    let texts = input.fewPieces.map { String(decoding: input.piece($0), as: UTF8.self) }
    var stream = ""
    for text in texts {
        stream += #"data: {"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"#
            + jsonString(text) + #"},"finish_reason":null}]}"# + "\n\n"
    }
    stream += #"data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}"#
        + "\n\ndata: [DONE]\n\n"
    let events = decodeWellFormed(ChatCompletionDecoder(), contentType: "text/event-stream", stream)
    let text = texts.joined()
    let expected: [ReplyEvent] = (texts.isEmpty ? [] : [.model("m")]) + (text.isEmpty ? [] : [.text(text)])
        + [.usage(Usage(promptTokens: 3, completionTokens: 1, totalTokens: 4)), .finished(reason: "stop")]
    require(events == expected, "deltas \(texts) decoded as \(events)")
}
