import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// hark's RFC 6455 client: SHA-1 for the handshake, frames both ways, and a connection to a
/// loopback server over each transport.
@Suite struct WebSocketTests {
    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// FIPS 180-4's examples, and agreement with the test server's own SHA-1 on every length
    /// around the padding boundaries.
    @Test func sha1MatchesTheStandardsVectors() {
        #expect(Self.hex(SHA1.digest([])) == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
        #expect(Self.hex(SHA1.digest(Array("abc".utf8))) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(Self.hex(SHA1.digest(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
                == "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
        for length in 0...200 {
            let message = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            #expect(SHA1.digest(message) == TestSHA1.digest(message), "length \(length)")
        }
    }

    /// RFC 6455 section 1.3's example key and answer.
    @Test func theHandshakeAnswerIsTheRFCsExample() {
        let accept = Data(SHA1.digest(Array(("dGhlIHNhbXBsZSBub25jZQ==" + WebSocketClient.acceptGUID).utf8))).base64EncodedString()
        #expect(accept == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    @Test(arguments: [0, 5, 125, 126, 65535, 65536])
    func clientFramesAreMaskedWithTheRightLength(_ length: Int) {
        let payload = (0..<length).map { UInt8(truncatingIfNeeded: $0) }
        let mask: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]
        let frame = WebSocketFrames.clientFrame(.binary, payload, mask: mask)
        #expect(frame[0] == 0x82, "FIN and the opcode")
        #expect(frame[1] & 0x80 == 0x80, "a client frame is masked")
        let header: Int
        switch length {
        case ..<126: header = 2; #expect(Int(frame[1] & 0x7F) == length)
        case ...0xFFFF: header = 4; #expect(frame[1] & 0x7F == 126); #expect(Int(frame[2]) << 8 | Int(frame[3]) == length)
        default: header = 10; #expect(frame[1] & 0x7F == 127); #expect((2..<10).reduce(0) { $0 << 8 | Int(frame[$1]) } == length)
        }
        #expect(Array(frame[header..<(header + 4)]) == mask)
        let unmasked = frame[(header + 4)...].enumerated().map { $0.element ^ mask[$0.offset & 3] }
        #expect(unmasked == payload)
    }

    /// A message in three fragments with a ping between them, a binary one, a close: the same
    /// events wherever the bytes are cut.
    @Test func serverFramesAreReadWhereverTheyAreCut() throws {
        let bytes = TestWebSocketPeer.frame(opcode: 0x1, fin: false, Array("héllo".utf8.prefix(2)))
            + TestWebSocketPeer.frame(opcode: 0x9, Array("p".utf8))
            + TestWebSocketPeer.frame(opcode: 0x0, fin: false, Array("héllo".utf8.dropFirst(2).prefix(2)))
            + TestWebSocketPeer.frame(opcode: 0x0, Array("héllo".utf8.dropFirst(4)))
            + TestWebSocketPeer.frame(opcode: 0x2, [1, 2, 3])
            + TestWebSocketPeer.frame(opcode: 0x1, Array(String(repeating: "x", count: 300).utf8))
            + TestWebSocketPeer.frame(opcode: 0x8, [0x03, 0xE8] + Array("bye".utf8))
        let expected: [WebSocketEvent] = [.ping(Array("p".utf8)), .text("héllo"), .binary([1, 2, 3]),
                                          .text(String(repeating: "x", count: 300)), .close(code: 1000, reason: "bye")]
        for cut in 0...bytes.count {
            var reader = WebSocketFrameReader()
            var events: [WebSocketEvent] = []
            try reader.feed(Array(bytes[..<cut]), into: &events)
            try reader.feed(Array(bytes[cut...]), into: &events)
            #expect(events == expected, "cut at \(cut)")
        }
    }

