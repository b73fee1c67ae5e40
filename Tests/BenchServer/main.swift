import Foundation
import HarkCore
import TestSupport

// A loopback server for benchmarks. Prints its port, then serves until stdin closes:
//   POST /v1/chat/completions  OpenAI SSE; the reply size comes from the last message:
//                              "bytes=N" streams N bytes of token-sized chunks, "line=N" one
//                              chunk whose content is N bytes (one huge SSE line), "text=N" N
//                              bytes of text in chunks of 16 KB (little but text), "markdown=N"
//                              N bytes of a Markdown reply (paragraphs, lists, a quote, a table,
//                              code) in token-sized chunks, "mdtext=N" the same reply in chunks of
//                              16 KB (the renderer's throughput), "code=N" one fenced Swift
//                              block of N bytes in chunks of 16 KB (the highlighter's), else "Hello!"
//   POST /webhook/bench/chat   n8n streaming NDJSON, sized the same way
// Replies are generated once per size and written in large blocks, so the server is never
// the bottleneck it would be with one write per event.

final class Cache: @unchecked Sendable {
    private let lock = NSLock()
    private var bodies: [String: [UInt8]] = [:]

    func body(_ key: String, make: () -> [UInt8]) -> [UInt8] {
        lock.withLock {
            if let cached = bodies[key] { return cached }
            let made = make()
            bodies[key] = made
            return made
        }
    }
}

let cache = Cache()
let words = ["The ", "quick ", "brown ", "fox ", "jumps ", "over ", "the ", "lazy ", "dog; ", "**bold** ", "`code` ", "and\n", "- a list item\n", "# A heading\n", "ünïcödé ", "😀 "]

/// The sample reply cut into tokens as a model streams it, for the rendering figure.
let markdownTokens = SampleReply.tokens(SampleReply.markdown + "\n")

/// About 16 KB of the sample reply, whole replies one after another.
let markdownBlock: String = {
    var text = ""
    while text.utf8.count < 16_000 { text += SampleReply.markdown + "\n" }
    return text
}()

