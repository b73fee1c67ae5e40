import FoundationEssentials

/// Text pasted with line ends, shown in the input line as a one-line summary
/// (`[pasted 30 lines]`) rather than line by line. Enter sends the text in place of its
/// summary; Tab on the line shows the lines first (in the draft, above the line) to edit
/// before sending. A summary the user edits away drops its paste.
struct PastedText {
    private var blocks: [(summary: String, text: String)] = []

    var isEmpty: Bool { blocks.isEmpty }

    /// Keeps `text` and returns its summary for the line.
    mutating func summary(for text: String) -> String {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).count
        if text.hasSuffix("\n") { lines -= 1 }
        var summary = "[pasted \(lines) line\(lines == 1 ? "" : "s")]"
        if blocks.contains(where: { $0.summary == summary }) {
            summary = "[pasted \(lines) line\(lines == 1 ? "" : "s") #\(blocks.count + 1)]"
        }
        blocks.append((summary, text))
        return summary
    }

    /// `line` with each summary in it replaced by its text.
    func expand(_ line: String) -> String {
        blocks.reduce(line) { $0.replacingOccurrences(of: $1.summary, with: $1.text) }
    }

    /// The first paste whose summary is in `line`, shown: its lines but the last (with what
    /// stands before the summary in front of the first) for the draft, and the line that
    /// remains to edit. Nil when the line holds no summary.
    mutating func expandIntoDraft(_ line: String) -> (draft: [String], line: String)? {
        for (index, block) in blocks.enumerated() {
            guard let range = line.range(of: block.summary) else { continue }
            blocks.remove(at: index)
            var lines = (line[..<range.lowerBound] + block.text).split(separator: "\n", omittingEmptySubsequences: false)
                .map(String.init)
            let last = lines.removeLast()
            return (lines, last + line[range.upperBound...])
        }
        return nil
    }

    mutating func clear() {
        blocks = []
    }
}
