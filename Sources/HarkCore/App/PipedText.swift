/// Text piped into a one-shot hark, and how it goes with the message given as an argument:
/// the message, a blank line, then the piped text, fenced with its language when hark can tell
/// it (a diff, JSON, a script by its first line), as `mods` joins its prompt and stdin and
/// `llm` documents its own. Without a message the piped text is the message, byte for byte.
/// `--truncate head|tail` keeps the lines that fit a model's context, saying what was cut.
public struct PipedText: Sendable, Equatable {
    /// Without the line breaks it ended with.
    public var text: String

    /// The piped bytes as text; nil for bytes that are not UTF-8 text (a NUL, not UTF-8, or
    /// a file that says what it is, such as a PDF).
    public init?(_ bytes: [UInt8]) {
        guard case .text = FileContent.of(bytes, name: "stdin") else { return nil }
        var text = String(decoding: bytes, as: UTF8.self)
        while text.hasSuffix("\n") || text.hasSuffix("\r") { text.removeLast() }
        self.text = text
    }

    public init(text: String) {
        self.text = text
    }

    /// Which end of the piped text is kept when it does not fit (`--truncate`).
    public enum Truncation: String, Sendable, CaseIterable {
        /// The beginning, as `head` keeps it.
        case head
        /// The end, as `tail` keeps it.
        case tail
    }

    /// What was cut: `count` of `total` lines (or bytes, for text of one long line) at the
    /// end `--truncate` did not keep.
    public struct Cut: Sendable, Equatable {
        public var kept: Truncation
        public var count: Int
        public var total: Int
        public var unit: String

        /// Said to the model, where the cut was.
        var marker: String {
            "[the \(kept == .head ? "last" : "first") \(ByteCount.grouped(count)) of \(ByteCount.grouped(total)) \(unit) "
                + "were cut to fit the context]"
        }

        /// Said to the user, kept as a note with the reply.
        public func notice(session: String) -> String {
            "only the \(kept == .head ? "first" : "last") \(ByteCount.grouped(total - count)) of \(ByteCount.grouped(total)) "
                + "\(unit) of piped text fit \(session)'s context; the \(kept == .head ? "last" : "first") "
                + "\(ByteCount.grouped(count)) were cut"
        }
    }

    /// The message as sent and stored, and where its piped part begins (a byte offset).
    public struct Composed: Sendable, Equatable {
        public var text: String
        public var pipedFrom: Int
    }

    /// `message` (nil or empty: the piped text alone) with the piped text after it, fenced
    /// as `language` (`PipedText.language(of:)` of the text as it was piped, before a cut).
    public func composed(after message: String?, cut: Cut? = nil, language: String?) -> Composed {
        var block = text
        if let message, !message.isEmpty, let language {
            let fence = Self.fence(for: text)
            block = fence + language + "\n" + text + "\n" + fence
        }
        if let cut { block = cut.kept == .head ? block + "\n" + cut.marker : cut.marker + "\n" + block }
        guard let message, !message.isEmpty else { return Composed(text: block, pipedFrom: 0) }
        return Composed(text: message + "\n\n" + block, pipedFrom: message.utf8.count + 2)
    }

    /// The language of a piped text, told by its beginning: a diff, JSON, a script by its
    /// `#!` line, XML, HTML, PHP or C. nil when it does not tell.
    public static func language(of text: String) -> String? {
        let lines = text.prefix(4096).split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false)
        let first = lines.first.map { $0.trimmingSpaces } ?? ""
        let second = lines.count > 1 ? String(lines[1]) : ""
        if first.hasPrefix("diff ") || first.hasPrefix("Index: ") || (first.hasPrefix("--- ") && second.hasPrefix("+++ ")) {
            return "diff"
        }
        if first.hasPrefix("#!") { return interpreter(first) }
        let lowered = first.lowercased()
        for (start, language) in [("<?xml", "xml"), ("<?php", "php"), ("<!doctype html", "html"), ("<html", "html"),
                                  ("#include ", "c")] where lowered.hasPrefix(start) {
            return language
        }
        if let start = text.first(where: { !$0.isWhitespace }), start == "{" || start == "[", (try? JSON.parse(text)) != nil {
            return "json"
        }
        return nil
    }

    /// The language a `#!` line names: its program, or the one `env` runs.
    static func interpreter(_ line: String) -> String? {
        let words = line.dropFirst(2).split(separator: " ").map(String.init)
        guard var program = words.first?.lastPathComponent else { return nil }
        if program == "env" { program = words.dropFirst().first { !$0.hasPrefix("-") } ?? "" }
        let names = ["python3": "python", "python2": "python", "node": "javascript", "dash": "sh", "ksh": "sh",
                     "Rscript": "r"]
        let language = names[program] ?? program
        return !language.isEmpty && language.allSatisfy({ $0.isLetter || $0.isNumber }) ? language : nil
    }

    /// Backticks enough that no run of them in `text` closes the fence early.
    static func fence(for text: String) -> String {
        var longest = 0
        var run = 0
        for byte in text.utf8 {
            run = byte == UInt8(ascii: "`") ? run + 1 : 0
            longest = max(longest, run)
        }
        return String(repeating: "`", count: max(3, longest + 1))
    }

    /// The piped text cut to at most `bytes` (whole lines, or bytes when not one line fits),
    /// keeping the end `keep` names; nil when all of it fits.
    public func cut(to bytes: Int, keeping keep: Truncation) -> (PipedText, Cut)? {
        guard text.utf8.count > bytes else { return nil }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        var kept: [Substring] = []
        var size = 0
        for line in keep == .head ? lines : lines.reversed() {
            let cost = line.utf8.count + (kept.isEmpty ? 0 : 1)
            guard size + cost <= bytes else { break }
            size += cost
            kept.append(line)
        }
        if !kept.isEmpty {
            let joined = (keep == .head ? kept : kept.reversed()).joined(separator: "\n")
            return (PipedText(text: joined), Cut(kept: keep, count: lines.count - kept.count, total: lines.count, unit: "lines"))
        }
        // One line longer than the room (minified JSON): cut inside it, between characters.
        let utf8 = text.utf8
        var index = keep == .head ? utf8.index(utf8.startIndex, offsetBy: bytes) : utf8.index(utf8.endIndex, offsetBy: -bytes)
        while index.samePosition(in: text.unicodeScalars) == nil {
            index = keep == .head ? utf8.index(before: index) : utf8.index(after: index)
        }
        let part = keep == .head ? String(text[..<index]) : String(text[index...])
        let total = utf8.count
        return (PipedText(text: part), Cut(kept: keep, count: total - part.utf8.count, total: total, unit: "bytes"))
    }
}
