/// Parses an HTTP/1.1 response as bytes arrive: status line and headers (skipping 1xx
/// interim responses), then the body framed by chunked encoding, Content-Length, or the end of
/// the connection. Pure: fed bytes, it returns what they complete.
public struct HTTPResponseParser {
    public enum Event: Equatable {
        case head(HTTPResponseHead)
        case body([UInt8])
        case end
    }

    enum State: Equatable {
        case head
        case fixed(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers
        case untilClose
        case done
    }

    private var state = State.head
    private var buffer: [UInt8] = []
    private let requestWasHead: Bool
    static let maxHeadBytes = 64 * 1024

    public init(requestWasHead: Bool = false) {
        self.requestWasHead = requestWasHead
    }

    public var isDone: Bool { state == .done }

    public mutating func feed(_ bytes: UnsafeBufferPointer<UInt8>) throws -> [Event] {
        var body: [UInt8] = []
        let events = try feed(bytes, appendingBodyTo: &body)
        guard !body.isEmpty else { return events }
        // A read's body follows any head it completes and comes before the end, which is last.
        let ended = events.last == .end
        var result = ended ? Array(events.dropLast()) : events
        result.append(.body(body))
        if ended { result.append(.end) }
        return result
    }

    /// Feeds bytes, appending the body they hold to `body` (the transport's reused buffer:
    /// no array per read) and returning the heads and the end they complete. The body bytes
    /// of one read come after its heads and before its end.
    public mutating func feed(_ bytes: UnsafeBufferPointer<UInt8>, appendingBodyTo body: inout [UInt8]) throws -> [Event] {
        var events: [Event] = []
        var input = bytes[...]
        while !input.isEmpty && state != .done {
            switch state {
            case .head, .chunkSize, .chunkDataEnd, .trailers:
                // Line-oriented states: gather a line (or a whole head) in the buffer.
                guard let newline = input.firstIndex(of: 0x0A) else {
                    buffer.append(contentsOf: input)
                    input = input[input.endIndex...]
                    if buffer.count > Self.maxHeadBytes { throw Self.error("the response head is larger than 64 KB") }
                    continue
                }
                buffer.append(contentsOf: input[input.startIndex...newline])
                input = input[(newline + 1)...]
                try line(&events)
            case .fixed(let remaining):
                let take = min(remaining, input.count)
                body.append(contentsOf: UnsafeBufferPointer(rebasing: input.prefix(take)))
                input = input.dropFirst(take)
                state = remaining - take == 0 ? .done : .fixed(remaining: remaining - take)
                if state == .done { events.append(.end) }
            case .chunkData(let remaining):
                let take = min(remaining, input.count)
                body.append(contentsOf: UnsafeBufferPointer(rebasing: input.prefix(take)))
                input = input.dropFirst(take)
                state = remaining - take == 0 ? .chunkDataEnd : .chunkData(remaining: remaining - take)
            case .untilClose:
                body.append(contentsOf: UnsafeBufferPointer(rebasing: input))
                input = input[input.endIndex...]
            case .done:
                break
            }
        }
        return events
    }

    public mutating func feed(_ bytes: [UInt8]) throws -> [Event] {
        try bytes.withUnsafeBufferPointer { try feed($0) }
    }

    /// The connection closed. A body that was framed and is not complete is an error.
    public mutating func finish() throws -> [Event] {
        switch state {
        case .untilClose:
            state = .done
            return [.end]
        case .done:
            return []
        case .head:
            throw HarkError.network(host: "the server", reason: NetworkReason.closedWithoutAnswer)
        default:
            throw HarkError.network(host: "the server", reason: NetworkReason.brokeMidReply)
        }
    }

    private static func error(_ reason: String) -> HarkError { .protocolViolation("malformed HTTP response: \(reason)") }

    private mutating func line(_ events: inout [Event]) throws {
        switch state {
        case .head:
            // The head ends at an empty line.
            let ending = Array(buffer.suffix(4))
            guard ending == [0x0D, 0x0A, 0x0D, 0x0A] || ending.suffix(2) == [0x0A, 0x0A] || ending.suffix(3) == [0x0A, 0x0D, 0x0A] else {
                return
            }
            let text = String(decoding: buffer, as: UTF8.self)
            buffer.removeAll(keepingCapacity: true)
            try head(text, &events)
        case .chunkSize:
            let text = String(decoding: buffer, as: UTF8.self).trimmed
            buffer.removeAll(keepingCapacity: true)
            let digits = text.split(separator: ";", maxSplits: 1).first.map(String.init) ?? ""
            guard let size = Int(digits.trimmingSpaces, radix: 16), size >= 0 else {
                throw Self.error("bad chunk size \"\(text.prefix(20))\"")
            }
            state = size == 0 ? .trailers : .chunkData(remaining: size)
        case .chunkDataEnd:
            let isLineEnd = buffer == [0x0D, 0x0A] || buffer == [0x0A]
            buffer.removeAll(keepingCapacity: true)
            guard isLineEnd else { throw Self.error("a chunk is longer than its size") }
            state = .chunkSize
        case .trailers:
            let isEmpty = buffer == [0x0D, 0x0A] || buffer == [0x0A]
            buffer.removeAll(keepingCapacity: true)
            if isEmpty {
                state = .done
                events.append(.end)
            }
        default:
            break
        }
    }

    private mutating func head(_ text: String, _ events: inout [Event]) throws {
        var lines = text.lineSlices(keepingEmpty: false).map(String.init)
        guard !lines.isEmpty else { throw Self.error("empty head") }
        let statusLine = lines.removeFirst()
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]), (100...599).contains(status) else {
            throw HarkError.protocolViolation("the server did not answer in HTTP")
        }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { throw Self.error("bad header line") }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingSpaces
            if let existing = headers[name] {
                headers[name] = existing + (name == "set-cookie" ? "\n" : ", ") + value
            } else {
                headers[name] = value
            }
        }
        if (100..<200).contains(status) {
            state = .head  // an interim response: the real one follows
            return
        }
        events.append(.head(HTTPResponseHead(status: status, headers: headers)))
        if requestWasHead || status == 204 || status == 304 {
            state = .done
            events.append(.end)
        } else if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
            state = .chunkSize
        } else if let length = headers["content-length"] {
            guard let count = Int(length.trimmingSpaces), count >= 0 else { throw Self.error("bad Content-Length") }
            state = count == 0 ? .done : .fixed(remaining: count)
            if count == 0 { events.append(.end) }
        } else {
            state = .untilClose
        }
    }
}
