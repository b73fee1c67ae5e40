/// The fenced code blocks of a Markdown reply, as the model wrote them: for `/copy code` and
/// `hark --code`. Not the rendered lines on screen (wrapped, padded, coloured).
public enum CodeBlocks {
    public struct Block: Sendable, Equatable {
        /// The info string's first word (`swift`), or empty.
        public var language: String
        /// The lines between the fences, without the fences, joined by line feeds, with no
        /// line feed after the last: pasted into a shell, it does not run by itself.
        public var code: String
    }

    /// Fences as CommonMark has them: three or more backticks or tildes, closed by a run of
    /// the same character at least as long with nothing after it; a block left open runs to
    /// the end (a reply cut short). A fence may be indented (models indent them inside list
    /// items): as many spaces are taken off the block's lines where they have them.
    public static func extract(from text: String) -> [Block] {
        var blocks: [Block] = []
        var open: (fence: Character, length: Int, indent: Int, language: String)?
        var lines: [Substring] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let indent = line.prefix { $0 == " " }.count
            let rest = line.dropFirst(indent)
            if let fence = open {
                let run = rest.prefix { $0 == fence.fence }.count
                if run >= fence.length, rest.dropFirst(run).allSatisfy({ $0 == " " || $0 == "\t" || $0 == "\r" }) {
                    blocks.append(Block(language: fence.language, code: lines.joined(separator: "\n")))
                    open = nil
                    lines = []
                } else {
                    lines.append(line.dropFirst(min(indent, fence.indent)))
                }
                continue
            }
            guard let first = rest.first, first == "`" || first == "~" else { continue }
            let run = rest.prefix { $0 == first }.count
            let info = rest.dropFirst(run)
            guard run >= 3, first == "~" || !info.contains("`") else { continue }
            let language = info.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).first.map(String.init) ?? ""
            open = (first, run, indent, language)
        }
        if let fence = open { blocks.append(Block(language: fence.language, code: lines.joined(separator: "\n"))) }
        return blocks
    }
}
