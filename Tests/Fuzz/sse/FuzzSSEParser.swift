/// Fuzz target: SSEParser (Streaming/SSEParser.swift), which reads every OpenAI-compatible
/// stream from the network. Properties, for any bytes:
/// - feeding them whole, in two pieces or in pieces of a few bytes gives the same events;
/// - those events are the ones a plain reading of the WHATWG rules gives (`reference` below,
///   written for clarity rather than speed, over the whole input at once);
/// - with a small event limit, the parser either throws eventTooLarge or gives the same events.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSSEParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    let expected = reference(input.bytes)
    for pieces in input.feedings {
        var parser = SSEParser()
        var events: [SSEEvent] = []
        for piece in pieces {
            do { events += try parser.feed(input.piece(piece)) } catch {
                require(false, "unexpected \(error) under the default limit")
            }
        }
        parser.finish()
        require(events == expected, "pieces \(pieces) gave \(events), the spec gives \(expected)")
    }
    var limited = SSEParser(maxEventBytes: 16)
    do {
        var events: [SSEEvent] = []
        for piece in input.smallPieces { events += try limited.feed(input.piece(piece)) }
        require(events == expected, "a limited parser that did not throw gave \(events), the spec gives \(expected)")
    } catch {
        require(error == .eventTooLarge(limit: 16), "unexpected \(error)")
    }
    return 0
}

/// The event stream interpretation of https://html.spec.whatwg.org/multipage/server-sent-events.html
/// §9.2.6, step by step, over the whole stream.
func reference(_ stream: [UInt8]) -> [SSEEvent] {
    var bytes = stream[...]
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
    // Lines end at CRLF, LF or CR; the text after the last line end is not a line.
    var lines: [ArraySlice<UInt8>] = []
    var start = bytes.startIndex
    var index = start
    while index < bytes.endIndex {
        let byte = bytes[index]
        if byte == 0x0A || byte == 0x0D {
            lines.append(bytes[start..<index])
            if byte == 0x0D, index + 1 < bytes.endIndex, bytes[index + 1] == 0x0A { index += 1 }
            start = index + 1
        }
        index += 1
    }
    var events: [SSEEvent] = []
    var data: [UInt8] = []
    var eventType: [UInt8] = []
    var lastEventID: String?
    var retry: Int?
    for line in lines {
        if line.isEmpty {
            // Dispatch: an empty data buffer dispatches nothing.
            if !data.isEmpty {
                data.removeLast()  // the LF after the last data line
                let type = eventType.isEmpty ? "message" : String(decoding: eventType, as: UTF8.self)
                events.append(SSEEvent(type: type, data: data, id: lastEventID, retry: retry))
            }
            data = []
            eventType = []
            continue
        }
        if line.first == UInt8(ascii: ":") { continue }
        let field: ArraySlice<UInt8>
        var value: ArraySlice<UInt8>
        if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
            field = line[..<colon]
            value = line[(colon + 1)...]
            if value.first == 0x20 { value = value.dropFirst() }
        } else {
            field = line
            value = []
        }
        switch String(decoding: field, as: UTF8.self) {
        case "event": eventType = Array(value)
        case "data": data += value + [0x0A]
        case "id": if !value.contains(0) { lastEventID = String(decoding: value, as: UTF8.self) }
        case "retry":
            // All ASCII digits: the reconnection time. One too large for an Int is ignored.
            if !value.isEmpty, value.allSatisfy({ (0x30...0x39).contains($0) }),
               let milliseconds = Int(String(decoding: value, as: UTF8.self)) {
                retry = milliseconds
            }
        default: break
        }
    }
    return events
}
