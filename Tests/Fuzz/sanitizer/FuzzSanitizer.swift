/// Fuzz target: the terminal sanitizer (Render/TerminalSanitizer.swift) and the renderers that
/// write what passed it (Render/MarkdownRenderer.swift with its inline reader, tables and code
/// tokenizers; Render/PlainTextRenderer.swift for consoles). Properties, for any bytes (read as
/// text, as hark reads a reply):
/// - the sanitizer gives the same out whole, in two pieces and in pieces of a few bytes;
/// - what it gives holds no ESC, BEL, C1 or other control but line feed and tab, and its marks
///   are bracketed in pairs that never nest;
/// - the Markdown renderer (colours and links on) and the console renderer (its colours kept)
///   write no escape sequence they do not make: SGR `ESC[0m` or `ESC[0;…m` with digits and `;`
///   only, erase-line `ESC[K`, cursor-forward `ESC[nC`, OSC 8 with a printable ASCII target;
///   no control but line feed and a carriage return that starts such an erase.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSanitizer(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    let text = input.text
    let utf8 = Array(text.utf8)
    for keepingColors in [false, true] {
        var outputs: [[UInt8]] = []
        for pieces in input.feedings {
            var sanitizer = TerminalSanitizer(keepingColors: keepingColors)
            var out: [UInt8] = []
            for piece in scalarPieces(utf8, pieces) {
                sanitizer.feed(piece) { out += $0 }
            }
            sanitizer.finish { out += $0 }
            checkSanitized(out)
            outputs.append(out.filter { $0 != TerminalSanitizer.markStart && $0 != TerminalSanitizer.markEnd })
        }
        require(outputs.allSatisfy { $0 == outputs[0] }, "the sanitizer's out depends on how the text was cut")
    }
    for pieces in [input.feedings[0], input.fewPieces] {
        var markdown = MarkdownRenderer(width: 20 + Int(size % 60), hyperlinks: true)
        var console = PlainTextRenderer(width: 30, colors: true, keepingColors: true, tracksFences: false)
        var written = ""
        for piece in scalarPieces(utf8, pieces) {
            written += markdown.feed(piece)
            written += console.feed(piece)
        }
        written += markdown.finish() + console.finish()
        checkWritten(Array(written.utf8))
    }
    return 0
}

/// The text cut at (about) these byte ranges, each cut moved back to a scalar's start.
func scalarPieces(_ utf8: [UInt8], _ ranges: [Range<Int>]) -> [String] {
    var pieces: [String] = []
    var start = 0
    for range in ranges {
        var end = min(range.upperBound, utf8.count)
        while end < utf8.count && end > start && utf8[end] & 0xC0 == 0x80 { end -= 1 }
        guard end >= start else { continue }
        pieces.append(String(decoding: utf8[start..<end], as: UTF8.self))
        start = end
    }
    if start < utf8.count { pieces.append(String(decoding: utf8[start...], as: UTF8.self)) }
    return pieces
}

func checkSanitized(_ out: [UInt8]) {
    var inMark = false
    for (index, byte) in out.enumerated() {
        switch byte {
        case TerminalSanitizer.markStart:
            require(!inMark, "a mark opens inside a mark at \(index)")
            inMark = true
        case TerminalSanitizer.markEnd:
            require(inMark, "a mark closes that was not open at \(index)")
            inMark = false
        case 0x0A, 0x09: break
        default:
            require(byte >= 0x20 && byte != 0x7F, "control byte \(byte) at \(index)")
            if byte == 0xC2 && index + 1 < out.count { require(out[index + 1] >= 0xA0 || out[index + 1] < 0x80, "a C1 control at \(index)") }
        }
    }
    require(!inMark, "a mark left open")
}

/// Every escape sequence in `out` is one the renderers make.
func checkWritten(_ out: [UInt8]) {
    var index = 0
    while index < out.count {
        let byte = out[index]
        if byte == 0xC2 && index + 1 < out.count { require(out[index + 1] >= 0xA0 || out[index + 1] < 0x80, "a C1 control at \(index)") }
        if byte == 0x0D {
            require(index + 2 < out.count && out[index + 1] == 0x1B && out[index + 2] == 0x5B, "a CR that starts no erase at \(index)")
        } else if byte < 0x20 && byte != 0x0A && byte != 0x1B || byte == 0x7F {
            require(false, "control byte \(byte) written at \(index)")
        }
        guard byte == 0x1B else {
            index += 1
            continue
        }
        require(index + 1 < out.count, "ESC at the end")
        if out[index + 1] == 0x5B {
            var end = index + 2
            while end < out.count && !(0x40...0x7E).contains(out[end]) { end += 1 }
            require(end < out.count, "a CSI without its end")
            let body = Array(out[(index + 2)..<end])
            let final = out[end]
            let digits = body.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
            switch final {
            case 0x6D: require(body == [0x30] || (body.starts(with: [0x30, 0x3B]) && body.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x3B }),
                               "an SGR the renderer does not make: \(body)")
            case 0x4B: require(body.isEmpty, "an erase with parameters: \(body)")
            case 0x43: require(!body.isEmpty && digits, "a cursor move the renderer does not make: \(body)")
            default: require(false, "a CSI ending in \(final)")
            }
            index = end + 1
        } else if out[index + 1] == 0x5D {
            require(out.count >= index + 5 && Array(out[(index + 2)..<(index + 5)]) == [0x38, 0x3B, 0x3B], "an OSC other than 8")
            var end = index + 5
            while end < out.count && out[end] != 0x1B {
                require(out[end] > 0x20 && out[end] < 0x7F, "a link target byte \(out[end])")
                end += 1
            }
            require(end + 1 < out.count && out[end + 1] == 0x5C, "an OSC 8 not ended by ST")
            index = end + 2
        } else {
            require(false, "an escape sequence the renderer does not make: \(out[index + 1])")
        }
    }
}
