/// The tokenizer's rules for each shape of language: code, diffs, Markdown and markup.
extension CodeTokenizer {
    mutating func code(_ line: UnsafeBufferPointer<UInt8>, from start: Int, complete: Bool, _ language: Language) -> Token {
        let byte = line[start]
        let count = line.count
        let following: UInt8? = start + 1 < count ? line[start + 1] : nil
        let open = Token(end: count, kind: .plain, open: true)
        for marker in language.lineComments {
            if Self.matches(line, at: start, marker) {
                // A shell's `#` starts a comment only at a word's start (`$#`, `a#b` are not).
                if language.variables && start > 0 && line[start - 1] != 0x20 && line[start - 1] != 0x09 { continue }
                state = .lineComment
                return next(line, from: start, complete: complete)
            }
            if !complete && marker.count > 1 && Self.couldBecome(line, at: start, marker) { return open }
        }
        if let comment = language.blockComment {
            if Self.matches(line, at: start, comment.open) {
                state = .blockComment(depth: 1)
                guard start + comment.open.count < count else { return Token(end: count, kind: .comment, open: true, carries: true) }
                let rest = next(line, from: start + comment.open.count, complete: complete)
                return Token(end: rest.end, kind: .comment, open: rest.open, carries: rest.carries)
            }
            if !complete && Self.couldBecome(line, at: start, comment.open) { return open }
        }
        if language.sectionHeaders && !sawText && byte == 0x5B {
            guard let close = Self.find(0x5D, in: line, from: start) else { return complete ? plainRest(line, start) : open }
            return Token(end: close + 1, kind: .type, open: false)
        }
        if !sawText || lastWasListMarker, let key = lineKey(line, from: start, complete: complete, language) { return key }
        lastWasListMarker = language.keys == .namesBeforeColon && !sawText && byte == 0x2D && following == 0x20
        if language.lifetimes && byte == 0x27, let lifetime = self.lifetime(line, from: start, complete: complete) { return lifetime }
        switch stringStart(line, at: start, complete: complete, language) {
        case .form(let index):
            return string(line, from: start, bodyStart: start + language.strings[index].open.count, form: index,
                          complete: complete, language)
        case .undecided: return open
        case .none: break
        }
        if language.variables && byte == 0x24 { return variable(line, from: start, complete: complete) }
        if language.atAttributes && byte == 0x40, let following, Self.isNameStart(following) {
            return name(line, from: start + 1, complete: complete, kind: .attribute, extra: Array(".".utf8))
        }
        if language.hashDirectives && byte == 0x23 && (!sawText || following == 0x5B || following == 0x21) {
            if following == 0x5B || following == 0x21 {
                guard let close = Self.find(0x5D, in: line, from: start) else { return complete ? plainRest(line, start) : open }
                return Token(end: close + 1, kind: .attribute, open: false)
            }
            return name(line, from: start + 1, complete: complete, kind: .attribute, extra: [])
        }
        if Self.isDigit(byte) || (byte == 0x2E && following.map(Self.isDigit) == true) {
            var end = start + 1
            while end < count && (Self.isName(line[end], extra: []) || line[end] == 0x2E) { end += 1 }
            return Token(end: end, kind: .number, open: end == count && !complete)
        }
        if byte == 0x2D && language.nameCharacters.contains(0x2D) && (start == 0 || line[start - 1] == 0x20) {
            var end = start + 1
            while end < count && line[end] != 0x20 && line[end] != 0x09 && line[end] != TerminalSanitizer.markStart { end += 1 }
            return Token(end: end, kind: .plain, open: end == count && !complete)
        }
        if Self.isNameStart(byte) { return word(line, from: start, complete: complete, language) }
        if language.keys == .properties {
            if byte == 0x7B { braceDepth += 1 }
            if byte == 0x7D { braceDepth = max(0, braceDepth - 1) }
        }
        return Token(end: start + 1, kind: .plain, open: false)
    }

    private func plainRest(_ line: UnsafeBufferPointer<UInt8>, _ start: Int) -> Token {
        let end = Self.find(TerminalSanitizer.markStart, in: line, from: start) ?? line.count
        return Token(end: max(end, start + 1), kind: .plain, open: false)
    }

    enum StringStart { case form(Int), undecided, none }

    /// The string form whose opening quote is at `start`, longest first (`"""` before `"`);
    /// undecided while the line's known end leaves a longer one possible.
    private func stringStart(_ line: UnsafeBufferPointer<UInt8>, at start: Int, complete: Bool, _ language: Language) -> StringStart {
        for (index, form) in language.strings.enumerated() {
            if Self.matches(line, at: start, form.open) { return .form(index) }
            if !complete && Self.couldBecome(line, at: start, form.open) { return .undecided }
        }
        return .none
    }

    private mutating func string(_ line: UnsafeBufferPointer<UInt8>, from start: Int, bodyStart: Int, form index: Int,
                                 complete: Bool, _ language: Language) -> Token {
        let form = language.strings[index]
        let (end, closed, held) = stringBody(line, from: bodyStart, form: form)
        guard closed else {
            if end < line.count {
                state = .string(index)
                return Token(end: end, kind: .string, open: false)
            }
            if form.multiline && !complete {
                state = .string(index)
                return Self.carried(line, from: start, kind: .string, holding: held)
            }
            if form.multiline { state = .string(index) }
            return Token(end: line.count, kind: .string, open: !complete)
        }
        guard language.keys == .stringsBeforeColon else { return Token(end: end, kind: .string, open: false) }
        var after = end
        while after < line.count && (line[after] == 0x20 || line[after] == 0x09) { after += 1 }
        if after == line.count { return Token(end: end, kind: .string, open: !complete) }
        return Token(end: end, kind: line[after] == 0x3A ? .key : .string, open: false)
    }

