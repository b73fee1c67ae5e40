import Testing
import TestSupport
@testable import HarkCore

/// The chunk layouts of servers we did not write are read by the template, whatever their
/// field order, escapes and values that change as they stream, and give exactly what the full
/// walk gives. The layouts are those of scripts/bench/layouts_server.py, which cites where each
/// comes from (llama.cpp's server, OpenAI's API, vLLM, Ollama).
@Suite struct ChunkLayoutTests {
    static let check = ChunkTemplateTests.check

    /// One chunk of `layout`; `content` is the string's JSON text as the server escapes it,
    /// `serial` the chunk's number (what changes with it: `created`, logprobs, obfuscation).
    static func chunk(_ layout: String, _ content: String, serial: Int) -> String {
        let created = 1_764_000_000 + serial / 3
        let json: String
        switch layout {
        case "llamacpp":
            json = #"{"choices":[{"finish_reason":null,"index":0,"delta":{"content":"\#(content)"}}],"created":\#(created),"#
                + #""id":"chatcmpl-DHvc","model":"bench","system_fingerprint":"b6881-8b11deea4","object":"chat.completion.chunk"}"#
        case "openai":
            json = #"{"id":"chatcmpl-BzX4","object":"chat.completion.chunk","created":1764000000,"model":"gpt-4o-mini","#
                + #""system_fingerprint":"fp_560af6e559","choices":[{"index":0,"delta":{"content":"\#(content)"},"#
                + #""logprobs":null,"finish_reason":null}]}"#
        case "openai-bare":
            json = #"{"id":"chatcmpl-BzX4","object":"chat.completion.chunk","created":1764000000,"model":"gpt-4o-mini","#
                + #""choices":[{"index":0,"delta":{"content":"\#(content)"},"finish_reason":null}]}"#
        case "openai-logprobs":
            let logprob = "-0.\(serial * 7919 % 100_000)"
            json = #"{"id":"chatcmpl-BzX4","object":"chat.completion.chunk","created":1764000000,"model":"gpt-4o-mini","#
                + #""service_tier":"default","system_fingerprint":"fp_560af6e559","choices":[{"index":0,"delta":{"content":"\#(content)"},"#
                + #""logprobs":{"content":[{"token":"\#(content)","logprob":\#(logprob),"bytes":[\#(serial % 256),32],"#
                + #""top_logprobs":[]}],"refusal":null},"finish_reason":null}],"obfuscation":"\#(String(repeating: "q", count: serial % 9))"}"#
        case "vllm":
            json = #"{"id":"chatcmpl-7f3c","object":"chat.completion.chunk","created":1764000000,"model":"Qwen/Qwen2.5-7B","#
                + #""choices":[{"index":0,"delta":{"content":"\#(content)"},"logprobs":null,"finish_reason":null,"token_ids":null}]}"#
        case "ollama":
            json = #"{"id":"chatcmpl-482","object":"chat.completion.chunk","created":\#(created),"model":"llama3.2","#
                + #""system_fingerprint":"fp_ollama","choices":[{"index":0,"delta":{"role":"assistant","content":"\#(content)"},"#
                + #""finish_reason":null}]}"#
        default:
            preconditionFailure(layout)
        }
        return "data: " + json + "\n\n"
    }

    static let layouts = ["llamacpp", "openai", "openai-bare", "openai-logprobs", "vllm", "ollama"]