    @Test func framesAServerMustNotSendFailTheConnection() {
        let cases: [([UInt8], UInt16)] = [
            ([0x81, 0x81, 1, 2, 3, 4, 0x41], 1002),                       // masked
            ([0x83, 0x00], 1002),                                         // reserved opcode
            ([0xC1, 0x00], 1002),                                         // RSV1 without an extension
            (TestWebSocketPeer.frame(opcode: 0x9, [UInt8](repeating: 0, count: 126)), 1002),  // long ping
            ([0x09, 0x00], 1002),                                         // fragmented ping
            ([0x80, 0x00], 1002),                                         // continuation of nothing
            ([0x81, 0x01, 0xFF], 1007),                                   // not UTF-8
            ([0x01, 0x01, 0x41, 0x81, 0x01, 0x42], 1002),                 // a message inside a message
        ]
        for (bytes, code) in cases {
            var reader = WebSocketFrameReader()
            var events: [WebSocketEvent] = []
            #expect(throws: WebSocketViolation.self) { try reader.feed(bytes, into: &events) }
            do { try WebSocketFrameReader().feedOnce(bytes) } catch { #expect(error.code == code, "\(bytes)") }
        }
    }

    /// A loopback server that checks the handshake, pings, sends a fragmented message, reads
    /// what the client sends and closes: over hark's own socket and over libcurl's.
    @Test(arguments: [HTTPClient.Transport.automatic, .curl])
    func aConversationOverTheWire(_ transport: HTTPClient.Transport) async throws {
        let peers = PeerBox()
        let server = try TestHTTPServer { request, response in
            guard let peer = TestWebSocketPeer(request: request, writer: response) else { return }
            defer { peer.finish() }
            peers.add(peer)
            peer.write(TestWebSocketPeer.frame(opcode: 0x1, fin: false, Array("hel".utf8)),
                       TestWebSocketPeer.frame(opcode: 0x9, Array("are you there".utf8)),
                       TestWebSocketPeer.frame(opcode: 0x0, Array("lo".utf8)))
            guard peer.readText() == "hi back" else { return peer.drop() }
            peer.close(code: 1000)
            _ = peer.readFrame()
        }
        let received = Received()
        let client = try await WebSocketClient.connect(HTTPRequest(url: "ws://127.0.0.1:\(server.port)/chat?a=1",
                                                                   headers: [("X-Key", "k")]),
                                                       userAgent: "hark-test", transport: transport) { received.add($1) }
        await received.wait(for: 1)
        try client.send(text: "hi back")
        await received.wait(for: 2)
        client.close()
        #expect(received.all == [.text("hello"), .closed(code: 1000, reason: "")])
        let peer = try #require(peers.all.first)
        #expect(peer.request.target == "/chat?a=1")
        #expect(peer.request.header("x-key") == "k")
        let frames = try #require(peer.finalFrames(), "the server's script did not end")
        #expect(frames.allSatisfy { $0.masked })
        #expect(frames.map(\.opcode) == [0xA, 0x1, 0x8], "pong, text, close")
        #expect(frames[0].text == "are you there", "the pong echoes the ping")
        #expect(frames[1].text == "hi back")
        #expect(Array(frames[2].payload.prefix(2)) == [0x03, 0xE8], "the close echoes 1000")
    }

    @Test func aServerThatRefusesTheUpgradeIsAnHTTPError() async throws {
        let server = try TestHTTPServer { _, response in response.send(status: 404, json: #"{"message":"no chat here"}"#) }
        await #expect(throws: HarkError.http(status: 404, host: "127.0.0.1:\(server.port)", serverMessage: "no chat here")) {
            _ = try await WebSocketClient.connect(HTTPRequest(url: "ws://127.0.0.1:\(server.port)/chat"), userAgent: "t") { _, _ in }
        }
    }

    @Test func aWrongAcceptIsRefused() async throws {
        let server = try TestHTTPServer { _, response in
            response.writeRaw("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n")
            _ = response.takeOver()
        }
        await #expect(throws: HarkError.protocolViolation("127.0.0.1:\(server.port) did not accept the WebSocket handshake (RFC 6455)")) {
            _ = try await WebSocketClient.connect(HTTPRequest(url: "ws://127.0.0.1:\(server.port)/"), userAgent: "t") { _, _ in }
        }
    }
}

extension WebSocketFrameReader {
    func feedOnce(_ bytes: [UInt8]) throws(WebSocketViolation) {
        var reader = self
        var events: [WebSocketEvent] = []
        try reader.feed(bytes, into: &events)
    }
}

/// What the client's handler received, waited for without sleeping.
final class Received: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [WebSocketClient.Incoming] = []
    private var waiters: [(Int, CheckedContinuation<Void, Never>)] = []

    func add(_ item: WebSocketClient.Incoming) {
        let ready = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
            items.append(item)
            let ready = waiters.filter { $0.0 <= items.count }.map(\.1)
            waiters.removeAll { $0.0 <= items.count }
            return ready
        }
        for waiter in ready { waiter.resume() }
    }

    func wait(for count: Int) async {
        await withCheckedContinuation { continuation in
            lock.lock()
            if items.count >= count {
                lock.unlock()
                continuation.resume()
            } else {
                waiters.append((count, continuation))
                lock.unlock()
            }
        }
    }

    var all: [WebSocketClient.Incoming] { lock.withLock { items } }
}

final class PeerBox: @unchecked Sendable {
    private let lock = NSLock()
    private var peers: [TestWebSocketPeer] = []
    func add(_ peer: TestWebSocketPeer) { lock.withLock { peers.append(peer) } }
    var all: [TestWebSocketPeer] { lock.withLock { peers } }
}
