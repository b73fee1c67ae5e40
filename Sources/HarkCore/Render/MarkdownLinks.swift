/// Links in a line of Markdown: held from their `[` (or `<`) until their `)` (or `>`), then drawn
/// (an OSC 8 link where the terminal shows them, the target written after the label where it
/// does not), or read again as text.
extension InlineParser {
    mutating func collectLink<Sink: InlineSink>(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int,
                                                into sink: inout Sink) -> Int {
        var index = start
        while index < bytes.count, var collector = link {
            let verdict = collector.take(bytes[index])
            link = collector
            switch verdict {
            case .more:
                index += 1
            case .done:
                index += 1
                finishLink(into: &sink)
            case .failed:
                failLink(into: &sink)  // the byte is read again as text
            }
        }
        return index
    }

    /// What was held was no link: its first byte is text, the rest is read again.
    mutating func failLink<Sink: InlineSink>(into sink: inout Sink) {
        guard let collector = link else { return }
        link = nil
        literal(collector.image ? "![" : collector.autolink ? "<" : "[", into: &sink)
        let rest = collector.raw
        rest.withUnsafeBufferPointer { feed($0, into: &sink) }
    }

    private mutating func finishLink<Sink: InlineSink>(into sink: inout Sink) {
        guard let collector = link else { return }
        link = nil
        let target = collector.target
        guard LinkCollector.isSafe(target), !collector.autolink || LinkCollector.isAutolink(target) else {
            failLinkWithCollector(collector, into: &sink)
            return
        }
        var look = attributes.merged(theme.link)
        let drawsLink = hyperlinks && LinkCollector.isWebTarget(target)
        if drawsLink { look.link = target }
        var label = collector.label
        if collector.image { label = Array("image: ".utf8) + label }
        if label.isEmpty { label = Array(target.utf8) }
        var nested = InlineParser(theme: theme, hyperlinks: false, base: look)
        label.withUnsafeBufferPointer { nested.feed($0, into: &sink) }
        nested.endLine(into: &sink)
        let shownText = String(decoding: label, as: UTF8.self)
        if LinkCollector.needsTargetShown(label: shownText, target: target, drawn: drawsLink) {
            sink.space(1, .plain)
            let shown = "(" + target + ")"
            var text = shown
            text.withUTF8 { sink.text($0, theme.linkTarget) }
        }
        previous = .punctuation
    }

    private mutating func failLinkWithCollector<Sink: InlineSink>(_ collector: LinkCollector, into sink: inout Sink) {
        link = collector
        failLink(into: &sink)
    }
}

/// A link being read: `[label](target "title")`, `![alt](src)` or `<https://…>`. It holds
/// the bytes after the opening bracket until the link is complete or turns out to be text.
struct LinkCollector {
    enum Verdict { case more, done, failed }
    private enum Phase { case label, afterLabel, target, title }

    /// Longer than this, it is text that happens to start with a bracket.
    static let longest = 2048

    let image: Bool
    let autolink: Bool
    private(set) var raw: [UInt8] = []
    private var phase: Phase
    private var depth = 0
    private var inMark = false
    private var labelEnd = 0
    private var targetStart = 0
    private var targetEnd = -1

    init(image: Bool) {
        self.image = image
        autolink = false
        phase = .label
    }

    init(autolink: Bool) {
        image = false
        self.autolink = autolink
        phase = .target
    }

    var label: [UInt8] { autolink ? [] : Array(raw[0..<labelEnd]) }

    var target: String {
        let end = targetEnd >= 0 ? targetEnd : raw.count
        return String(decoding: raw[min(targetStart, end)..<end], as: UTF8.self)
    }

    /// Takes the next byte; `.failed` leaves it untaken.
    mutating func take(_ byte: UInt8) -> Verdict {
        if raw.count >= Self.longest { return .failed }
        if autolink {
            switch byte {
            case 0x3E:  // >
                targetEnd = raw.count
                return .done
            case 0x20, 0x3C, 0x00..<0x20: return .failed
            default:
                raw.append(byte)
                return .more
            }
        }
        switch phase {
        case .label:
            if byte == TerminalSanitizer.markStart { inMark = true }
            if byte == TerminalSanitizer.markEnd { inMark = false }
            if !inMark && byte == 0x5B { depth += 1 }
            if !inMark && byte == 0x5D {
                if depth == 0 {
                    labelEnd = raw.count
                    phase = .afterLabel
                } else {
                    depth -= 1
                }
            }
        case .afterLabel:
            guard byte == 0x28 else { return .failed }
            phase = .target
            targetStart = raw.count + 1
        case .target:
            if byte < 0x20 { return .failed }
            if byte == 0x28 { depth += 1 }
            if byte == 0x20 {
                targetEnd = raw.count
                phase = .title
            }
            if byte == 0x29 {
                if depth == 0 {
                    targetEnd = raw.count
                    raw.append(byte)
                    return .done
                }
                depth -= 1
            }
        case .title:
            if byte < 0x20 { return .failed }
            if byte == 0x29 {
                raw.append(byte)
                return .done
            }
        }
        raw.append(byte)
        return .more
    }

    /// A target hark may draw: nothing of a mark in it, not empty, and for an autolink a web
    /// or mail address (`<div>` is text).
    static func isSafe(_ target: String) -> Bool {
        !target.isEmpty && !target.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F })
    }

    static func isWebTarget(_ target: String) -> Bool {
        let lower = target.lowercased()
        return lower.hasPrefix("https://") || lower.hasPrefix("http://") || lower.hasPrefix("mailto:")
    }

    static func isAutolink(_ target: String) -> Bool {
        isWebTarget(target) || (target.contains("@") && target.contains(".") && !target.contains(" "))
    }

    /// Whether the target is written after the label: always when the terminal does not draw
    /// the link; when it does, if the label reads like an address other than the target's, so
    /// a link cannot say one place and lead to another unseen.
    static func needsTargetShown(label: String, target: String, drawn: Bool) -> Bool {
        if label == target { return false }
        if !drawn { return true }
        let looksLikeAddress = label.contains("://") || label.split(separator: " ").contains { word in
            let parts = word.split(separator: ".")
            return parts.count >= 2 && parts.allSatisfy { !$0.isEmpty } && parts.last!.allSatisfy(\.isLetter)
        }
        guard looksLikeAddress else { return false }
        let bare = { (text: String) -> String in
            var rest = Substring(text.lowercased())
            if let scheme = rest.firstRange(of: "://") { rest = rest[scheme.upperBound...] }
            if rest.hasPrefix("www.") { rest = rest.dropFirst(4) }
            return String(rest)
        }
        return !bare(target).hasPrefix(bare(label).trimmingCharacters(in: "/"))
    }
}

private extension String {
    func trimmingCharacters(in set: Character) -> String {
        var text = Substring(self)
        while text.last == set { text = text.dropLast() }
        return String(text)
    }
}
