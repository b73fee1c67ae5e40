/// Where the inline reader's text goes: words (no spaces in them) and the spaces between.
protocol InlineSink {
    mutating func text(_ bytes: UnsafeBufferPointer<UInt8>, _ attributes: TextAttributes)
    mutating func space(_ count: Int, _ attributes: TextAttributes)
}

/// The inline part of a line of Markdown, read as it streams: `**bold**`, `*italic*`,
/// `~~struck~~`, `` `code` ``, backslash escapes, `[links](…)`, `<autolinks>` and images.
/// Emphasis follows CommonMark's flanking rules (so `2 * 3` and `snake_case` stay as they
/// are); a delimiter is held until the character after it says which way it goes, a link
/// until its `)`. Styles end with the line. Marks of the sanitizer (between 0x01 and 0x02)
/// are drawn inert and never read as Markdown.
struct InlineParser {
    enum CharClass { case space, punctuation, other }

    let theme: Theme
    let hyperlinks: Bool
    private(set) var base: TextAttributes
    private var bold: UInt8 = 0
    private var italic: UInt8 = 0
    private var strike = false
    private var codeTicks = 0
    private var pendingDelimiter: UInt8 = 0
    private var pendingCount = 0
    private var pendingTicks = 0
    private var pendingBang = false
    private var escaped = false
    var previous = CharClass.space
    private var inMark = false
    var link: LinkCollector?
    var attributes: TextAttributes

    init(theme: Theme, hyperlinks: Bool, base: TextAttributes = .plain) {
        self.theme = theme
        self.hyperlinks = hyperlinks
        self.base = base
        attributes = base
    }

    /// A new line starts, in this look.
    mutating func startLine(base: TextAttributes) {
        self.base = base
        bold = 0
        italic = 0
        strike = false
        codeTicks = 0
        previous = .space
        inMark = false
        updateAttributes()
    }

    mutating func feed<Sink: InlineSink>(_ bytes: UnsafeBufferPointer<UInt8>, into sink: inout Sink) {
        var index = 0
        while index < bytes.count {
            if link != nil {
                index = collectLink(bytes, from: index, into: &sink)
                continue
            }
            let byte = bytes[index]
            if inMark {
                index = markText(bytes, from: index, into: &sink)
                continue
            }
            if pendingTicks > 0 {
                if byte == 0x60 {
                    pendingTicks += 1
                    index += 1
                    continue
                }
                resolveTicks(into: &sink)
            }
            if pendingCount > 0 {
                if byte == pendingDelimiter {
                    pendingCount += 1
                    index += 1
                    continue
                }
                resolveDelimiter(next: Self.charClass(byte), into: &sink)
            }
            if pendingBang {
                pendingBang = false
                if byte == 0x5B {
                    link = LinkCollector(image: true)
                    index += 1
                    continue
                }
                literal("!", into: &sink)
            }
            if escaped {
                escaped = false
                if Self.charClass(byte) == .punctuation && byte < 0x80 {
                    let one = UnsafeBufferPointer(rebasing: bytes[index..<index + 1])
                    sink.text(one, attributes)
                    previous = .punctuation
                    index += 1
                    continue
                }
                literal("\\", into: &sink)
            }
            index = special(bytes, at: index, into: &sink)
        }
    }

    /// The line ends: what was held is resolved, styles close.
    mutating func endLine<Sink: InlineSink>(into sink: inout Sink) {
        if link != nil { failLink(into: &sink) }
        if pendingTicks > 0 { resolveTicks(into: &sink) }
        if pendingCount > 0 { resolveDelimiter(next: .space, into: &sink) }
        if pendingBang {
            pendingBang = false
            literal("!", into: &sink)
        }
        if escaped {
            escaped = false
            literal("\\", into: &sink)
        }
        startLine(base: base)
    }

    /// One byte that may mean something, or a run of plain text up to the next such byte.
    private mutating func special<Sink: InlineSink>(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int,
                                                    into sink: inout Sink) -> Int {
        let byte = bytes[index]
        switch byte {
        case 0x20, 0x09:
            sink.space(1, attributes)
            previous = .space
            return index + 1
        case TerminalSanitizer.markStart:
            inMark = true
            previous = .other
            return index + 1
        case 0x60:
            pendingTicks = 1
            return index + 1
        case 0x2A where codeTicks == 0, 0x5F where codeTicks == 0, 0x7E where codeTicks == 0:  // * _ ~
            pendingDelimiter = byte
            pendingCount = 1
            return index + 1
        case 0x5C where codeTicks == 0:
            escaped = true
            return index + 1
        case 0x21 where codeTicks == 0:
            pendingBang = true
            return index + 1
        case 0x5B where codeTicks == 0:
            link = LinkCollector(image: false)
            return index + 1
        case 0x3C where codeTicks == 0:
            link = LinkCollector(autolink: true)
            return index + 1
        default:
            var end = index + 1
            while end < bytes.count && !Self.isSpecial(bytes[end], inCode: codeTicks > 0) { end += 1 }
            sink.text(UnsafeBufferPointer(rebasing: bytes[index..<end]), attributes)
            previous = Self.charClass(bytes[end - 1])
            return end
        }
    }

