import Testing
import TestSupport
@testable import HarkCore

/// The in-place check must say "valid" exactly when `String(decoding:)` would keep the bytes
/// as they are: a string it calls valid is stored without that repair.
@Suite struct UTF8ValidationTests {
    static func valid(_ bytes: [UInt8]) -> Bool { bytes.withUnsafeBufferPointer { UTF8Validation.isValid($0) } }
    static func repairKeeps(_ bytes: [UInt8]) -> Bool { Array(String(decoding: bytes, as: UTF8.self).utf8) == bytes }

    @Test func agreesWithTheStandardLibraryOnEdgeCases() {
        let cases: [[UInt8]] = [
            [], Array("plain ascii, longer than eight bytes".utf8), Array("ünïcödé 😀 ok".utf8),
            [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xE0, 0xA0, 0x80], [0xED, 0xA0, 0x80], [0xED, 0x9F, 0xBF],
            [0xF0, 0x8F, 0xBF, 0xBF], [0xF0, 0x90, 0x80, 0x80], [0xF4, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80],
            [0xF5, 0x80, 0x80, 0x80], [0xE2, 0x82], Array("abcdefgh".utf8) + [0xE2, 0x82], [0x80], [0xFF],
        ]
        for bytes in cases { #expect(Self.valid(bytes) == Self.repairKeeps(bytes), "\(bytes)") }
    }

    @Test func agreesWithTheStandardLibraryOnRandomBytes() {
        var generator = SplitMix(seed: 21)
        let alphabet: [UInt8] = [0x41, 0x20, 0x7F, 0x80, 0xBF, 0xC2, 0xDF, 0xE0, 0xE1, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xA0, 0x90, 0x8F]
        for _ in 0..<20_000 {
            let count = Int(generator.next() % 12)
            let bytes = (0..<count).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }
            #expect(Self.valid(bytes) == Self.repairKeeps(bytes), "\(bytes)")
        }
    }
}
