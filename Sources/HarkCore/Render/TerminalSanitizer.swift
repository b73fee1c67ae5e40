/// The one gate between untrusted text (what a server, an agent, a console, a document or a
/// form sent) and the terminal. Printable text, line feeds and tabs pass; every other control
/// character and every escape sequence (CSI, OSC, DCS and the other strings, two-byte escapes,
/// their C1 forms) comes out as an inert mark that shows what it was (`␛]52;c;cHdu…␇`), never
/// as itself: a reply cannot set the clipboard, retitle the window, move the cursor, hide text
/// behind a link or query the terminal. With `keepingColors` (a build console, whose colours
/// are part of what it says) an SGR sequence is parsed into `TextAttributes` instead, which
/// the renderer writes back as SGR of its own.
///
/// Fed as text arrives: a sequence cut between two pieces is read across them, and a mark
/// shows the same however the text was cut. Marks come out between `markStart` and
/// `markEnd`, two control bytes nothing else lets through, so a renderer draws them dim and
/// the Markdown reader and code tokenizers leave their insides alone.
public struct TerminalSanitizer: Sendable {
    public static let markStart: UInt8 = 0x01
    public static let markEnd: UInt8 = 0x02
    /// Characters of a sequence shown before "…": a clipboard payload of a megabyte is one
    /// short mark, not a screenful.
    static let shownLength = 40
    /// Parameters of a CSI sequence held to decide what it is; a longer one is shown as it goes.
    static let longestCSI = 64

    private enum State: Sendable {
        case ground, escape, escapeIntermediate, csi, string, stringEscape
    }

    public let keepingColors: Bool
    /// The colours a console's SGR set, for the text that follows.
    public private(set) var colors = TextAttributes.plain
    private var state = State.ground
    /// What the current sequence shows so far, not yet given out.
    private var mark: [UInt8] = []
    /// A CSI sequence's parameter and intermediate bytes.
    private var parameters: [UInt8] = []
    /// Characters of the current sequence counted against `shownLength`.
    private var shown = 0
    /// A carriage return at the end of a piece: the first half of CR LF, or a lone one.
    private var pendingReturn = false

    public init(keepingColors: Bool = false) {
        self.keepingColors = keepingColors
    }

    /// Feeds a piece of text: `emit` gets safe bytes (and bracketed marks) in order, `recolor`
    /// the new colours when a console's SGR changes them.
    public mutating func feed(_ text: String, _ emit: (UnsafeBufferPointer<UInt8>) -> Void,
                              recolor: (TextAttributes) -> Void = { _ in }) {
        var text = text
        text.withUTF8 { feed(bytes: $0, emit, recolor: recolor) }
    }

    /// The text ended: a carriage return or a sequence left open is shown as it stands.
    public mutating func finish(_ emit: (UnsafeBufferPointer<UInt8>) -> Void) {
        if pendingReturn {
            pendingReturn = false
            loneReturn(emit)
        }
        if state == .csi { appendShown(parameters) }
        if state == .stringEscape { appendPicture(0x1B) }
        endSequence(emit)
        colors = .plain
    }

    /// Feeds valid UTF-8 (a string's bytes, cut anywhere between scalars).
    mutating func feed(bytes: UnsafeBufferPointer<UInt8>, _ emit: (UnsafeBufferPointer<UInt8>) -> Void,
                       recolor: (TextAttributes) -> Void = { _ in }) {
        var index = 0
        if pendingReturn, !bytes.isEmpty {
            pendingReturn = false
            if bytes[0] != 0x0A { loneReturn(emit) }
        }
        while index < bytes.count {
            if state == .ground {
                let end = Self.safeRun(bytes, from: index)
                if end > index { emit(UnsafeBufferPointer(rebasing: bytes[index..<end])) }
                index = end
                guard index < bytes.count else { break }
            }
            index = step(bytes, at: index, emit, recolor)
        }
        // A long string shows as it comes; a short sequence waits to be read whole.
        if state == .string { flushMark(emit) }
    }

    /// The end of the run of bytes from `start` that pass as they are.
    @inline(__always)
    static func safeRun(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var index = start
        while index < bytes.count {
            let byte = bytes[index]
            if byte >= 0x20 && byte < 0x7F {
                index += 1
            } else if byte >= 0x80 {
                if byte == 0xC2, index + 1 < bytes.count, bytes[index + 1] >= 0x80, bytes[index + 1] < 0xA0 { return index }
                index += 1
            } else if byte == 0x0A || byte == 0x09 {
                index += 1
            } else {
                return index
            }
        }
        return index
    }

    /// Reads the byte (or C1 character) at `index` outside the safe run; returns where to go on.
    private mutating func step(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int,
                               _ emit: (UnsafeBufferPointer<UInt8>) -> Void, _ recolor: (TextAttributes) -> Void) -> Int {
        var byte = bytes[index]
        var length = 1
        // A C1 control is two bytes in UTF-8 (C2 80-9F); it acts as ESC and its 7-bit partner.
        var c1 = false
        if byte == 0xC2, index + 1 < bytes.count, bytes[index + 1] >= 0x80, bytes[index + 1] < 0xA0 {
            byte = bytes[index + 1] - 0x40
            length = 2
            c1 = true
        }
        switch state {
        case .ground:
            if c1 {
                appendPicture(0x1B)
                enterEscape(byte, emit)
                return index + length
            }
            switch byte {
            case 0x1B:
                appendPicture(0x1B)
                state = .escape
            case 0x0D:
                if index + 1 == bytes.count {
                    pendingReturn = true
                } else if bytes[index + 1] != 0x0A {
                    loneReturn(emit)
                }
            default:
                appendPicture(byte)
                endSequence(emit)
            }
            return index + length
        case .escape, .escapeIntermediate:
            if c1 || byte < 0x20 || byte >= 0x7F {
                endSequence(emit)
                return index  // read again as what it is
            }
            if state == .escape {
                enterEscape(byte, emit)
            } else {
                appendShown([byte])
                if byte >= 0x30 { endSequence(emit) }
            }
            return index + 1
        case .csi:
            return csi(byte, c1: c1, at: index, emit, recolor)
        case .string, .stringEscape:
            return string(bytes, byte, c1: c1, at: index, length: length, emit)
        }
    }

