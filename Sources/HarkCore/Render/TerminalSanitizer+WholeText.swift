/// The sanitizer over one whole text: a title, an error message, a line of a document.
extension TerminalSanitizer {
    /// One whole text made safe, marks bracketed: for a renderer that draws them.
    public static func bracketed(_ text: String, keepingColors: Bool = false) -> [UInt8] {
        var sanitizer = TerminalSanitizer(keepingColors: keepingColors)
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        sanitizer.feed(text) { out.append(contentsOf: $0) }
        sanitizer.finish { out.append(contentsOf: $0) }
        return out
    }

    /// One whole text made safe for a place that cannot style the marks (the prompt libedit
    /// draws, a line on a terminal without colours): the marks as plain characters.
    public static func visible(_ text: String) -> String {
        guard needsWork(text) else { return text }
        var bytes = bracketed(text)
        bytes.removeAll { $0 == markStart || $0 == markEnd }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// True when `text` holds anything the sanitizer changes.
    public static func needsWork(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { safeRun($0, from: 0) < $0.count }
    }

    /// One whole text as pieces: text as it was, and marks (true) showing what a control
    /// character or sequence was.
    public static func pieces(_ text: String, keepingColors: Bool = false) -> [(String, Bool)] {
        var pieces: [(String, Bool)] = []
        var current: [UInt8] = []
        var inMark = false
        for byte in bracketed(text, keepingColors: keepingColors) {
            if byte == markStart || byte == markEnd {
                if !current.isEmpty { pieces.append((String(decoding: current, as: UTF8.self), inMark)) }
                current.removeAll(keepingCapacity: true)
                inMark = byte == markStart
            } else {
                current.append(byte)
            }
        }
        if !current.isEmpty { pieces.append((String(decoding: current, as: UTF8.self), inMark)) }
        return pieces
    }
}
