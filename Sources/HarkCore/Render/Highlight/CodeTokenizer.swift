/// Cuts a line of code into tokens for colouring, one language's rules at a time, as the line
/// streams in. Fed the line so far, it returns the token at a position and whether it is
/// `open`: the line's known end cut it, and more text could change it (`ret` may become
/// `return`). Comments, multi-line strings and marks are carried over (a line may end
/// inside them); any other open token is read again when more of the line has come.
struct CodeTokenizer: Sendable {
    struct Token: Equatable {
        var end: Int
        var kind: TokenKind
        var open: Bool
        /// Open, yet settled as far as it goes: a comment or string that goes on past the
        /// line's known end (its colour is known; its text may only grow).
        var carries = false
    }

    enum State: Equatable, Sendable {
        case normal
        /// Inside a mark of the sanitizer (0x01 … 0x02).
        case mark
        case lineComment
        case blockComment(depth: Int)
        /// Inside a multi-line string, by its index in the language's forms.
        case string(Int)
        /// The rest of the line has one look (a diff's added line).
        case wholeLine(TokenKind)
    }

    let language: Language?
    var state = State.normal
    /// Something other than spaces came on this line (rules for a line's first word).
    var sawText = false
    /// CSS: inside a rule's braces, where names before a colon are properties.
    var braceDepth = 0
    /// Markup: between a tag's `<` and `>`.
    var inTag = false
    /// What a mark interrupted, to go back to after it.
    private var afterMark = State.normal
    /// YAML: the line so far is a list item's `- `, after which a key may come.
    var lastWasListMarker = false

    init(language: Language?) {
        self.language = language
    }

    /// The line ended: what lasts only to its end (a line comment, a diff line) ends.
    mutating func endLine() {
        switch state {
        case .lineComment, .wholeLine: state = .normal
        case .mark: state = afterMark == .lineComment || afterMark == .normal ? .normal : afterMark
        default: break
        }
        sawText = false
        lastWasListMarker = false
        if case .string(let form) = state, language?.strings[form].multiline == false { state = .normal }
    }

    mutating func next(_ line: UnsafeBufferPointer<UInt8>, from start: Int, complete: Bool) -> Token {
        if state == .mark {
            guard let close = Self.find(TerminalSanitizer.markEnd, in: line, from: start) else {
                return Token(end: line.count, kind: .inert, open: true, carries: true)
            }
            state = afterMark
            return Token(end: close + 1, kind: .inert, open: false)
        }
        if line[start] == TerminalSanitizer.markStart {
            afterMark = state
            state = .mark
            return next(line, from: start, complete: complete)
        }
        switch state {
        case .lineComment:
            return plainUntilMark(line, from: start, kind: .comment)
        case .wholeLine(let kind):
            return plainUntilMark(line, from: start, kind: kind)
        case .blockComment(let depth):
            return blockComment(line, from: start, depth: depth, complete: complete)
        case .string(let form):
            return multilineString(line, from: start, form: form, complete: complete)
        case .normal, .mark:
            break
        }
        let byte = line[start]
        if byte == 0x20 || byte == 0x09 {
            var end = start + 1
            while end < line.count && (line[end] == 0x20 || line[end] == 0x09) { end += 1 }
            return Token(end: end, kind: .plain, open: false)
        }
        guard let language else { return plainUntilMark(line, from: start, kind: .plain) }
        defer { sawText = true }
        switch language.shape {
        case .code: return code(line, from: start, complete: complete, language)
        case .diff: return diffLine(line, from: start, complete: complete)
        case .markdown: return markdownLine(line, from: start, complete: complete, language)
        case .markup: return markup(line, from: start, complete: complete, language)
        }
    }

    // MARK: Shared pieces

    static func find(_ byte: UInt8, in line: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var index = start
        while index < line.count {
            if line[index] == byte { return index }
            index += 1
        }
        return nil
    }

    static func matches(_ line: UnsafeBufferPointer<UInt8>, at index: Int, _ text: [UInt8]) -> Bool {
        guard index + text.count <= line.count else { return false }
        for offset in 0..<text.count where line[index + offset] != text[offset] { return false }
        return true
    }

    /// The line from `index` could still become `text` when more of it comes.
    static func couldBecome(_ line: UnsafeBufferPointer<UInt8>, at index: Int, _ text: [UInt8]) -> Bool {
        let available = line.count - index
        guard available < text.count else { return false }
        for offset in 0..<available where line[index + offset] != text[offset] { return false }
        return true
    }

