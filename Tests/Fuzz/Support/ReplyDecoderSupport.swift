/// Shared by the reply decoder targets (n8n, openai); see scripts/fuzz.sh.

/// What a reply decoder made of a body fed in the given pieces: the events (coalesced, so a
/// text cut differently compares equal) and the error that ended it, if any.
struct DecodedReply: Equatable {
    var events: [ReplyEvent]
    var error: String?
}

func decode<Decoder: ReplyDecoder>(_ decoder: Decoder, head: HTTPResponseHead, _ input: FuzzInput,
                                   _ pieces: [Range<Int>]) -> DecodedReply {
    var decoder = decoder
    var events: [ReplyEvent] = []
    do {
        try decoder.start(head: head)
        for piece in pieces { try decoder.feed(Array(input.piece(piece)), into: &events) }
        try decoder.finish(into: &events)
    } catch {
        return DecodedReply(events: ReplyEvent.coalesced(events), error: "\(error)")
    }
    return DecodedReply(events: ReplyEvent.coalesced(events), error: nil)
}

/// A well-formed body decoded in one piece, its events coalesced; a throw fails the run.
func decodeWellFormed<Decoder: ReplyDecoder>(_ decoder: Decoder, contentType: String, _ body: String) -> [ReplyEvent] {
    var decoder = decoder
    var events: [ReplyEvent] = []
    do {
        try decoder.start(head: HTTPResponseHead(status: 200, headers: ["content-type": contentType]))
        try decoder.feed(Array(body.utf8), into: &events)
        try decoder.finish(into: &events)
    } catch {
        require(false, "a well-formed stream failed: \(error)")
    }
    return ReplyEvent.coalesced(events)
}

/// The body's content type, chosen by the input's first byte among what servers send.
func contentType(_ input: FuzzInput) -> String? {
    let types: [String?] = [nil, "application/json", "text/event-stream", "text/plain; charset=utf-8",
                            "application/x-ndjson", "text/html", "application/octet-stream"]
    return input.count == 0 ? nil : types[Int(input.buffer[0]) % types.count]
}

/// Some of a text written as a JSON string, for building protocol lines out of fuzzer bytes.
func jsonString(_ text: String) -> String {
    var bytes: [UInt8] = []
    JSONEncoding.writeString(text, into: &bytes)
    return String(decoding: bytes, as: UTF8.self)
}

/// The properties every reply decoder shares, for any body (the first input byte picks the
/// content type): fed whole, in two pieces or in pieces of a few bytes it gives the same
/// events and the same error; a reply that does not fail ends with .finished.
func checkChunkingInvariance<Decoder: ReplyDecoder>(_ makeDecoder: () -> Decoder, _ input: FuzzInput) {
    let body = input.rest
    let type = contentType(input)
    let head = HTTPResponseHead(status: 200, headers: type.map { ["content-type": $0] } ?? [:])
    let whole = decode(makeDecoder(), head: head, body, body.feedings[0])
    if whole.error == nil {
        require(whole.events.last.map { if case .finished = $0 { true } else { false } } == true,
                "a reply that did not finish: \(whole.events)")
    }
    for pieces in body.feedings.dropFirst() {
        let other = decode(makeDecoder(), head: head, body, pieces)
        require(other == whole, "pieces \(pieces) gave \(other), whole \(whole)")
    }
}

/// A decoder that reads chunks shaped like the last plain one by comparing bytes
/// (Streaming/ChunkTemplate.swift), which can be told to walk every chunk instead.
protocol TemplatedDecoder: ReplyDecoder {
    var usesTemplate: Bool { get set }
}

/// The template is invisible: however the body is fed, the events and the error are those
/// of a decoder that walks every chunk.
func checkTemplateIsInvisible<Decoder: TemplatedDecoder>(_ makeDecoder: () -> Decoder, contentType: String,
                                                         _ input: FuzzInput) {
    let body = input.rest
    let head = HTTPResponseHead(status: 200, headers: ["content-type": contentType])
    var walking = makeDecoder()
    walking.usesTemplate = false
    for pieces in body.feedings {
        let fast = decode(makeDecoder(), head: head, body, pieces)
        let full = decode(walking, head: head, body, pieces)
        require(fast == full, "with the template \(fast), walking every chunk \(full), pieces \(pieces)")
    }
}
