import Testing
import TestSupport
@testable import HarkCore

/// The tokens of `lines` (each line whole) in a language, spaces left out.
func tokens(_ lines: [String], _ name: String) -> [(String, TokenKind)] {
    var tokenizer = CodeTokenizer(language: Languages.named(name))
    var result: [(String, TokenKind)] = []
    for line in lines {
        let bytes = Array(line.utf8)
        bytes.withUnsafeBufferPointer { buffer in
            var index = 0
            while index < buffer.count {
                let token = tokenizer.next(buffer, from: index, complete: true)
                let text = String(decoding: buffer[index..<token.end], as: UTF8.self)
                if !text.allSatisfy({ $0 == " " }) { result.append((text, token.kind)) }
                index = token.end
            }
        }
        tokenizer.endLine()
    }
    return result
}

func kind(of text: String, in lines: [String], _ language: String) -> TokenKind? {
    tokens(lines, language).first { $0.0 == text }?.1
}

@Suite struct CodeTokenizerTests {
    /// One snippet per language the issue names, and what some of its tokens must be.
    static let samples: [(language: String, lines: [String], expected: [(String, TokenKind)])] = [
        ("swift", ["@MainActor func f(x: Int) -> String { // note", "  return \"a\\(x)\" + 42 /* c */ }"],
         [("@MainActor", .attribute), ("func", .keyword), ("Int", .type), ("// note", .comment), ("return", .keyword),
          ("\"a\\(x)\"", .string), ("42", .number), ("/* c */", .comment)]),
        ("python", ["@cache", "def f(x=None):  # why", "    return f\"{x}\" + '''doc", "still doc'''"],
         [("@cache", .attribute), ("def", .keyword), ("None", .literal), ("# why", .comment), ("f\"{x}\"", .string),
          ("'''doc", .string), ("still doc'''", .string)]),
        ("typescript", ["const x: number = `t ${y}` // c", "interface A { b: Promise<void> }"],
         [("const", .keyword), ("number", .type), ("`t ${y}`", .string), ("// c", .comment), ("interface", .keyword),
          ("Promise", .type)]),
        ("json", ["{\"name\": \"hark\", \"n\": 1.5, \"ok\": true, \"x\": null}"],
         [("\"name\"", .key), ("\"hark\"", .string), ("1.5", .number), ("true", .literal), ("null", .literal)]),
        ("bash", ["# deploy", "export A=1; echo \"$A\" ${B} | grep -v x && ./run.sh --env prod"],
         [("# deploy", .comment), ("export", .keyword), ("echo", .builtin), ("\"$A\"", .string), ("${B}", .variable),
          ("grep", .builtin), ("--env", .plain)]),
        ("go", ["func main() { fmt.Println(\"hi\", len(x), nil) } // go"],
         [("func", .keyword), ("\"hi\"", .string), ("len", .builtin), ("nil", .literal), ("// go", .comment)]),
        ("rust", ["#[derive(Debug)]", "fn f<'a>(s: &'a str) -> Option<u8> { let c = 'x'; None }"],
         [("#[derive(Debug)]", .attribute), ("fn", .keyword), ("'a", .attribute), ("str", .type), ("Option", .type),
          ("let", .keyword), ("'x'", .string), ("None", .literal)]),
        ("c", ["#include <stdio.h>", "int main(void) { return 0; } // c"],
         [("#include", .attribute), ("int", .type), ("return", .keyword), ("0", .number), ("// c", .comment)]),
        ("java", ["@Override public String toString() { return \"x\"; }"],
         [("@Override", .attribute), ("public", .keyword), ("String", .type), ("return", .keyword), ("\"x\"", .string)]),
        ("sql", ["SELECT name FROM users WHERE id = 'a''b' -- c"],
         [("SELECT", .keyword), ("FROM", .keyword), ("WHERE", .keyword), ("'a'", .string), ("-- c", .comment)]),
        ("yaml", ["# config", "name: hark", "- item: true", "count: 3"],
         [("# config", .comment), ("name", .key), ("item", .key), ("true", .literal), ("count", .key), ("3", .number)]),
        ("toml", ["[server]", "port = 8080 # c", "name = \"x\""],
         [("[server]", .type), ("port", .key), ("8080", .number), ("# c", .comment), ("name", .key), ("\"x\"", .string)]),
        ("html", ["<!-- c --><a href=\"/x\">go &amp; see</a>"],
         [("<!-- c -->", .comment), ("<a", .tag), ("href", .type), ("\"/x\"", .string), (">", .tag), ("&amp;", .literal),
          ("</a", .tag)]),
        ("css", ["/* c */ .box { color: #fff; margin: 0 4px; }", "@media print { }"],
         [("/* c */", .comment), ("color", .key), ("margin", .key), ("4px", .number), ("@media", .attribute)]),
        ("diff", ["--- a/f", "+++ b/f", "@@ -1 +1 @@", "-old", "+new", " same"],
         [("--- a/f", .header), ("+++ b/f", .header), ("@@ -1 +1 @@", .hunk), ("-old", .removed), ("+new", .added),
          ("same", .plain)]),
        ("markdown", ["# Title", "- item with `code`", "> quote"],
         [("# Title", .heading), ("-", .keyword), ("`code`", .string), ("> quote", .comment)]),
    ]

