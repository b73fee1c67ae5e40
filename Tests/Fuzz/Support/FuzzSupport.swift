/// Shared by every fuzz target (compiled into each; see scripts/fuzz.sh). A broken property
/// must crash: libFuzzer reports a crash, saves the input and stops, which is what makes a
/// property violation as visible as a memory error.

/// Crashes with the message when `condition` is false.
func require(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
             file: StaticString = #fileID, line: UInt = #line) {
    if !condition() { fatalError("property violated: \(message())", file: file, line: line) }
}

/// The fuzzer's bytes, with cut points derived from them, so one input also decides how it is
/// fed: whole, in two pieces, and in pieces of one to four bytes. Pieces are views of
/// libFuzzer's own buffer, not copies: with `-assert-config Debug` (scripts/fuzz.sh) each
/// view is bounds-checked, and AddressSanitizer guards the end of the buffer.
struct FuzzInput {
    let buffer: UnsafeBufferPointer<UInt8>

    init(_ data: UnsafePointer<UInt8>, _ size: Int) {
        buffer = UnsafeBufferPointer(start: data, count: size)
    }

    var count: Int { buffer.count }
    var bytes: [UInt8] { Array(buffer) }

    /// A cut point in 0...count, from a hash of the bytes: every position is reachable and the
    /// same input always cuts at the same place (libFuzzer needs inputs to replay).
    var splitPoint: Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a
        for byte in buffer { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return Int(hash % UInt64(count + 1))
    }

    /// Two pieces cut at `splitPoint` (either may be empty).
    var twoPieces: [Range<Int>] {
        let cut = splitPoint
        return [0..<cut, cut..<count]
    }

    /// Pieces of 1 to 4 bytes, sizes taken from the bytes themselves, with an empty piece now
    /// and then (a read may return nothing).
    var smallPieces: [Range<Int>] {
        var pieces: [Range<Int>] = []
        var index = 0
        var turn = 0
        while index < count {
            let end = min(count, index + Int(buffer[(index + turn) % count] & 3) + 1)
            pieces.append(index..<end)
            if turn % 7 == 3 { pieces.append(end..<end) }
            index = end
            turn += 1
        }
        return pieces
    }

    /// At most eight pieces: the first seven of `smallPieces`, then the rest in one. For
    /// targets that build a document per piece, where hundreds of pieces would cost more time
    /// than they find.
    var fewPieces: [Range<Int>] {
        let small = smallPieces
        guard small.count > 8 else { return small }
        return Array(small.prefix(7)) + [small[7].lowerBound..<count]
    }

    /// The ways of feeding the input that every target compares.
    var feedings: [[Range<Int>]] { [[0..<count], twoPieces, smallPieces] }

    func piece(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: buffer[range])
    }

    /// The bytes as text, invalid UTF-8 replaced (what hark does with a file it reads).
    var text: String { String(decoding: buffer, as: UTF8.self) }
}

extension FuzzInput {
    /// The input without its first byte, which a target spends on a choice (a content type).
    var rest: FuzzInput {
        FuzzInput(buffer.baseAddress.map { $0 + 1 } ?? UnsafePointer(bitPattern: 1)!, Swift.max(count - 1, 0))
    }
}
