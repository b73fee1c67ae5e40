import Testing
@testable import HarkCore

/// A reply keeps its first megabyte of text in memory (for /pipe, /forward, speech); the piece
/// that crosses the limit is cut by bytes, where a scalar starts, never inside one.
@Suite struct ReplyJobTextTests {
    @Test func thePieceThatCrossesTheLimitIsCutWhereAScalarStarts() {
        let piece = "aé😀b"  // 1 + 2 + 4 + 1 bytes
        let cuts = [0: "", 1: "a", 2: "a", 3: "aé", 4: "aé", 5: "aé", 6: "aé", 7: "aé😀", 8: "aé😀b", 9: "aé😀b"]
        for (bytes, expected) in cuts {
            #expect(String(ReplyJob.leading(piece, bytes: bytes)) == expected, "\(bytes) bytes")
        }
        let long = String(repeating: "ü", count: 600_000)
        #expect(ReplyJob.leading(long, bytes: 1 << 20).utf8.count == 1 << 20)
        #expect(ReplyJob.leading(long, bytes: (1 << 20) + 1).utf8.count == 1 << 20)
    }
}