    @Test func eachLanguageColoursItsKindsOfToken() {
        for sample in Self.samples {
            let found = tokens(sample.lines, sample.language)
            for (text, expected) in sample.expected {
                let kind = found.first { $0.0 == text }?.1
                #expect(kind == expected, "\(sample.language): \(text) is \(String(describing: kind)); tokens: \(found)")
            }
        }
    }

    @Test func anUnknownLanguageIsPlain() {
        #expect(Languages.named("brainfuck") == nil)
        #expect(tokens(["return \"x\" // y"], "brainfuck").allSatisfy { $0.1 == .plain })
    }

    @Test func aTokenCutByTheLinesKnownEndStaysOpenUntilItSettles() {
        var tokenizer = CodeTokenizer(language: Languages.swift)
        let partial = Array("let ret".utf8)
        partial.withUnsafeBufferPointer { line in
            #expect(tokenizer.next(line, from: 0, complete: false) == CodeTokenizer.Token(end: 3, kind: .keyword, open: false))
            _ = tokenizer.next(line, from: 3, complete: false)
            #expect(tokenizer.next(line, from: 4, complete: false) == CodeTokenizer.Token(end: 7, kind: .plain, open: true))
        }
        // A comment's colour is known from its start: it is written as it comes.
        let comment = Array("x /".utf8)
        comment.withUnsafeBufferPointer { line in
            #expect(tokenizer.next(line, from: 2, complete: false).open)
        }
    }

    /// A code block streamed in any pieces draws the same screen as the whole.
    @Test func codeStreamedInPiecesDrawsLikeTheWhole() {
        var text = ""
        for sample in Self.samples { text += "```\(sample.language)\n" + sample.lines.joined(separator: "\n") + "\n```\n" }
        let length = text.unicodeScalars.count
        for width in [30, 80] {
            let whole = markdownScreen(text, width: width)
            #expect(whole.faults.isEmpty)
            for seed in 1...150 as ClosedRange<UInt64> {
                let cut = markdownScreen(text, width: width, cuts: randomCuts(count: Int(seed % 80) + 1, in: length, seed: seed))
                #expect(cut == whole, "width \(width), seed \(seed): \(cut.difference(from: whole))")
            }
            #expect(markdownScreen(text, width: width, cuts: Array(0...length)) == whole)
        }
    }

    /// Found by fuzzing: an unfinished token (`#[` waiting for its `]`) shown as it comes held
    /// a mark, and the mark's brackets reached the terminal.
    @Test func anUnfinishedTokenHoldingAMarkNeverWritesItsBrackets() {
        let text = "```rust\n#[x \u{1B}]0;t\u{7} y\r z\n```\n"
        let length = text.unicodeScalars.count
        for cut in 0...length {
            let screen = markdownScreen(text, width: 60, cuts: [cut])
            #expect(screen.faults.isEmpty, "cut at \(cut): \(screen.faults)")
        }
        #expect(markdownScreen(text, width: 60).lines == ["rust", "#[x ␛]0;t␇ y␍ z"])
    }
}
