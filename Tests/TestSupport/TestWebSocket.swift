import Foundation
import HarkCore

/// The server side of one WebSocket connection (RFC 6455), taken over from a TestHTTPServer
/// request: checks and answers the opening handshake, writes unmasked server frames, reads
/// the client's frames (which must be masked) and records each of them for assertions.
public final class TestWebSocketPeer: @unchecked Sendable {
    /// A frame as the client sent it.
    public struct Frame: Sendable, Equatable {
        public var fin: Bool
        public var opcode: UInt8
        public var masked: Bool
        public var payload: [UInt8]
        public var text: String { String(decoding: payload, as: UTF8.self) }
    }

    public let request: TestRequest
    private let writer: ResponseWriter
    private let socket: Int32
    private var buffer: [UInt8] = []
    private let lock = NSLock()
    private var received: [Frame] = []

    /// The frames read so far, in order.
    public var frames: [Frame] { lock.withLock { received } }

    private let done = DispatchSemaphore(value: 0)

    /// The server's script for this connection has ended (it read the client's answer to its close).
    public func finish() { done.signal() }

    /// The frames once the server's script has ended: the client may end its reply on the
    /// server's close frame before the server has read the close frame it sends back.
    public func finalFrames(within seconds: Double = 60) -> [Frame]? {
        guard done.wait(timeout: .now() + seconds) == .success else { return nil }
        done.signal()
        return frames
    }

    /// Answers the handshake with 101, or with 400 (nil) when the request is not a valid
    /// WebSocket opening handshake (section 4.2.1).
    public init?(request: TestRequest, writer: ResponseWriter) {
        self.request = request
        self.writer = writer
        socket = writer.takeOver()
        guard request.method == "GET", request.header("upgrade")?.lowercased() == "websocket",
              request.header("connection")?.lowercased().contains("upgrade") == true,
              request.header("sec-websocket-version") == "13",
              let key = request.header("sec-websocket-key"), Data(base64Encoded: key)?.count == 16 else {
            writer.writeRaw("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            return nil
        }
        writer.writeRaw("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Accept: \(Self.accept(key: key))\r\n\r\n")
    }

    /// base64(SHA-1(key + GUID)), section 4.2.2.
    public static func accept(key: String) -> String {
        Data(TestSHA1.digest(Array((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8))).base64EncodedString()
    }

    // MARK: Writing

    public static func frame(opcode: UInt8, fin: Bool = true, _ payload: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = [(fin ? 0x80 : 0) | opcode]
        if payload.count < 126 {
            bytes.append(UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            bytes += [126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            bytes.append(127)
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: payload.count >> shift)) }
        }
        return bytes + payload
    }

    /// Writes frames in one send, so they arrive together.
    @discardableResult
    public func write(_ frames: [UInt8]...) -> Bool { writer.writeRaw(frames.flatMap { $0 }) }

    public func send(text: String) { write(Self.frame(opcode: 0x1, Array(text.utf8))) }

    /// Closes as the `ws` library's `close()` does without a code: a close frame with no body.
    public func close(code: UInt16? = nil) {
        write(Self.frame(opcode: 0x8, code.map { [UInt8($0 >> 8), UInt8($0 & 0xFF)] } ?? []))
    }

    /// Ends the TCP connection without a close frame (`ws`'s `terminate()`).
    public func drop() {
        shutdown(socket, Int32(SHUT_RDWR))
    }

    // MARK: Reading

    /// The client's next frame, or nil when the connection ended.
    public func readFrame() -> Frame? {
        while true {
            if let (frame, length) = parse() {
                buffer.removeFirst(length)
                lock.withLock { received.append(frame) }
                return frame
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return nil }
            buffer += chunk[0..<count]
        }
    }

    /// The next text message, past any control frames (which are recorded too).
    public func readText() -> String? {
        while let frame = readFrame() {
            if frame.opcode == 0x1 { return frame.text }
            if frame.opcode == 0x8 { return nil }
        }
        return nil
    }

    private func parse() -> (Frame, Int)? {
        guard buffer.count >= 2 else { return nil }
        let masked = buffer[1] & 0x80 != 0
        var length = Int(buffer[1] & 0x7F)
        var offset = 2
        if length == 126 {
            guard buffer.count >= 4 else { return nil }
            length = Int(buffer[2]) << 8 | Int(buffer[3])
            offset = 4
        } else if length == 127 {
            guard buffer.count >= 10 else { return nil }
            length = (2..<10).reduce(0) { $0 << 8 | Int(buffer[$1]) }
            offset = 10
        }
        let mask = masked ? Array(buffer[offset..<min(offset + 4, buffer.count)]) : []
        if masked { offset += 4 }
        guard buffer.count >= offset + length else { return nil }
        var payload = Array(buffer[offset..<(offset + length)])
        if masked { for index in payload.indices { payload[index] ^= mask[index & 3] } }
        return (Frame(fin: buffer[0] & 0x80 != 0, opcode: buffer[0] & 0x0F, masked: masked, payload: payload), offset + length)
    }
}

/// SHA-1 written again for the test server, from FIPS 180-4, so that the server does not
/// check hark's handshake with hark's own code.
public enum TestSHA1 {
    public static func digest(_ message: [UInt8]) -> [UInt8] {
        var h: [UInt32] = [0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0]
        var bytes = message + [0x80] + [UInt8](repeating: 0, count: (119 - message.count % 64) % 64)
        bytes += (0..<8).map { UInt8(truncatingIfNeeded: (UInt64(message.count) * 8) >> (56 - 8 * UInt64($0))) }
        for chunk in stride(from: 0, to: bytes.count, by: 64) {
            var w = (0..<16).map { i in (0..<4).reduce(UInt32(0)) { $0 << 8 | UInt32(bytes[chunk + 4 * i + $1]) } }
            for i in 16..<80 {
                let x = w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16]
                w.append(x << 1 | x >> 31)
            }
            var (a, b, c, d, e) = (h[0], h[1], h[2], h[3], h[4])
            for i in 0..<80 {
                let (f, k): (UInt32, UInt32) = i < 20 ? ((b & c) | (~b & d), 0x5A827999)
                    : i < 40 ? (b ^ c ^ d, 0x6ED9EBA1) : i < 60 ? ((b & c) | (b & d) | (c & d), 0x8F1BBCDC) : (b ^ c ^ d, 0xCA62C1D6)
                let t = (a << 5 | a >> 27) &+ f &+ e &+ k &+ w[i]
                (e, d, c, b, a) = (d, c, b << 30 | b >> 2, a, t)
            }
            h = [h[0] &+ a, h[1] &+ b, h[2] &+ c, h[3] &+ d, h[4] &+ e]
        }
        return h.flatMap { v in (0..<4).map { UInt8(truncatingIfNeeded: v >> (24 - 8 * UInt32($0))) } }
    }
}
