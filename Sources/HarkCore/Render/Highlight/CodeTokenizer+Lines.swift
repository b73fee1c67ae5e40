/// Diffs and Markdown, whose lines are coloured by how they start, and markup's tags.
extension CodeTokenizer {
    static let diffHeaders: [[UInt8]] = ["+++ ", "--- ", "diff ", "index ", "new file", "deleted file", "similarity", "rename ",
                                         "old mode", "new mode"].map { Array($0.utf8) }

    mutating func diffLine(_ line: UnsafeBufferPointer<UInt8>, from start: Int, complete: Bool) -> Token {
        guard start == 0 else { return lineRest(line, from: start, kind: .plain) }
        for header in Self.diffHeaders {
            if Self.matches(line, at: 0, header) { return lineRest(line, from: 0, kind: .header) }
            if !complete && Self.couldBecome(line, at: 0, header) { return Token(end: line.count, kind: .plain, open: true) }
        }
        switch line[0] {
        case 0x2B: return lineRest(line, from: 0, kind: .added)
        case 0x2D: return lineRest(line, from: 0, kind: .removed)
        case 0x40 where Self.matches(line, at: 0, Array("@@".utf8)): return lineRest(line, from: 0, kind: .hunk)
        case 0x40 where !complete && line.count == 1: return Token(end: 1, kind: .plain, open: true)
        default: return lineRest(line, from: 0, kind: .plain)
        }
    }

    /// The rest of the line in one look (up to a mark, after which it goes on).
    private mutating func lineRest(_ line: UnsafeBufferPointer<UInt8>, from start: Int, kind: TokenKind) -> Token {
        state = .wholeLine(kind)
        return next(line, from: start, complete: true)
    }

    mutating func markdownLine(_ line: UnsafeBufferPointer<UInt8>, from start: Int, complete: Bool, _ language: Language) -> Token {
        let byte = line[start]
        let count = line.count
        if !sawText {
            switch byte {
            case 0x23: return lineRest(line, from: start, kind: .heading)
            case 0x3E: return lineRest(line, from: start, kind: .comment)
            case 0x60, 0x7E:
                let fence = [UInt8](repeating: byte, count: 3)
                if Self.matches(line, at: start, fence) { return lineRest(line, from: start, kind: .string) }
                if !complete && Self.couldBecome(line, at: start, fence) { return Token(end: count, kind: .plain, open: true) }
            case 0x2D, 0x2A, 0x2B:
                if start + 1 == count && !complete { return Token(end: count, kind: .plain, open: true) }
                if start + 1 < count && line[start + 1] == 0x20 { return Token(end: start + 1, kind: .keyword, open: false) }
            default:
                if Self.isDigit(byte) {
                    var end = start
                    while end < count && Self.isDigit(line[end]) { end += 1 }
                    if end == count && !complete { return Token(end: count, kind: .plain, open: true) }
                    if end < count && (line[end] == 0x2E || line[end] == 0x29) { return Token(end: end + 1, kind: .keyword, open: false) }
                }
            }
        }
        if byte == 0x60 {
            guard let close = Self.find(0x60, in: line, from: start + 1) else { return Token(end: count, kind: .plain, open: !complete) }
            return Token(end: close + 1, kind: .string, open: false)
        }
        var end = start + 1
        while end < count && line[end] != 0x60 && line[end] != 0x20 && line[end] != TerminalSanitizer.markStart { end += 1 }
        return Token(end: end, kind: .plain, open: false)
    }

    mutating func markup(_ line: UnsafeBufferPointer<UInt8>, from start: Int, complete: Bool, _ language: Language) -> Token {
        let byte = line[start]
        let count = line.count
        let open = Token(end: count, kind: .plain, open: true)
        let commentOpen = Array("<!--".utf8)
        if Self.matches(line, at: start, commentOpen) {
            state = .blockComment(depth: 1)
            guard start + 4 < count else { return Token(end: count, kind: .comment, open: true, carries: true) }
            let rest = next(line, from: start + 4, complete: complete)
            return Token(end: rest.end, kind: .comment, open: rest.open, carries: rest.carries)
        }
        if !complete && Self.couldBecome(line, at: start, commentOpen) { return open }
        if inTag {
            switch byte {
            case 0x3E:
                inTag = false
                return Token(end: start + 1, kind: .tag, open: false)
            case 0x2F, 0x3F:
                if start + 1 == count && !complete { return open }
                if start + 1 < count && line[start + 1] == 0x3E {
                    inTag = false
                    return Token(end: start + 2, kind: .tag, open: false)
                }
            case 0x22, 0x27:
                guard let close = Self.find(byte, in: line, from: start + 1) else { return Token(end: count, kind: .string, open: !complete) }
                return Token(end: close + 1, kind: .string, open: false)
            default:
                if Self.isNameStart(byte) {
                    var end = start + 1
                    while end < count && Self.isName(line[end], extra: Array("-:.".utf8)) { end += 1 }
                    return Token(end: end, kind: .type, open: end == count && !complete)
                }
            }
            return Token(end: start + 1, kind: .plain, open: false)
        }
        if byte == 0x3C {
            var end = start + 1
            if end < count && (line[end] == 0x2F || line[end] == 0x21 || line[end] == 0x3F) { end += 1 }
            while end < count && Self.isName(line[end], extra: Array("-:.".utf8)) { end += 1 }
            if end == count && !complete { return open }
            guard end > start + 1 else { return Token(end: start + 1, kind: .plain, open: false) }
            inTag = true
            return Token(end: end, kind: .tag, open: false)
        }
        if byte == 0x26 {
            var end = start + 1
            while end < count && end - start < 12 && line[end] != 0x3B && Self.isName(line[end], extra: Array("#".utf8)) { end += 1 }
            if end == count && !complete { return open }
            if end < count && line[end] == 0x3B { return Token(end: end + 1, kind: .literal, open: false) }
            return Token(end: start + 1, kind: .plain, open: false)
        }
        var end = start + 1
        while end < count && line[end] != 0x3C && line[end] != 0x26 && line[end] != TerminalSanitizer.markStart { end += 1 }
        return Token(end: end, kind: .plain, open: false)
    }
}
