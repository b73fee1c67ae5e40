/// Light Markdown for a terminal, rendered as the text streams in: headings, **bold**,
/// `code`, bullet lists, block quotes and fenced code blocks. It holds back only the few
/// characters it needs to decide (a `#` at a line start, a lone `*`), so text still appears
/// as it arrives. Used only when colours are on; pipes get the text exactly as received.
public struct MarkdownRenderer {
    private let ansi: ANSI
    private var atLineStart = true
    private var lineStart = ""
    private var inFence = false
    private var fenceMarker = ""
    private var inHeading = false
    private var bold = false
    private var code = false
    private var pendingStar = false
    private var fenceLine = false

    public init(ansi: ANSI) {
        self.ansi = ansi
    }

    /// Ends every style; nothing when colours are off.
    private var reset: String { ansi.enabled ? ANSI.reset : "" }

    public mutating func feed(_ text: String) -> String {
        var out = ""
        for character in text { consume(character, into: &out) }
        return out
    }

    /// The reply ended: flush what was held back and close open styles.
    public mutating func finish() -> String {
        var out = ""
        if !lineStart.isEmpty {
            let held = lineStart
            lineStart = ""
            atLineStart = false
            emitLineStart(held, into: &out)
        }
        if pendingStar {
            out += "*"
            pendingStar = false
        }
        if bold || code || inHeading || inFence { out += reset }
        bold = false
        code = false
        inHeading = false
        return out
    }

    private mutating func consume(_ character: Character, into out: inout String) {
        if character == "\n" {
            if !lineStart.isEmpty {
                let held = lineStart
                lineStart = ""
                emitLineStart(held, into: &out)
            }
            endLine(into: &out)
            out += "\n"
            atLineStart = true
            return
        }
        if atLineStart {
            lineStart.append(character)
            if Self.couldBeMarker(lineStart) { return }
            let held = lineStart
            lineStart = ""
            atLineStart = false
            emitLineStart(held, into: &out)
            return
        }
        inline(character, into: &out)
    }

    /// True while the start of a line may still turn out to be a block marker.
    static func couldBeMarker(_ text: String) -> Bool {
        let body = text.drop(while: { $0 == " " })
        if text.count - body.count > 6 { return false }
        if body.isEmpty { return true }
        if body.allSatisfy({ $0 == "#" }) && body.count <= 6 { return true }
        if "```".hasPrefix(body) || "~~~".hasPrefix(body) { return true }
        if body == "-" || body == "*" || body == "+" || body == ">" { return true }
        if body.allSatisfy({ $0.isNumber }) && body.count <= 3 { return true }
        // "12." or "3)": a numbered item once the space comes.
        if let last = body.last, last == "." || last == ")", body.count >= 2, body.count <= 4,
           body.dropLast().allSatisfy({ $0.isNumber }) { return true }
        return false
    }

    private mutating func emitLineStart(_ held: String, into out: inout String) {
        let indent = String(held.prefix(while: { $0 == " " }))
        let body = String(held.dropFirst(indent.count))
        if body.hasPrefix("```") || body.hasPrefix("~~~") {
            let marker = String(body.prefix(3))
            if inFence {
                if marker == fenceMarker {
                    inFence = false
                    fenceLine = true
                    out += ansi.start(.dim) + indent + body
                    return
                }
            } else {
                inFence = true
                fenceMarker = marker
                fenceLine = true
                out += ansi.start(.dim) + indent + body
                return
            }
        }
        if inFence {
            out += ansi.start(.code) + held
            return
        }
        if let last = body.last, body.dropLast().allSatisfy({ $0 == "#" }), last == " ", body.count >= 2 {
            inHeading = true
            out += indent + ansi.start(.heading)
            return
        }
        if body == "- " || body == "* " || body == "+ " {
            out += indent + ansi.wrap("•", .accent) + " "
            return
        }
        if body == "> " {
            out += indent + ansi.wrap("│", .dim) + " "
            return
        }
        if body.count >= 2, body.hasSuffix(". ") || body.hasSuffix(") "), body.dropLast(2).allSatisfy({ $0.isNumber }) {
            out += indent + ansi.wrap(String(body.dropLast()), .accent) + " "
            return
        }
        // Not a marker: the held characters are ordinary text.
        out += indent
        for character in body { inline(character, into: &out) }
    }

    private mutating func inline(_ character: Character, into out: inout String) {
        if inFence {
            out.append(character)
            return
        }
        if character == "`" && !pendingStar {
            code.toggle()
            out += code ? ansi.start(.code) : reset + restoreStyles()
            return
        }
        if code {
            out += String(character)
            return
        }
        if character == "*" {
            if pendingStar {
                pendingStar = false
                bold.toggle()
                out += bold ? ansi.start(.bold) : reset + restoreStyles()
            } else {
                pendingStar = true
            }
            return
        }
        if pendingStar {
            out += "*"
            pendingStar = false
        }
        out += String(character)
    }

    /// Styles still open after a reset closed another one.
    private func restoreStyles() -> String {
        var codes = ""
        if inHeading { codes += ansi.start(.heading) }
        if bold { codes += ansi.start(.bold) }
        return codes
    }

    private mutating func endLine(into out: inout String) {
        if pendingStar {
            out += "*"
            pendingStar = false
        }
        if inHeading || bold || code || inFence || fenceLine {
            out += reset
        }
        inHeading = false
        bold = false
        code = false
        fenceLine = false
    }
}