    /// A name, as a keyword, a type, a literal, a builtin, a key, or plain.
    private mutating func word(_ line: UnsafeBufferPointer<UInt8>, from start: Int, complete: Bool, _ language: Language) -> Token {
        var end = start + 1
        while end < line.count && Self.isName(line[end], extra: language.nameCharacters) { end += 1 }
        let open = end == line.count && !complete
        // Python's f"…", r"…", b"…": the prefix belongs to the string.
        if end - start <= 2, end < line.count, (start..<end).allSatisfy({ language.stringPrefixes.contains(line[$0]) }) {
            switch stringStart(line, at: end, complete: complete, language) {
            case .form(let index):
                return string(line, from: start, bodyStart: end + language.strings[index].open.count, form: index,
                              complete: complete, language)
            case .undecided: return Token(end: line.count, kind: .plain, open: true)
            case .none: break
            }
        }
        if language.keys == .properties && braceDepth > 0 {
            var after = end
            while after < line.count && line[after] == 0x20 { after += 1 }
            if after == line.count && !complete { return Token(end: end, kind: .plain, open: true) }
            if after < line.count && line[after] == 0x3A { return Token(end: end, kind: .key, open: false) }
        }
        return Token(end: end, kind: classify(UnsafeBufferPointer(rebasing: line[start..<end]), language), open: open)
    }

    private func classify(_ word: UnsafeBufferPointer<UInt8>, _ language: Language) -> TokenKind {
        if language.caseInsensitive {
            guard word.count <= 32 else { return .plain }
            var lower = [UInt8](repeating: 0, count: word.count)
            for index in 0..<word.count { lower[index] = word[index] >= 0x41 && word[index] <= 0x5A ? word[index] + 32 : word[index] }
            return lower.withUnsafeBufferPointer { classifyExact($0, language) }
        }
        return classifyExact(word, language)
    }

    private func classifyExact(_ word: UnsafeBufferPointer<UInt8>, _ language: Language) -> TokenKind {
        if language.keywords.contains(word) { return .keyword }
        if language.literals.contains(word) { return .literal }
        if language.types.contains(word) { return .type }
        if language.builtins.contains(word) { return .builtin }
        if language.capitalizedTypes && word[0] >= 0x41 && word[0] <= 0x5A { return .type }
        return .plain
    }

    private func name(_ line: UnsafeBufferPointer<UInt8>, from start: Int, complete: Bool, kind: TokenKind, extra: [UInt8]) -> Token {
        var end = start
        while end < line.count && Self.isName(line[end], extra: extra) { end += 1 }
        return Token(end: end, kind: kind, open: end == line.count && !complete)
    }

    /// YAML's `name:` and TOML's `name =` at the start of a line: the name is a key.
    private func lineKey(_ line: UnsafeBufferPointer<UInt8>, from start: Int, complete: Bool, _ language: Language) -> Token? {
        let separator: UInt8
        switch language.keys {
        case .namesBeforeColon: separator = 0x3A
        case .namesBeforeEquals: separator = 0x3D
        default: return nil
        }
        let first = line[start]
        guard first != 0x22 && first != 0x27 && first != 0x23 && first != 0x5B && first != 0x2D else { return nil }
        var index = start
        while index < line.count {
            let byte = line[index]
            if byte == TerminalSanitizer.markStart { return nil }
            if byte == 0x23 && index > start && line[index - 1] == 0x20 { return nil }
            if byte == separator {
                if separator == 0x3A {
                    if index + 1 == line.count && !complete { return Token(end: line.count, kind: .plain, open: true) }
                    guard index + 1 == line.count || line[index + 1] == 0x20 || line[index + 1] == 0x09 else {
                        index += 1
                        continue
                    }
                }
                var end = index
                while end > start && line[end - 1] == 0x20 { end -= 1 }
                return end > start ? Token(end: end, kind: .key, open: false) : nil
            }
            index += 1
        }
        return complete ? nil : Token(end: line.count, kind: .plain, open: true)
    }

    /// Rust's `'a` (a lifetime or label), or nil for a character literal.
    private func lifetime(_ line: UnsafeBufferPointer<UInt8>, from start: Int, complete: Bool) -> Token? {
        guard start + 2 < line.count else { return complete ? nil : Token(end: line.count, kind: .plain, open: true) }
        let next = line[start + 1]
        guard next != 0x5C, line[start + 2] != 0x27, Self.isNameStart(next) else { return nil }
        return name(line, from: start + 1, complete: complete, kind: .attribute, extra: [])
    }

    /// A shell's `$name`, `${…}`, `$(`, `$?`.
    private func variable(_ line: UnsafeBufferPointer<UInt8>, from start: Int, complete: Bool) -> Token {
        guard start + 1 < line.count else { return Token(end: line.count, kind: .plain, open: !complete) }
        let next = line[start + 1]
        if next == 0x7B {
            guard let close = Self.find(0x7D, in: line, from: start) else { return Token(end: line.count, kind: .variable, open: !complete) }
            return Token(end: close + 1, kind: .variable, open: false)
        }
        if next == 0x28 { return Token(end: start + 2, kind: .variable, open: false) }
        if Self.isNameStart(next) { return name(line, from: start + 1, complete: complete, kind: .variable, extra: []) }
        if Self.isDigit(next) || "?#@*!$-".utf8.contains(next) { return Token(end: start + 2, kind: .variable, open: false) }
        return Token(end: start + 1, kind: .plain, open: false)
    }
}
