/// What a line of Markdown is, read from its first characters: `classify` answers nil while
/// they could still mean more than one thing (`-` may start an item or a rule, `#` a heading
/// or a hashtag), so a streamed line is held only as long as it must be.
struct MarkdownLineStart: Equatable {
    enum ListMarker: Equatable {
        case bullet
        case ordered(String)
        case task(checked: Bool)
    }

    enum Kind: Equatable {
        case blank
        case heading(level: Int)
        case item(ListMarker)
        case paragraph
        case rule
        /// An opening fence: its info string is needed, so the whole line is.
        case fence
        /// A line with a leading `|`: a table's row, or its header.
        case tableRow
        /// A line inside a fenced block.
        case code
        case closingFence
    }

    /// A fenced block left open by an earlier line.
    struct OpenFence: Equatable {
        var character: UInt8
        var length: Int
        var indent: Int
        var quoteDepth: Int
    }

    var kind: Kind
    var quoteDepth = 0
    /// Spaces before the marker or text, after the quote markers.
    var indent = 0
    /// Where the line's text starts (after quote markers, indent and list marker).
    var content = 0

    static func classify(_ line: [UInt8], complete: Bool, fence: OpenFence?) -> MarkdownLineStart? {
        let count = line.count
        var index = 0
        var depth = 0
        // Quote markers: `>` after up to three spaces, each with one optional space after it.
        while fence.map({ depth < $0.quoteDepth }) ?? true {
            var probe = index
            while probe < count && line[probe] == 0x20 && probe - index < 3 { probe += 1 }
            if probe == count && !complete { return nil }
            guard probe < count, line[probe] == 0x3E else { break }
            depth += 1
            index = probe + 1
            if index < count && line[index] == 0x20 { index += 1 }
        }
        var start = index
        var indent = 0
        while start < count && (line[start] == 0x20 || line[start] == 0x09) {
            indent += line[start] == 0x09 ? 4 - indent % 4 : 1
            start += 1
        }
        var result = MarkdownLineStart(kind: .paragraph, quoteDepth: depth, indent: indent, content: start)
        if let fence { return inFence(line, &result, fence, from: index, complete: complete) }
        guard start < count else {
            if !complete { return nil }
            result.kind = .blank
            return result
        }
        let first = line[start]
        let rest = line[start...]
        switch first {
        case 0x23:  // #
            let hashes = rest.prefix { $0 == 0x23 }.count
            if start + hashes == count {
                if !complete && hashes <= 6 { return nil }
                result.kind = hashes <= 6 ? .heading(level: hashes) : .paragraph
                result.content = count
            } else if hashes <= 6 && (line[start + hashes] == 0x20 || line[start + hashes] == 0x09) {
                result.kind = .heading(level: hashes)
                result.content = start + hashes + 1
            }
        case 0x60, 0x7E:  // ` ~
            let run = rest.prefix { $0 == first }.count
            if start + run == count && !complete && run < 3 { return nil }
            if run >= 3 { result.kind = .fence }
        case 0x7C:
            result.kind = .tableRow
        case 0x2D, 0x2A, 0x2B, 0x5F:  // - * + _
            return bulletOrRule(line, &result, from: start, complete: complete)
        case 0x30...0x39:
            let digits = rest.prefix { $0 >= 0x30 && $0 <= 0x39 }.count
            let after = start + digits
            if after == count { return complete || digits > 9 ? result : nil }
            guard digits <= 9, line[after] == 0x2E || line[after] == 0x29 else { return result }
            if after + 1 == count { return complete ? result : nil }
            guard line[after + 1] == 0x20 else { return result }
            result.kind = .item(.ordered(String(decoding: line[start...after], as: UTF8.self)))
            result.content = after + 2
        default:
            break
        }
        return result
    }

    /// `- item`, `* item`, `+ item` (a task item with `[ ]` or `[x]`), or a rule of three or
    /// more `-`, `*` or `_`.
    private static func bulletOrRule(_ line: [UInt8], _ result: inout MarkdownLineStart, from start: Int,
                                     complete: Bool) -> MarkdownLineStart? {
        let marker = line[start]
        let count = line.count
        let onlyRule = marker != 0x2B && line[start...].allSatisfy { $0 == marker || $0 == 0x20 || $0 == 0x09 }
        if onlyRule {
            if !complete { return nil }
            if line[start...].filter({ $0 == marker }).count >= 3 {
                result.kind = .rule
                return result
            }
        }
        guard marker != 0x5F else { return result }
        if start + 1 == count { return complete ? result : nil }
        guard line[start + 1] == 0x20 || line[start + 1] == 0x09 else { return result }
        result.kind = .item(.bullet)
        result.content = start + 2
        // A task item's box: `[ ] ` or `[x] `.
        let box = line[(start + 2)...]
        for candidate in ["[ ] ", "[x] ", "[X] "] {
            let pattern = Array(candidate.utf8)
            if box.starts(with: pattern) {
                result.kind = .item(.task(checked: candidate != "[ ] "))
                result.content = start + 2 + pattern.count
                return result
            }
            if !complete && box.count < pattern.count && pattern.starts(with: box) { return nil }
        }
        return result
    }

    /// A line inside a fence: the closing fence, or code (its indent up to the fence's taken off).
    private static func inFence(_ line: [UInt8], _ result: inout MarkdownLineStart, _ fence: OpenFence, from index: Int,
                                complete: Bool) -> MarkdownLineStart? {
        let count = line.count
        var start = index
        while start < count && line[start] == 0x20 && start - index < 3 { start += 1 }
        let run = line[start...].prefix { $0 == fence.character }.count
        let after = line[(start + run)...]
        if after.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) {
            if !complete { return nil }
            if run >= fence.length {
                result.kind = .closingFence
                return result
            }
        }
        result.kind = .code
        var content = index
        while content < count && line[content] == 0x20 && content - index < fence.indent { content += 1 }
        result.content = content
        return result
    }
}