    /// After ESC (or its C1 form): `byte` says what kind of sequence follows.
    private mutating func enterEscape(_ byte: UInt8, _ emit: (UnsafeBufferPointer<UInt8>) -> Void) {
        appendShown([byte])
        switch byte {
        case 0x5B:  // [
            state = .csi
            parameters.removeAll(keepingCapacity: true)
        case 0x5D, 0x50, 0x58, 0x5E, 0x5F:  // ] P X ^ _
            state = .string
        case 0x20...0x2F:
            state = .escapeIntermediate
        default:
            endSequence(emit)
        }
    }

    private mutating func csi(_ byte: UInt8, c1: Bool, at index: Int,
                              _ emit: (UnsafeBufferPointer<UInt8>) -> Void, _ recolor: (TextAttributes) -> Void) -> Int {
        if !c1 && byte >= 0x20 && byte < 0x40 {
            parameters.append(byte)
            if parameters.count > Self.longestCSI {
                appendShown(parameters)
                endSequence(emit)
            }
            return index + 1
        }
        if !c1 && byte >= 0x40 && byte < 0x7F {
            if keepingColors && byte == 0x6D && parameters.allSatisfy({ $0 >= 0x30 && $0 <= 0x3B }) {
                colors = colors.applyingSGR(parameters[...])
                recolor(colors)
                mark.removeAll(keepingCapacity: true)
                state = .ground
                shown = 0
            } else {
                appendShown(parameters)
                appendShown([byte])
                endSequence(emit)
            }
            return index + 1
        }
        appendShown(parameters)
        endSequence(emit)
        return index
    }

    /// Inside an OSC, DCS, SOS, PM or APC string: shown (the start of it) until BEL or ST ends
    /// it; a line feed ends it too, so what follows on the next line is never swallowed.
    private mutating func string(_ bytes: UnsafeBufferPointer<UInt8>, _ byte: UInt8, c1: Bool, at index: Int, length: Int,
                                 _ emit: (UnsafeBufferPointer<UInt8>) -> Void) -> Int {
        if state == .stringEscape {
            if !c1 && byte == 0x5C {  // ESC \ ends the string
                appendPicture(0x1B)
                appendShown([0x5C])
                endSequence(emit)
                return index + 1
            }
            // Any other ESC ends the string and starts a sequence of its own.
            endSequence(emit)
            appendPicture(0x1B)
            state = .escape
            return index
        }
        if c1 {
            appendPicture(byte, c1: true)
            if byte == 0x5C { endSequence(emit) }  // ST as one C1 character
            return index + length
        }
        switch byte {
        case 0x07:
            appendPicture(0x07)
            endSequence(emit)
        case 0x1B:
            state = .stringEscape
        case 0x0A:
            endSequence(emit)
            return index
        case 0x00..<0x20, 0x7F:
            appendPicture(byte)
        default:
            let end = min(index + UTF8Scalar.length(lead: byte), bytes.count)
            appendShown(Array(bytes[index..<end]))
            return end
        }
        return index + 1
    }

    // MARK: Marks

    /// A carriage return not followed by a line feed: in a console a progress bar redrawing
    /// its line, shown as a new line; elsewhere a mark, since it could overwrite the line.
    private mutating func loneReturn(_ emit: (UnsafeBufferPointer<UInt8>) -> Void) {
        if keepingColors {
            var newline: UInt8 = 0x0A
            withUnsafePointer(to: &newline) { emit(UnsafeBufferPointer(start: $0, count: 1)) }
        } else {
            appendPicture(0x0D)
            endSequence(emit)
        }
    }

    /// A control character as its picture: C0 as U+2400…, DEL as ␡, C1 as ␛ and its partner.
    private mutating func appendPicture(_ byte: UInt8, c1: Bool = false) {
        if c1 {
            appendPicture(0x1B)
            appendShown([byte])
            return
        }
        let scalar: UInt32 = byte == 0x7F ? 0x2421 : 0x2400 + UInt32(byte)
        appendShown([0xE2, 0x90 | UInt8(scalar >> 6 & 0x0F), 0x80 | UInt8(scalar & 0x3F)])
    }

    /// Adds what a sequence shows, up to `shownLength` characters and then one "…".
    private mutating func appendShown(_ text: [UInt8]) {
        for byte in text where byte & 0xC0 != 0x80 {
            shown += 1
            if shown == Self.shownLength + 1 { mark += [0xE2, 0x80, 0xA6] }  // …
        }
        if shown <= Self.shownLength { mark += text }
    }

    /// Gives out what the current mark shows so far, bracketed.
    private mutating func flushMark(_ emit: (UnsafeBufferPointer<UInt8>) -> Void) {
        guard !mark.isEmpty else { return }
        mark.insert(Self.markStart, at: 0)
        mark.append(Self.markEnd)
        mark.withUnsafeBufferPointer { emit($0) }
        mark.removeAll(keepingCapacity: true)
    }

    /// The sequence is over: what it shows goes out, and text follows.
    private mutating func endSequence(_ emit: (UnsafeBufferPointer<UInt8>) -> Void) {
        flushMark(emit)
        state = .ground
        shown = 0
    }
}
