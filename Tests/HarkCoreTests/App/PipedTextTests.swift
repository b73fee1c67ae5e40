import Foundation
import Testing
@testable import HarkCore

/// How a message and the text piped with it are put together, and cut to fit.
@Suite struct PipedTextTests {
    func composed(_ message: String?, _ piped: String) -> PipedText.Composed {
        let text = PipedText(text: piped)
        return text.composed(after: message, language: PipedText.language(of: piped))
    }

    @Test func theMessageThenABlankLineThenThePipedText() {
        let plain = composed("what is the last number?", "1\n2\n3")
        #expect(plain.text == "what is the last number?\n\n1\n2\n3")
        #expect(plain.pipedFrom == "what is the last number?\n\n".utf8.count)
        let alone = composed(nil, "{\"a\": 1}")
        #expect(alone.text == "{\"a\": 1}", "without a message the piped text is the message, unfenced")
        #expect(alone.pipedFrom == 0)
        #expect(composed("check", "{\"a\": 1}").text == "check\n\n```json\n{\"a\": 1}\n```")
    }

    @Test func theLanguageIsToldByTheBeginning() {
        #expect(PipedText.language(of: "diff --git a/x b/x\n-a\n+b") == "diff")
        #expect(PipedText.language(of: "--- a/x\n+++ b/x\n@@ -1 +1 @@") == "diff")
        #expect(PipedText.language(of: "--- a list\n- of things") == nil, "a --- line alone is not a diff")
        #expect(PipedText.language(of: "[1, 2, 3]") == "json")
        #expect(PipedText.language(of: "[1, 2, 3") == nil, "only JSON that parses")
        #expect(PipedText.language(of: "[INFO] starting") == nil)
        #expect(PipedText.language(of: "#!/usr/bin/env python3\nprint(1)") == "python")
        #expect(PipedText.language(of: "#!/usr/bin/env -S node --harmony\n") == "javascript")
        #expect(PipedText.language(of: "#!/bin/bash\necho") == "bash")
        #expect(PipedText.language(of: "<?xml version=\"1.0\"?><a/>") == "xml")
        #expect(PipedText.language(of: "<!DOCTYPE html>\n<html>") == "html")
        #expect(PipedText.language(of: "#include <stdio.h>\n") == "c")
        #expect(PipedText.language(of: "just some words") == nil)
    }

    /// A piped Markdown file with its own fences gets a longer fence, so they do not close it.
    @Test func theFenceIsLongerThanAnyRunOfBackticksInTheText() {
        #expect(PipedText.fence(for: "no ticks") == "```")
        #expect(PipedText.fence(for: "a\n```swift\nx\n```") == "````")
        #expect(PipedText.fence(for: "`````") == "``````")
        let script = "#!/bin/sh\necho ```"
        #expect(composed("explain", script).text == "explain\n\n````sh\n\(script)\n````")
    }

    @Test func bytesThatAreNotTextAreNotPipedText() {
        #expect(PipedText(Array("héllo\n\n".utf8))?.text == "héllo", "line breaks at the end are dropped")
        #expect(PipedText([0x61, 0x00, 0x62]) == nil, "a NUL")
        #expect(PipedText([0x61, 0xFF]) == nil, "not UTF-8")
        #expect(PipedText(Array("%PDF-1.4\n1 0 obj".utf8)) == nil, "a PDF is a file, though its bytes may be UTF-8")
    }

    @Test func aCutKeepsWholeLinesAtTheEndAsked() throws {
        let text = PipedText(text: "one\ntwo\nthree\nfour")
        let (head, headCut) = try #require(text.cut(to: 8, keeping: .head))
        #expect(head.text == "one\ntwo")
        #expect(headCut == PipedText.Cut(kept: .head, count: 2, total: 4, unit: "lines"))
        let (tail, tailCut) = try #require(text.cut(to: 10, keeping: .tail))
        #expect(tail.text == "three\nfour")
        #expect(tailCut.count == 2)
        #expect(text.cut(to: 100, keeping: .head) == nil, "all of it fits")
        let shown = tail.composed(after: "last?", cut: tailCut, language: nil).text
        #expect(shown == "last?\n\n[the first 2 of 4 lines were cut to fit the context]\nthree\nfour")
        #expect(head.composed(after: "first?", cut: headCut, language: "txt").text
                == "first?\n\n```txt\none\ntwo\n```\n[the last 2 of 4 lines were cut to fit the context]")
        #expect(tailCut.notice(session: "llama") == "only the last 2 of 4 lines of piped text fit llama's context; the first 2 were cut")
    }

    /// One line longer than the room is cut inside, between characters, never in one.
    @Test func aLineTooLongIsCutBetweenCharacters() throws {
        let text = PipedText(text: "aé" + String(repeating: "b", count: 10))
        let (head, cut) = try #require(text.cut(to: 2, keeping: .head))
        #expect(head.text == "a", "é takes two bytes: it does not fit in the second")
        #expect(cut == PipedText.Cut(kept: .head, count: 12, total: 13, unit: "bytes"))
        let (tail, _) = try #require(PipedText(text: "bé").cut(to: 1, keeping: .tail))
        #expect(tail.text == "")
    }
}