/// About 16 KB of Swift (comments, strings with escapes and interpolation, numbers, keywords,
/// types, attributes), for the highlighter's figure: one fenced block, never closed.
let codeBlock: String = {
    let lines = #"""
        /// Retries a request while the policy allows it.
        @discardableResult
        public func send(_ request: Request, attempts: Int = 3) async throws -> Response {
            var delay = 0.25 // seconds, doubled after each try
            for attempt in 1...attempts {
                let response = try await transport.perform(request, timeout: 30.0)
                if response.status < 500 { return response }
                print("try \(attempt) of \(attempts): HTTP \(response.status)\n")
                try await Task.sleep(nanoseconds: UInt64(delay * 1_000_000_000))
                delay *= 2
            }
            throw HarkError.network("gave up after \(attempts) tries")
        }

        """#
    var text = ""
    while text.utf8.count < 16_000 { text += lines }
    return text
}()

func requestedBytes(_ body: JSON, prefix: String = "bytes=") -> Int? {
    let text = body["messages"]?.array?.last?["content"]?.string ?? body["chatInput"]?.string ?? ""
    guard text.hasPrefix(prefix) else { return nil }
    return Int(text.dropFirst(prefix.count))
}

/// One event whose content is `bytes` long: a reply written in one piece, as a server that
/// does not stream sends it.
func sseLine(bytes: Int) -> [UInt8] {
    var content = ""
    content.reserveCapacity(bytes + 16)
    var index = 0
    while content.utf8.count < bytes {
        content += words[index % words.count]
        index += 1
    }
    let chunk: JSON = ["id": "b", "object": "chat.completion.chunk", "model": "bench",
                       "choices": [["index": 0, "delta": ["content": .string(content)], "finish_reason": nil]]]
    return Array("data: \(chunk.encoded())\n\ndata: [DONE]\n\n".utf8)
}

/// About 16 KB of the words, for replies that are nearly all text.
let block: String = {
    var text = ""
    var index = 0
    while text.utf8.count < 16_000 {
        text += words[index % words.count]
        index += 1
    }
    return text
}()

func sse(bytes: Int, piece: (Int) -> String = { words[$0 % words.count] }) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(bytes + 200)
    var index = 0
    while out.count < bytes {
        let word = piece(index)
        index += 1
        let chunk: JSON = ["id": "b", "object": "chat.completion.chunk", "model": "bench",
                           "choices": [["index": 0, "delta": ["content": .string(word)], "finish_reason": nil]]]
        out += Array("data: \(chunk.encoded())\n\n".utf8)
    }
    out += Array("data: {\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":\(index),\"total_tokens\":\(index + 1)}}\n\ndata: [DONE]\n\n".utf8)
    return out
}

func ndjson(bytes: Int, piece: (Int) -> String = { words[$0 % words.count] }) -> [UInt8] {
    let metadata = #"{"nodeId":"a1","nodeName":"AI Agent","itemIndex":0,"runIndex":0,"timestamp":1}"#
    var out = Array("{\"type\":\"begin\",\"metadata\":\(metadata)}\n".utf8)
    var index = 0
    while out.count < bytes {
        let item: JSON = ["type": "item", "content": .string(piece(index))]
        index += 1
        out += Array((item.encoded().dropLast() + ",\"metadata\":\(metadata)}\n").utf8)
    }
    out += Array("{\"type\":\"end\",\"metadata\":\(metadata)}\n".utf8)
    return out
}

func writeBlocks(_ body: [UInt8], to response: ResponseWriter) {
    let block = 256 * 1024
    var offset = 0
    while offset < body.count {
        if !response.write(Array(body[offset..<min(offset + block, body.count)])) { return }
        offset += block
    }
}

/// The SSE body a chat completion request asks for (see the top of this file).
func completionPayload(_ body: JSON) -> [UInt8] {
    if let size = requestedBytes(body) { return cache.body("sse\(size)") { sse(bytes: size) } }
    if let size = requestedBytes(body, prefix: "markdown=") {
        return cache.body("md\(size)") { sse(bytes: size, piece: { markdownTokens[$0 % markdownTokens.count] }) }
    }
    if let size = requestedBytes(body, prefix: "mdtext=") {
        return cache.body("mdtext\(size)") { sse(bytes: size, piece: { _ in markdownBlock }) }
    }
    if let size = requestedBytes(body, prefix: "code=") {
        return cache.body("code\(size)") { sse(bytes: size, piece: { $0 == 0 ? "```swift\n" + codeBlock : codeBlock }) }
    }
    if let size = requestedBytes(body, prefix: "line=") { return cache.body("line\(size)") { sseLine(bytes: size) } }
    if let size = requestedBytes(body, prefix: "text=") { return cache.body("text\(size)") { sse(bytes: size, piece: { _ in block }) } }
    return Array("data: {\"choices\":[{\"delta\":{\"content\":\"Hello!\"}}]}\n\ndata: [DONE]\n\n".utf8)
}

let server = try TestHTTPServer { request, response in
    let body = (try? JSON.parse(request.body)) ?? .null
    if request.path.hasSuffix("/chat/completions") {
        let payload = completionPayload(body)
        response.startChunked(headers: [("Content-Type", "text/event-stream")])
        writeBlocks(payload, to: response)
    } else if request.path.hasPrefix("/webhook/") {
        let payload: [UInt8]
        if let size = requestedBytes(body, prefix: "text=") {
            payload = cache.body("ndtext\(size)") { ndjson(bytes: size, piece: { _ in block }) }
        } else {
            let size = requestedBytes(body) ?? 64
            payload = cache.body("nd\(size)") { ndjson(bytes: size) }
        }
        response.startChunked(headers: [("Content-Type", "application/json; charset=utf-8")])
        writeBlocks(payload, to: response)
    } else {
        response.send(status: 404, text: "not found")
    }
}
FileHandle.standardOutput.write(Data("\(server.port)\n".utf8))
// Serve until whoever started us closes our stdin.
while let _ = readLine() {}
server.stop()