    /// Contents as servers escape them: plain words, prose with `\n` escapes (about a KiB),
    /// Go's HTML-safe `\u003c`, Python's `ensure_ascii` (`\u00e9`, a surrogate pair), quotes,
    /// backslashes, raw UTF-8.
    static let contents = [
        "The ", "quick ", #"line one\nline two\n"#, #"a \u003c b \u0026 c \u003e d"#, #"caf\u00e9 "#,
        #"\ud83d\ude00 "#, #"say \"hi\" "#, #"C:\\path "#, "ünïcödé 😀 ", #"tab\there\r\n"#,
        String(repeating: #"The committee met on Tuesday.\nIt agreed. "#, count: 24),
    ]

    /// A stream of `count` chunks of `layout` after a first one that reports the model.
    static func stream(_ layout: String, count: Int) -> String {
        var body = #"data: {"id":"x","object":"chat.completion.chunk","model":"bench","choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}"#
            + "\n\n"
        for serial in 0..<count { body += chunk(layout, contents[serial % contents.count], serial: serial) }
        return body + "data: [DONE]\n\n"
    }

    /// What `contents` decode to, in order, for `count` chunks.
    static func expectedText(count: Int) -> String {
        var text = ""
        for serial in 0..<count {
            let quoted = "\"" + contents[serial % contents.count] + "\""
            text += (try? JSON.parse(Array(quoted.utf8)).string) ?? "?"
        }
        return text
    }

    @Test(arguments: layouts)
    func eachLayoutIsReadByTheTemplate(_ layout: String) {
        let count = 60
        let (decoded, reads) = Self.check.expectSameAsFullWalk(Self.stream(layout, count: count))
        #expect(decoded.error == nil)
        #expect(decoded.text == Self.expectedText(count: count))
        // The first content chunk is walked, and a second one to learn what changes between
        // chunks; each `created` of a new second is walked once until it is learnt.
        #expect(reads >= count - 4, "\(layout): \(reads) of \(count) read by the template")
    }

    /// Cut anywhere, escapes and surrogate pairs included, the same events as the full walk.
    @Test(arguments: layouts)
    func anyCutOfEachLayoutGivesWhatTheFullWalkGives(_ layout: String) {
        let stream = Array(Self.stream(layout, count: 10).utf8)
        for cut in stride(from: 0, through: stream.count, by: 3) {
            let (decoded, _) = Self.check.expectSameAsFullWalk(stream, cuts: [cut])
            #expect(decoded.error == nil)
        }
    }

    /// The same reply in every layout, framed as a server frames it (one HTTP chunk per event,
    /// or a Content-Length body), cut at random places and fed as HTTPReply feeds it (`more`
    /// when another read is already there): the same text in every layout, and the same events
    /// the full walk gives for the body in one piece.
    @Test func everyLayoutInRandomReadsGivesTheSameText() throws {
        var random = SplitMix(seed: 0x1A7_0075)
        let count = 40
        let expected = Self.expectedText(count: count)
        for layout in Self.layouts {
            let body = Array(Self.stream(layout, count: count).utf8)
            let whole = Self.check.decode(body, cuts: [], usesTemplate: false).0
            for chunked in [true, false] {
                var response = Array("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n".utf8)
                if chunked {
                    response += Array("Transfer-Encoding: chunked\r\n\r\n".utf8)
                    var start = 0
                    while start < body.count {
                        let end = min(body.count, start + Int.random(in: 1...300, using: &random))
                        response += Array((String(end - start, radix: 16) + "\r\n").utf8) + body[start..<end] + [0x0D, 0x0A]
                        start = end
                    }
                    response += Array("0\r\n\r\n".utf8)
                } else {
                    response += Array("Content-Length: \(body.count)\r\n\r\n".utf8) + body
                }
                for _ in 0..<6 {
                    let cuts = (0..<Int.random(in: 1...40, using: &random)).map { _ in Int.random(in: 0...response.count, using: &random) }
                    for usesTemplate in [true, false] {
                        let decoded = try Self.readResponse(response, cuts: cuts.sorted(), usesTemplate: usesTemplate, random: &random)
                        #expect(decoded.error == nil, "\(layout)")
                        #expect(decoded.text == expected, "\(layout) chunked \(chunked) cuts \(cuts.sorted())")
                        #expect(Self.coalesced(decoded.feeds.joined()) == Self.coalesced(whole.feeds.joined()), "\(layout)")
                    }
                }
            }
        }
    }

    /// `response` read by the HTTP parser in the pieces `cuts` make, each body handed to the
    /// decoder with `more` set at random except for the last of a read.
    static func readResponse(_ response: [UInt8], cuts: [Int], usesTemplate: Bool, random: inout SplitMix) throws -> DecodedFeeds {
        var parser = HTTPResponseParser(requestWasHead: false)
        var decoder = ChatCompletionDecoder()
        decoder.usesTemplate = usesTemplate
        var decoded = DecodedFeeds()
        var start = 0
        for cut in cuts + [response.count] where cut >= start {
            for event in try parser.feed(Array(response[start..<cut])) {
                var events: [ReplyEvent] = []
                switch event {
                case .head(let head): try decoder.start(head: head)
                case .body(let bytes): try decoder.feed(bytes, into: &events, more: cut < response.count && Bool.random(using: &random))
                case .end: try decoder.finish(into: &events)
                }
                decoded.feeds.append(events)
            }
            start = cut
        }
        return decoded
    }

    /// Events with adjacent texts joined: how they were split between feeds does not matter.
    static func coalesced(_ events: some Sequence<ReplyEvent>) -> [ReplyEvent] {
        var joined: [ReplyEvent] = []
        for event in events {
            if case .text(let text) = event, case .text(let before)? = joined.last {
                joined[joined.count - 1] = .text(before + text)
            } else if event != .text("") {
                joined.append(event)
            }
        }
        return joined
    }

    /// The same members in other orders: each order is its own layout, read by the template.
    @Test func fieldOrderDoesNotMatter() {
        let orders = [
            #"{"choices":[{"delta":{"content":"@"},"index":0}],"model":"m","id":"c"}"#,
            #"{"id":"c","choices":[{"index":0,"finish_reason":null,"delta":{"role":"assistant","content":"@"}}],"model":"m"}"#,
            #"{"model":"m","id":"c","choices":[{"logprobs":null,"delta":{"content":"@","role":"assistant"}}]}"#,
            #"{ "id" : "c" , "choices" : [ { "delta" : { "content" : "@" } } ] }"#,
        ]
        for order in orders {
            let chunks = (0..<30).map { "data: " + order.replacing("@", with: "w\($0) ") + "\n\n" }
            let (decoded, reads) = Self.check.expectSameAsFullWalk(chunks.joined() + ChunkTemplateTests.done)
            #expect(decoded.text == (0..<30).map { "w\($0) " }.joined())
            #expect(reads >= 27, "\(order): \(reads)")
        }
    }

    /// Values hark does not read may change in every chunk; what it reads may not.
    @Test func valuesThatMatterAreNeverSkipped() {
        let base = #"{"id":"c","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"@"},"finish_reason":null}]"#
        var stream = ""
        for serial in 0..<8 { stream += "data: " + base.replacing("\"created\":1", with: "\"created\":\(serial)")
            .replacing("@", with: "\(serial) ") + "}\n\n" }
        // A finish reason, usage, reasoning, an error and tool calls in the same layout each
        // still do what they do.
        stream += "data: " + base.replacing("\"finish_reason\":null", with: #""finish_reason":"length""#).replacing("@", with: "f") + "}\n\n"
        stream += "data: " + base.replacing("@", with: "u") + #","usage":{"total_tokens":5}}"# + "\n\n"
        stream += "data: " + base.replacing(#"{"content":"@"}"#, with: #"{"content":"r","reasoning_content":"hmm"}"#) + "}\n\n"
        stream += "data: " + base.replacing("@", with: "after") + "}\n\n" + ChunkTemplateTests.done
        let (decoded, reads) = Self.check.expectSameAsFullWalk(stream)
        #expect(decoded.feeds.joined().contains(.reasoning("hmm")))
        #expect(decoded.feeds.joined().contains(.usage(Usage(totalTokens: 5))))
        #expect(decoded.feeds.last?.last == .finished(reason: "length"))
        #expect(reads >= 5)
    }

    /// A changing value that holds a line break (an event of two data lines), is malformed,
    /// or changes its type: the template gives what the walk gives (an error included).
    @Test func changingValuesOfAnyShapeGiveWhatTheWalkGives() {
        let chunk = { (logprobs: String, content: String) in
            #"data: {"id":"c","choices":[{"index":0,"delta":{"content":"\#(content)"},"logprobs":\#(logprobs)}]}"# + "\n\n"
        }
        let opening = chunk("null", "a") + chunk("{\"x\":1}", "b") + chunk("[2]", "c")
        let shapes = [
            "{\"x\":\ndata: 3}", "{\"x\":\r\ndata: 3}", "[1,2,{\"y\":[]}]", "\"text\"", "-1.5e3", "true", "{\"x\":[}",
            "{\"x\":\"unterminated}", "{]", "nul", "{\"x\":1}}", "[[[[[[[[[[1]]]]]]]]]]", "\"a\u{01}\"", "",
        ]
        for shape in shapes {
            let stream = Array((opening + chunk(shape, "z") + chunk("null", "end") + ChunkTemplateTests.done).utf8)
            for cut in stride(from: 0, through: stream.count, by: 5) {
                Self.check.expectSameAsFullWalk(stream, cuts: [cut])
            }
        }
    }

    /// A varying value is first compared with the template's own: one that starts with the
    /// same bytes and goes on (`17` then `170`, `null` then `nullx`, which skipping reads as one
    /// token too) is still read whole.
    @Test func aChangingValueThatStartsLikeTheLastOneIsReadWhole() {
        let chunk = { (created: String, content: String) in
            #"data: {"id":"c","created":\#(created),"choices":[{"delta":{"content":"\#(content)"}}]}"# + "\n\n"
        }
        var stream = chunk("1", "a") + chunk("17", "b")
        for (index, created) in ["17", "170", "17", "1700", "17", "17e3", "17", "null", "nullx", "17.5", "-17", "17"].enumerated() {
            stream += chunk(created, "w\(index) ")
        }
        let bytes = Array((stream + ChunkTemplateTests.done).utf8)
        let (decoded, reads) = Self.check.expectSameAsFullWalk(bytes)
        #expect(decoded.error == nil)
        #expect(decoded.text == "ab" + (0..<12).map { "w\($0) " }.joined())
        #expect(reads >= 8)
        for cut in stride(from: 0, through: bytes.count, by: 11) { Self.check.expectSameAsFullWalk(bytes, cuts: [cut]) }
    }

    /// Deeply nested varying values (past the 64 levels matched without allocating, past the
    /// parser's limit) give what the walk gives.
    @Test func deeplyNestedVaryingValues() {
        let chunk = { (logprobs: String, content: String) in
            #"data: {"choices":[{"delta":{"content":"\#(content)"},"logprobs":\#(logprobs)}]}"# + "\n\n"
        }
        for depth in [63, 64, 65, 200, 513, 600] {
            let nested = String(repeating: "[{\"a\":", count: depth / 2) + "1" + String(repeating: "}]", count: depth / 2)
            let mismatched = String(repeating: "[", count: depth) + String(repeating: "}", count: depth)
            for value in [nested, mismatched] {
                Self.check.expectSameAsFullWalk(chunk("null", "a") + chunk("1", "b") + chunk(value, "c") + chunk("2", "d")
                    + ChunkTemplateTests.done)
            }
        }
    }
}
