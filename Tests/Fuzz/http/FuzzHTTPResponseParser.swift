/// Fuzz target: HTTPResponseParser (HTTP/HTTPResponseParser.swift), which reads the response
/// head and frames the body of every plain-HTTP reply. Properties:
/// - for any bytes as the response, feeding them whole, in two pieces or in pieces of a few
///   bytes gives the same head, the same body bytes, the same end and the same error;
/// - for any bytes as a body, a response that frames them with chunked encoding (up to eight
///   chunks, sizes chosen by the input) or with Content-Length gives those bytes, then the end.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPResponseParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    let whole = outcome(input, input.feedings[0])
    for pieces in input.feedings.dropFirst() {
        let other = outcome(input, pieces)
        require(other == whole, "pieces \(pieces) gave \(other), whole \(whole)")
    }
    checkFraming(input)
    return 0
}

/// What the parser made of a response.
struct Outcome: Equatable {
    var heads: [HTTPResponseHead] = []
    var body: [UInt8] = []
    var ends = 0
    var error: String?
}

func outcome(_ input: FuzzInput, _ pieces: [Range<Int>]) -> Outcome {
    var parser = HTTPResponseParser()
    var result = Outcome()
    func take(_ events: [HTTPResponseParser.Event]) {
        for event in events {
            switch event {
            case .head(let head): result.heads.append(head)
            case .body(let bytes): result.body += bytes
            case .end: result.ends += 1
            }
        }
    }
    do {
        for piece in pieces { take(try parser.feed(input.piece(piece))) }
        take(try parser.finish())
    } catch {
        // A feed that throws returns none of its events, so what came before the error
        // depends on the cut; the error itself must not.
        return Outcome(error: "\(error)")
    }
    require(result.heads.count == 1, "a response without exactly one head: \(result)")
    require(result.ends == 1, "a response that did not end once: \(result)")
    return result
}

func checkFraming(_ input: FuzzInput) {
    let body = input.bytes
    var chunked = Array("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
    for piece in input.fewPieces where !piece.isEmpty {
        chunked += Array(String(piece.count, radix: 16).utf8) + [0x0D, 0x0A] + body[piece] + [0x0D, 0x0A]
    }
    chunked += Array("0\r\n\r\n".utf8)
    let fixed = Array("HTTP/1.1 200 OK\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body
    for response in [chunked, fixed] {
        var parser = HTTPResponseParser()
        var received: [UInt8] = []
        var ended = false
        do {
            for event in try parser.feed(response) {
                if case .body(let bytes) = event { received += bytes }
                if event == .end { ended = true }
            }
        } catch {
            require(false, "a well-framed response failed: \(error)")
        }
        require(received == body && ended, "framed \(body) read back as \(received), ended: \(ended)")
        require(parser.isDone, "the parser is not done after the framed body")
    }
}
