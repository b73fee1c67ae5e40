/// RFC 6455 framing, apart from any socket: frames written by a client (always masked,
/// section 5.3) and a reader fed the server's bytes in any pieces, which joins fragmented
/// messages and reports control frames (they may come between fragments, section 5.4).
public enum WebSocketOpcode: UInt8, Sendable {
    case continuation = 0x0, text = 0x1, binary = 0x2, close = 0x8, ping = 0x9, pong = 0xA

    var isControl: Bool { rawValue & 0x8 != 0 }
}

/// What the reader makes of the server's frames.
public enum WebSocketEvent: Sendable, Equatable {
    case text(String)
    case binary([UInt8])
    case ping([UInt8])
    case pong([UInt8])
    /// The server's close frame: its status code (none when the frame had no body) and reason.
    case close(code: UInt16?, reason: String)
}

/// A frame the server must not send: the connection is failed with this close code
/// (1002 protocol error, 1007 invalid text, 1009 too big).
public struct WebSocketViolation: Error, Sendable, Equatable {
    public var code: UInt16
    public var reason: String
}

public enum WebSocketFrames {
    /// One client frame: FIN set, the payload masked with `mask` (four random bytes).
    public static func clientFrame(_ opcode: WebSocketOpcode, _ payload: [UInt8], mask: [UInt8]) -> [UInt8] {
        var frame: [UInt8] = [0x80 | opcode.rawValue]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            frame.append(0x80 | 127)
            for shift in stride(from: 56, through: 0, by: -8) { frame.append(UInt8(truncatingIfNeeded: payload.count >> shift)) }
        }
        frame += mask
        frame.reserveCapacity(frame.count + payload.count)
        for (index, byte) in payload.enumerated() { frame.append(byte ^ mask[index & 3]) }
        return frame
    }

    public static func randomMask() -> [UInt8] { (0..<4).map { _ in UInt8.random(in: 0...255) } }

    /// A close frame's body: the code, big-endian, and a reason.
    public static func closeBody(code: UInt16, reason: String = "") -> [UInt8] {
        [UInt8(code >> 8), UInt8(code & 0xFF)] + Array(reason.utf8.prefix(123))
    }
}

/// Reads server frames from bytes cut anywhere.
public struct WebSocketFrameReader: Sendable {
    private var buffer: [UInt8] = []
    /// The fragments of a text or binary message not yet finished.
    private var message: [UInt8] = []
    private var messageOpcode: WebSocketOpcode?
    private let maxMessageBytes: Int

    public init(maxMessageBytes: Int = 16 << 20) {
        self.maxMessageBytes = maxMessageBytes
    }

    /// Appends the events these bytes complete.
    public mutating func feed(_ bytes: [UInt8], into events: inout [WebSocketEvent]) throws(WebSocketViolation) {
        buffer += bytes
        var start = 0
        defer { buffer.removeFirst(start) }
        while let frame = try nextFrame(from: start) {
            start = frame.end
            try handle(frame, into: &events)
        }
        if buffer.count - start > maxMessageBytes + 14 {
            throw WebSocketViolation(code: 1009, reason: "a frame is larger than \(maxMessageBytes >> 20) MB")
        }
    }

    private struct Frame {
        var fin: Bool
        var opcode: WebSocketOpcode
        var payload: [UInt8]
        var end: Int
    }

    /// The frame starting at `start`, or nil when its bytes have not all arrived.
    private func nextFrame(from start: Int) throws(WebSocketViolation) -> Frame? {
        guard buffer.count - start >= 2 else { return nil }
        let first = buffer[start], second = buffer[start + 1]
        guard first & 0x70 == 0 else { throw WebSocketViolation(code: 1002, reason: "a frame uses an extension hark did not ask for") }
        guard let opcode = WebSocketOpcode(rawValue: first & 0x0F) else {
            throw WebSocketViolation(code: 1002, reason: "a frame has the unknown opcode \(first & 0x0F)")
        }
        // Section 5.1: a client must fail the connection on a masked frame.
        guard second & 0x80 == 0 else { throw WebSocketViolation(code: 1002, reason: "the server masked a frame") }
        var length = Int(second & 0x7F)
        var offset = start + 2
        if length == 126 {
            guard buffer.count - offset >= 2 else { return nil }
            length = Int(buffer[offset]) << 8 | Int(buffer[offset + 1])
            offset += 2
        } else if length == 127 {
            guard buffer.count - offset >= 8 else { return nil }
            var value: UInt64 = 0
            for index in 0..<8 { value = value << 8 | UInt64(buffer[offset + index]) }
            guard value <= UInt64(maxMessageBytes) else {
                throw WebSocketViolation(code: 1009, reason: "a frame is larger than \(maxMessageBytes >> 20) MB")
            }
            length = Int(value)
            offset += 8
        }
        let fin = first & 0x80 != 0
        if opcode.isControl {
            guard fin, length <= 125 else { throw WebSocketViolation(code: 1002, reason: "a control frame is fragmented or too long") }
        }
        guard length <= maxMessageBytes else {
            throw WebSocketViolation(code: 1009, reason: "a frame is larger than \(maxMessageBytes >> 20) MB")
        }
        guard buffer.count - offset >= length else { return nil }
        return Frame(fin: fin, opcode: opcode, payload: Array(buffer[offset..<(offset + length)]), end: offset + length)
    }

    private mutating func handle(_ frame: Frame, into events: inout [WebSocketEvent]) throws(WebSocketViolation) {
        switch frame.opcode {
        case .ping: events.append(.ping(frame.payload))
        case .pong: events.append(.pong(frame.payload))
        case .close:
            guard frame.payload.count != 1 else { throw WebSocketViolation(code: 1002, reason: "a close frame of one byte") }
            let code = frame.payload.count >= 2 ? UInt16(frame.payload[0]) << 8 | UInt16(frame.payload[1]) : nil
            events.append(.close(code: code, reason: String(decoding: frame.payload.dropFirst(2), as: UTF8.self)))
        case .text, .binary:
            guard messageOpcode == nil else {
                throw WebSocketViolation(code: 1002, reason: "a new message began before the last one ended")
            }
            messageOpcode = frame.opcode
            message = frame.payload
            if frame.fin { try finishMessage(into: &events) }
        case .continuation:
            guard messageOpcode != nil else { throw WebSocketViolation(code: 1002, reason: "a continuation frame with no message") }
            message += frame.payload
            guard message.count <= maxMessageBytes else {
                throw WebSocketViolation(code: 1009, reason: "a message is larger than \(maxMessageBytes >> 20) MB")
            }
            if frame.fin { try finishMessage(into: &events) }
        }
    }

    private mutating func finishMessage(into events: inout [WebSocketEvent]) throws(WebSocketViolation) {
        defer {
            messageOpcode = nil
            message = []
        }
        if messageOpcode == .binary {
            events.append(.binary(message))
            return
        }
        guard let text = String(validatingUTF8Bytes: message) else {
            throw WebSocketViolation(code: 1007, reason: "a text message is not valid UTF-8")
        }
        events.append(.text(text))
    }
}
