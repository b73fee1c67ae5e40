import Testing
@testable import HarkCore

@Suite struct HTTPBodyChannelTests {
    static func address(_ bytes: [UInt8]) -> UInt {
        bytes.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
    }

    /// What the consumer does with a body: read it, then hand it back.
    static func readAndRecycle(_ channel: HTTPBodyChannel) async throws -> [UInt8]? {
        guard case .body(let bytes)? = try await channel.next() else { return nil }
        var read = [bytes]
        channel.recycle(&read)
        return bytes
    }

    /// A body the consumer has handed back is the transfer's next buffer, the same storage:
    /// nothing else (the queue) keeps a reference that would force a copy.
    @Test func aRecycledBodyIsReusedInPlace() async throws {
        let channel = HTTPBodyChannel()
        var body = channel.spareBuffer(capacity: 4096)
        body.append(contentsOf: Array("hello".utf8))
        let storage = Self.address(body)
        #expect(channel.push(.body(body)))
        body = []
        #expect(try await Self.readAndRecycle(channel) == Array("hello".utf8))
        let reused = channel.spareBuffer(capacity: 4096)
        #expect(reused.isEmpty)
        #expect(Self.address(reused) == storage)
    }

    /// A buffer someone still holds is not written over: reusing it copies, as arrays do.
    @Test func aBodyStillHeldKeepsItsBytes() async throws {
        let channel = HTTPBodyChannel()
        #expect(channel.push(.body(Array("kept".utf8))))
        let held = try await Self.readAndRecycle(channel)
        var next = channel.spareBuffer(capacity: 16)
        next.append(contentsOf: Array("other".utf8))
        #expect(held == Array("kept".utf8))
    }
}
