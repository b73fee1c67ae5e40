/// One line of a Markdown reply as it should sound: markers, link targets and URLs removed,
/// table pipes turned into pauses. A prefix of a line gives a prefix of the full line's result
/// (up to its last, possibly unfinished, word), so a line can be spoken before it ends.
enum SpeakableText {
    /// What a line starts with, once enough of it has arrived to tell.
    enum LineStart: Equatable {
        /// Too little of the line to tell ("-" may become a list item or a rule).
        case undecided
        /// A heading, list item, quote or table row: it starts a sentence of its own.
        case block
        case fence
        case text
    }

    static func lineStart(_ line: Substring) -> LineStart {
        let body = line.drop(while: { $0 == " " || $0 == "\t" })
        guard let first = body.first else { return .undecided }
        if first == "`" || first == "~" {
            let run = body.prefix(while: { $0 == first })
            if run.count >= 3 { return .fence }
            if run.count == body.count { return .undecided }
            return .text
        }
        if first == "#" || first == ">" || first == "|" { return .block }
        if "-*+".contains(first) {
            guard body.count > 1 else { return .undecided }
            return body.dropFirst().first == " " ? .block : .text
        }
        if first.isNumber {
            let digits = body.prefix(while: { $0.isNumber })
            let rest = body.dropFirst(digits.count)
            guard let mark = rest.first else { return .undecided }
            guard mark == "." || mark == ")" else { return .text }
            guard rest.count > 1 else { return .undecided }
            return rest.dropFirst().first == " " ? .block : .text
        }
        return .text
    }

    /// The words of a line to speak.
    static func line(_ raw: Substring) -> String {
        var body = Substring(raw.drop(while: { $0 == " " || $0 == "\t" }))
        if isRule(body) { return "" }
        // Block markers at the start: headings, quotes, list bullets and numbers, task boxes.
        if body.first == "#" {
            body = body.drop(while: { $0 == "#" })
            while body.last == "#" || body.last == " " { body = body.dropLast() }
        }
        while body.first == ">" { body = body.dropFirst().drop(while: { $0 == " " }) }
        if let first = body.first, "-*+".contains(first), body.dropFirst().first == " " {
            body = body.dropFirst(2)
        } else if body.first?.isNumber == true {
            let digits = body.prefix(while: { $0.isNumber })
            let rest = body.dropFirst(digits.count)
            if let mark = rest.first, mark == "." || mark == ")", rest.dropFirst().first == " " {
                // Keep the number: "1. Open the file" reads as "1: Open the file".
                body = Substring(String(digits) + ": ") + rest.dropFirst(2)
            }
        }
        for box in ["[ ] ", "[x] ", "[X] "] where body.hasPrefix(box) { body = body.dropFirst(box.count) }
        if body.first == "|" {
            if body.allSatisfy({ "|-: ".contains($0) }) { return "" }
            body = Substring(body.split(separator: "|").map { $0.trimmingSpaces }.filter { !$0.isEmpty }.joined(separator: ", "))
        }
        return collapse(inline(body))
    }

    /// `---`, `***`, `___`: a thematic break, nothing to say.
    static func isRule(_ body: Substring) -> Bool {
        let marks = body.filter { $0 != " " }
        guard let first = marks.first, "-*_".contains(first), marks.count >= 3 else { return false }
        return marks.allSatisfy { $0 == first }
    }

    /// Inline Markdown to words: links keep their text, URLs become "link", code keeps its
    /// text without backticks, emphasis marks go.
    static func inline(_ text: Substring) -> String {
        var out = ""
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            let rest = text[index...]
            // ![alt](url) and [text](url): the text only.
            if character == "[" || (character == "!" && text.index(after: index) < text.endIndex && text[text.index(after: index)] == "[") {
                let open = character == "!" ? text.index(after: index) : index
                if let close = text[open...].firstIndex(of: "]"), text.index(after: close) < text.endIndex,
                   text[text.index(after: close)] == "(" {
                    let label = text[text.index(after: open)..<close]
                    if let end = text[close...].firstIndex(of: ")") {
                        out += label
                        index = text.index(after: end)
                        continue
                    }
                    // The target has not fully arrived: say the label, drop the rest for now.
                    out += label
                    return out
                }
            }
            if character == "<", let end = rest.firstIndex(of: ">") {
                let tag = text[text.index(after: index)..<end]
                if isURL(tag) {
                    out += "link"
                    index = text.index(after: end)
                    continue
                }
                if tag.first.map({ $0.isLetter || $0 == "/" }) == true, !tag.contains(" ") || tag.first == "/" {
                    out += " "  // an HTML tag such as <br>
                    index = text.index(after: end)
                    continue
                }
            }
            if (index == text.startIndex || text[text.index(before: index)].isWhitespace || text[text.index(before: index)] == "("),
               isURL(rest) {
                // Up to whitespace; closing punctuation after it still belongs to the sentence.
                var end = rest.firstIndex(where: { $0.isWhitespace }) ?? text.endIndex
                while end > index, ".,;:!?)\"'".contains(text[text.index(before: end)]) { end = text.index(before: end) }
                out += "link"
                index = end
                continue
            }
            switch character {
            case "*", "`", "~":
                break
            case "_":
                // Emphasis, not the underscore inside snake_case.
                let before = index > text.startIndex ? text[text.index(before: index)] : " "
                let afterIndex = text.index(after: index)
                let after = afterIndex < text.endIndex ? text[afterIndex] : " "
                if before.isLetter || before.isNumber, after.isLetter || after.isNumber { out.append(" ") }
            case "\\":
                break
            default:
                out.append(character)
            }
            index = text.index(after: index)
        }
        return out
    }

    static func isURL(_ text: Substring) -> Bool {
        text.hasPrefix("http://") || text.hasPrefix("https://") || text.hasPrefix("www.") || text.hasPrefix("ftp://")
            || text.hasPrefix("mailto:")
    }

    /// Runs of whitespace to one space, none at the start. One trailing space is kept: it
    /// tells that the last word (and a sentence ending with it) is complete.
    static func collapse(_ text: String) -> String {
        var out = ""
        var pendingSpace = false
        for character in text {
            if character.isWhitespace {
                pendingSpace = !out.isEmpty
            } else {
                if pendingSpace { out.append(" ") }
                pendingSpace = false
                out.append(character)
            }
        }
        if pendingSpace { out.append(" ") }
        return out
    }
}
