import Testing
@testable import HarkCore

/// Feeds a reply decoder a body cut at the given offsets, as the network would, and returns
/// every event, the end's included.
func decodeReply<Decoder: ReplyDecoder>(_ decoder: Decoder, _ body: String, cuts: [Int] = [],
                                        contentType: String = "text/event-stream") throws -> [ReplyEvent] {
    var decoder = decoder
    let bytes = Array(body.utf8)
    try decoder.start(head: HTTPResponseHead(status: 200, headers: ["content-type": contentType]))
    var events: [ReplyEvent] = []
    var start = 0
    for cut in cuts.sorted() + [bytes.count] where cut >= start {
        events += try decoder.feed(Array(bytes[start..<cut]))
        start = cut
    }
    return events + (try decoder.finish())
}

func replyText(_ events: [ReplyEvent]) -> String {
    events.compactMap { if case .text(let text) = $0 { return text } else { return nil } }.joined()
}

/// The same events, text joined, whatever the cuts: at every single offset, and at a few
/// hundred random sets of offsets (reproducible from their seeds).
func expectSameEventsAnyChunking<Decoder: ReplyDecoder>(_ makeDecoder: () -> Decoder, _ body: String,
                                                         sourceLocation: SourceLocation = #_sourceLocation) throws {
    let whole = ReplyEvent.coalesced(try decodeReply(makeDecoder(), body))
    let count = body.utf8.count
    for cut in 0...count {
        #expect(ReplyEvent.coalesced(try decodeReply(makeDecoder(), body, cuts: [cut])) == whole, "cut at \(cut)",
                sourceLocation: sourceLocation)
    }
    for seed in UInt64(1)...200 {
        let cuts = randomCuts(count: Int(seed % 30) + 1, in: count, seed: seed)
        #expect(ReplyEvent.coalesced(try decodeReply(makeDecoder(), body, cuts: cuts)) == whole, "cuts \(cuts)",
                sourceLocation: sourceLocation)
    }
}
