/// Fuzz target: N8NReplyDecoder (Backends/Webhook/N8NReplyDecoder.swift), which reads what an
/// n8n webhook answers: newline-delimited JSON chunks when it streams, a whole body otherwise.
/// Properties:
/// - checkChunkingInvariance (Support/ReplyDecoderSupport.swift) for any body;
/// - the chunk template is invisible (checkTemplateIsInvisible, the same file);
/// - for any texts (the input cut in up to eight pieces), a stream of `item` chunks carrying
///   them decodes to exactly their concatenation.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzN8NReplyDecoder(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    checkChunkingInvariance({ N8NReplyDecoder() }, input)
    checkTemplateIsInvisible({ N8NReplyDecoder() }, contentType: "application/json", input)
    checkItems(input)
    return 0
}

extension N8NReplyDecoder: TemplatedDecoder {}

func checkItems(_ input: FuzzInput) {
    let texts = input.fewPieces.map { String(decoding: input.piece($0), as: UTF8.self) }
    guard !texts.isEmpty else { return }
    var stream = #"{"type":"begin","metadata":{"nodeId":"agent","nodeName":"AI Agent","itemIndex":0,"runIndex":0}}"# + "\n"
    for text in texts {
        stream += #"{"type":"item","content":"# + jsonString(text) + #","metadata":{"nodeId":"agent","runIndex":0}}"# + "\n"
    }
    stream += #"{"type":"end","metadata":{"nodeId":"agent","runIndex":0}}"# + "\n"
    let events = decodeWellFormed(N8NReplyDecoder(), contentType: "application/json; charset=utf-8", stream)
    let text = texts.joined()
    let expected: [ReplyEvent] = (text.isEmpty ? [] : [.text(text)]) + [.finished(reason: nil)]
    require(events == expected, "items \(texts) decoded as \(events)")
}