    @inline(__always)
    static func isSpecial(_ byte: UInt8, inCode: Bool) -> Bool {
        switch byte {
        case 0x20, 0x09, 0x60, TerminalSanitizer.markStart: return true
        case 0x2A, 0x5F, 0x7E, 0x5C, 0x21, 0x5B, 0x3C: return !inCode
        default: return false
        }
    }

    static func charClass(_ byte: UInt8) -> CharClass {
        switch byte {
        case 0x20, 0x09, 0x0A: return .space
        case 0x21...0x2F, 0x3A...0x40, 0x5B...0x60, 0x7B...0x7E: return .punctuation
        default: return .other
        }
    }

    /// Inside a mark: its words inert, up to the byte that ends it.
    private mutating func markText<Sink: InlineSink>(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int,
                                                     into sink: inout Sink) -> Int {
        var index = start
        while index < bytes.count {
            let byte = bytes[index]
            if byte == TerminalSanitizer.markEnd {
                inMark = false
                return index + 1
            }
            if byte == 0x20 {
                sink.space(1, .inertMark)
                index += 1
                continue
            }
            var end = index + 1
            while end < bytes.count && bytes[end] != 0x20 && bytes[end] != TerminalSanitizer.markEnd { end += 1 }
            sink.text(UnsafeBufferPointer(rebasing: bytes[index..<end]), .inertMark)
            index = end
        }
        return index
    }

    mutating func literal<Sink: InlineSink>(_ text: StaticString, into sink: inout Sink) {
        text.withUTF8Buffer { sink.text($0, attributes) }
        previous = .punctuation
    }

    private mutating func literal<Sink: InlineSink>(repeating byte: UInt8, _ count: Int, into sink: inout Sink) {
        let run = [UInt8](repeating: byte, count: count)
        run.withUnsafeBufferPointer { sink.text($0, attributes) }
        previous = .punctuation
    }

    private mutating func resolveTicks<Sink: InlineSink>(into sink: inout Sink) {
        let count = pendingTicks
        pendingTicks = 0
        if codeTicks == 0 {
            codeTicks = count
        } else if codeTicks == count {
            codeTicks = 0
        } else {
            literal(repeating: 0x60, count, into: &sink)
            return
        }
        previous = .punctuation
        updateAttributes()
    }

    /// A run of `*`, `_` or `~` with the characters on both sides known: it opens or closes a
    /// style, or is only text.
    private mutating func resolveDelimiter<Sink: InlineSink>(next: CharClass, into sink: inout Sink) {
        let delimiter = pendingDelimiter
        let count = pendingCount
        pendingCount = 0
        let left = next != .space && (next != .punctuation || previous != .other)
        let right = previous != .space && (previous != .punctuation || next != .other)
        let underscore = delimiter == 0x5F
        let canOpen = underscore ? left && (!right || previous == .punctuation) : left
        let canClose = underscore ? right && (!left || next == .punctuation) : right
        var changed = true
        switch (delimiter, count) {
        case (0x7E, 2):
            if strike && canClose { strike = false } else if !strike && canOpen { strike = true } else { changed = false }
        case (0x7E, _):
            changed = false
        case (_, 1):
            if italic == delimiter && canClose { italic = 0 } else if italic == 0 && canOpen { italic = delimiter } else { changed = false }
        case (_, 2):
            if bold == delimiter && canClose { bold = 0 } else if bold == 0 && canOpen { bold = delimiter } else { changed = false }
        case (_, 3):
            if bold == delimiter && italic == delimiter && canClose {
                bold = 0
                italic = 0
            } else if bold == 0 && italic == 0 && canOpen {
                bold = delimiter
                italic = delimiter
            } else {
                changed = false
            }
        default:
            changed = false
        }
        if changed {
            previous = .punctuation
            updateAttributes()
        } else {
            literal(repeating: delimiter, count, into: &sink)
        }
    }

    private mutating func updateAttributes() {
        var look = base
        if bold != 0 { look.flags.insert(.bold) }
        if italic != 0 { look.flags.insert(.italic) }
        if strike { look.flags.insert(.strike) }
        if codeTicks > 0 { look = look.merged(theme.codeSpan) }
        attributes = look
    }
}
