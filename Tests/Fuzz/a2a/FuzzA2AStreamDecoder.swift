/// Fuzz target: A2AStreamDecoder (Backends/A2A/A2AStreamDecoder.swift) with A2AReplyProgress
/// and A2AWire, which read an A2A agent's SSE stream of JSON-RPC responses (protocol 1.0 and
/// 0.3, as the official SDK writes them) or a whole JSON-RPC response. Properties:
/// - checkChunkingInvariance (Support/ReplyDecoderSupport.swift): the same events and error
///   however the body is cut, and a reply that does not fail ends with `.finished`;
/// - for any texts (the input cut in up to eight pieces), artifact chunks carrying them
///   decode to exactly their concatenation, in either version's shape;
/// - a task snapshot repeating those chunks (a resubscription's first event) adds nothing.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzA2AStreamDecoder(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    checkChunkingInvariance({ A2AStreamDecoder(progress: A2AReplyProgress()) }, input)
    checkChunks(input, legacy: false)
    checkChunks(input, legacy: true)
    return 0
}

func checkChunks(_ input: FuzzInput, legacy: Bool) {
    let texts = input.fewPieces.map { String(decoding: input.piece($0), as: UTF8.self) }
    func response(_ result: String) -> String { "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":" + result + "}\r\n\r\n" }
    func parts(_ text: String) -> String { legacy ? "[{\"kind\":\"text\",\"text\":\(jsonString(text))}]" : "[{\"text\":\(jsonString(text))}]" }
    var stream = ""
    for (index, text) in texts.enumerated() {
        let artifact = "{\"artifactId\":\"a\",\"parts\":\(parts(text))}"
        stream += response(legacy
            ? "{\"kind\":\"artifact-update\",\"taskId\":\"t\",\"contextId\":\"c\",\"append\":\(index > 0),\"artifact\":\(artifact)}"
            : "{\"artifactUpdate\":{\"taskId\":\"t\",\"contextId\":\"c\",\"append\":\(index > 0),\"artifact\":\(artifact)}}")
    }
    let whole = texts.map { legacy ? "{\"kind\":\"text\",\"text\":\(jsonString($0))}" : "{\"text\":\(jsonString($0))}" }
        .joined(separator: ",")
    let state = legacy ? "\"working\"" : "\"TASK_STATE_WORKING\""
    let task = "{\"id\":\"t\",\"contextId\":\"c\",\"status\":{\"state\":\(state)},\"artifacts\":[{\"artifactId\":\"a\",\"parts\":[\(whole)]}]}"
    stream += response(legacy ? task.replacingOccurrences(of: "{\"id\":\"t\"", with: "{\"kind\":\"task\",\"id\":\"t\"") : "{\"task\":\(task)}")
    stream += response(legacy ? "{\"kind\":\"status-update\",\"taskId\":\"t\",\"status\":{\"state\":\"completed\"}}"
                              : "{\"statusUpdate\":{\"taskId\":\"t\",\"status\":{\"state\":\"TASK_STATE_COMPLETED\"}}}")
    let events = decodeWellFormed(A2AStreamDecoder(progress: A2AReplyProgress()), contentType: "text/event-stream", stream)
    let text = events.compactMap { if case .text(let piece) = $0 { piece } else { nil } }.joined()
    require(text == texts.joined(), "chunks \(texts) decoded as \(events)")
    require(events.last == .finished(reason: "completed"), "the stream of \(texts) ended with \(String(describing: events.last))")
}