    /// Text of one look up to the end of the line or the next mark.
    private func plainUntilMark(_ line: UnsafeBufferPointer<UInt8>, from start: Int, kind: TokenKind) -> Token {
        let end = Self.find(TerminalSanitizer.markStart, in: line, from: start) ?? line.count
        if end == start { return Token(end: start + 1, kind: kind, open: false) }
        return Token(end: end, kind: kind, open: false)
    }

    static func isNameStart(_ byte: UInt8) -> Bool {
        (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || byte == 0x5F || byte >= 0x80
    }

    static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    static func isName(_ byte: UInt8, extra: [UInt8]) -> Bool {
        isNameStart(byte) || isDigit(byte) || extra.contains(byte)
    }

    private mutating func blockComment(_ line: UnsafeBufferPointer<UInt8>, from start: Int, depth: Int, complete: Bool) -> Token {
        guard let comment = language?.blockComment else {
            state = .normal
            return Token(end: line.count, kind: .comment, open: false)
        }
        var index = start
        var depth = depth
        while index < line.count {
            if line[index] == TerminalSanitizer.markStart {
                state = .blockComment(depth: depth)
                return Token(end: index, kind: .comment, open: false)
            }
            if Self.matches(line, at: index, comment.close) {
                index += comment.close.count
                depth -= 1
                if depth == 0 {
                    state = .normal
                    return Token(end: index, kind: .comment, open: false)
                }
                continue
            }
            if language?.nestedComments == true && Self.matches(line, at: index, comment.open) {
                index += comment.open.count
                depth += 1
                continue
            }
            index += 1
        }
        state = .blockComment(depth: depth)
        var delimiters = [comment.close]
        if language?.nestedComments == true { delimiters.append(comment.open) }
        return Self.carried(line, from: start, kind: .comment, holding: complete ? 0 : Self.heldTail(line, from: start, delimiters))
    }

    /// A comment or string that reached the line's known end: settled up to the bytes that may
    /// be the start of its closing delimiter (held until they are known), or, when nothing
    /// else is there, open as a whole.
    static func carried(_ line: UnsafeBufferPointer<UInt8>, from start: Int, kind: TokenKind, holding held: Int) -> Token {
        let end = line.count - held
        if end > start { return Token(end: end, kind: kind, open: true, carries: true) }
        return Token(end: line.count, kind: kind, open: true)
    }

    /// How many bytes at the line's end, after `start`, begin one of the delimiters.
    static func heldTail(_ line: UnsafeBufferPointer<UInt8>, from start: Int, _ delimiters: [[UInt8]]) -> Int {
        var held = 0
        for delimiter in delimiters where delimiter.count > 1 {
            for length in stride(from: min(delimiter.count - 1, line.count - start), through: 1, by: -1) {
                if (0..<length).allSatisfy({ line[line.count - length + $0] == delimiter[$0] }) {
                    held = max(held, length)
                    break
                }
            }
        }
        return held
    }

    /// A string from its opening quote (or from where an earlier line left it): to its close,
    /// or to the line's end.
    /// Where the string from `start` ends, whether its close was there, and, when not, how
    /// many bytes at the end must wait (a backslash, or the start of a close of several).
    func stringBody(_ line: UnsafeBufferPointer<UInt8>, from start: Int, form: Language.StringForm) -> (end: Int, closed: Bool, held: Int) {
        var index = start
        while index < line.count {
            let byte = line[index]
            if byte == TerminalSanitizer.markStart { return (index, false, 0) }
            if form.escapes && byte == 0x5C {
                if index + 1 == line.count { return (line.count, false, 1) }
                index += line[index + 1] == TerminalSanitizer.markStart ? 1 : 2
                continue
            }
            if Self.matches(line, at: index, form.close) { return (index + form.close.count, true, 0) }
            index += 1
        }
        return (min(index, line.count), false, Self.heldTail(line, from: start, [form.close]))
    }

    private mutating func multilineString(_ line: UnsafeBufferPointer<UInt8>, from start: Int, form index: Int, complete: Bool) -> Token {
        guard let form = language?.strings[index] else {
            state = .normal
            return Token(end: line.count, kind: .string, open: false)
        }
        let (end, closed, held) = stringBody(line, from: start, form: form)
        if closed { state = .normal }
        // Cut by a mark, the string goes on after it; cut by the line's end, on the next line.
        if !closed && end == line.count { return Self.carried(line, from: start, kind: .string, holding: complete ? 0 : held) }
        return Token(end: end, kind: .string, open: false)
    }
}
