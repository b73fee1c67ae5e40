/// Fuzz target: LineSplitter (Streaming/LineSplitter.swift), which cuts n8n's newline-delimited
/// JSON into lines. Properties, for any bytes:
/// - feeding them whole, in two pieces or in pieces of a few bytes gives the same lines;
/// - those lines are the plain reading (`reference` below): split at "\n", one "\r" before it
///   dropped, blank lines skipped, the unterminated tail returned by finish();
/// - no line contains "\n" and none is blank;
/// - with a small line limit, the splitter either throws lineTooLarge or gives the same lines.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLineSplitter(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    let expected = reference(input.bytes)
    for line in expected {
        require(!line.contains(0x0A), "a line holds a newline: \(line)")
        require(!LineSplitter.isBlank(line), "a blank line was returned: \(line)")
    }
    for pieces in input.feedings {
        var splitter = LineSplitter()
        var lines: [[UInt8]] = []
        for piece in pieces {
            do { lines += try splitter.feed(input.piece(piece)) } catch {
                require(false, "unexpected \(error) under the default limit")
            }
        }
        if let last = splitter.finish() { lines.append(last) }
        require(lines == expected, "pieces \(pieces) gave \(lines), expected \(expected)")
    }
    var limited = LineSplitter(maxLineBytes: 16)
    do {
        var lines: [[UInt8]] = []
        for piece in input.smallPieces { lines += try limited.feed(input.piece(piece)) }
        if let last = limited.finish() { lines.append(last) }
        require(lines == expected, "a limited splitter that did not throw gave \(lines), expected \(expected)")
    } catch {
        require(error == .lineTooLarge(limit: 16), "unexpected \(error)")
    }
    return 0
}

/// The lines of the whole input, read the simple way.
func reference(_ bytes: [UInt8]) -> [[UInt8]] {
    var lines: [[UInt8]] = []
    var parts = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init)
    let tail = parts.removeLast()  // after the last "\n" (maybe empty): what finish() returns
    for var line in parts + [tail] {
        if line.last == 0x0D { line.removeLast() }
        if !line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { lines.append(line) }
    }
    return lines
}
