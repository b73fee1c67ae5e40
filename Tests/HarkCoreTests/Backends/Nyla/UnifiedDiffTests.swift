import Testing
import TestSupport
@testable import HarkCore

@Suite struct UnifiedDiffTests {
    static func text(_ lines: [String]) -> String { lines.map { $0 + "\n" }.joined() }

    @Test func oneChangedLineWithThreeLinesOfContext() {
        let old = Self.text(["a", "b", "c", "d", "e", "f", "g", "h"])
        let new = Self.text(["a", "b", "c", "D", "e", "f", "g", "h"])
        #expect(UnifiedDiff.lines(old: old, new: new) == [
            .hunk("@@ -1,7 +1,7 @@"), .context("a"), .context("b"), .context("c"), .removed("d"), .added("D"),
            .context("e"), .context("f"), .context("g"),
        ])
    }

    @Test func changesFarApartMakeTwoHunksAndNearOnesOne() {
        let old = (1...20).map(String.init)
        var new = old
        new[1] = "two"
        new[17] = "eighteen"
        let hunks = UnifiedDiff.lines(old: Self.text(old), new: Self.text(new)).compactMap { line -> String? in
            if case .hunk(let text) = line { return text }
            return nil
        }
        #expect(hunks == ["@@ -1,5 +1,5 @@", "@@ -15,6 +15,6 @@"])
        new = old
        new[5] = "six"
        new[11] = "twelve"
        #expect(UnifiedDiff.lines(old: Self.text(old), new: Self.text(new)).filter {
            if case .hunk = $0 { return true } else { return false }
        }.count == 1)
    }

    @Test func newFilesAndIdenticalTexts() {
        #expect(UnifiedDiff.lines(old: "", new: "x\ny\n") == [.hunk("@@ -0,0 +1,2 @@"), .added("x"), .added("y")])
        #expect(UnifiedDiff.lines(old: "same\n", new: "same\n").isEmpty)
        #expect(UnifiedDiff.lines(old: "x\n", new: "") == [.hunk("@@ -1 +0,0 @@"), .removed("x")])
    }

    /// On random texts the diff rebuilds both sides and is as short as the longest common
    /// subsequence allows.
    @Test func randomTextsRoundTripWithAMinimalScript() {
        var generator = SplitMix(seed: 99)
        for _ in 0..<400 {
            let a = (0..<Int(generator.next() % 12)).map { _ in ["a", "b", "c"][Int(generator.next() % 3)] }
            let b = (0..<Int(generator.next() % 12)).map { _ in ["a", "b", "c"][Int(generator.next() % 3)] }
            let lines = UnifiedDiff.lines(old: Self.text(a), new: Self.text(b), context: 100)
            var rebuiltOld: [String] = [], rebuiltNew: [String] = []
            var edits = 0
            for line in lines {
                switch line {
                case .context(let text): rebuiltOld.append(text); rebuiltNew.append(text)
                case .removed(let text): rebuiltOld.append(text); edits += 1
                case .added(let text): rebuiltNew.append(text); edits += 1
                case .hunk: break
                }
            }
            if a != b {
                #expect(rebuiltOld == a && rebuiltNew == b, "\(a) → \(b)")
                #expect(edits == a.count + b.count - 2 * Self.lcs(a, b), "\(a) → \(b)")
            } else {
                #expect(lines.isEmpty)
            }
        }
    }

    @Test func aHugeRewriteFallsBackToRemoveAllAddAll() {
        let old = Self.text((0..<50).map { "old \($0)" })
        let new = Self.text((0..<50).map { "new \($0)" })
        let lines = UnifiedDiff.lines(old: old, new: new, maxEdits: 10)
        #expect(lines.filter { if case .removed = $0 { return true } else { return false } }.count == 50)
        #expect(lines.filter { if case .added = $0 { return true } else { return false } }.count == 50)
    }

    static func lcs(_ a: [String], _ b: [String]) -> Int {
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0..<a.count {
            for j in 0..<b.count {
                table[i + 1][j + 1] = a[i] == b[j] ? table[i][j] + 1 : max(table[i][j + 1], table[i + 1][j])
            }
        }
        return table[a.count][b.count]
    }
}

@Suite struct PendingEditDiffTests {
    static func styles(_ document: Document) -> [(String, Style)] {
        document.flatMap { $0.spans.map { ($0.text, $0.style) } }
    }

    @Test func addedLinesAreSuccessRemovedAreErrorHeadersAreDim() {
        let edit = NylaPendingEdit(id: "e1", fileID: "f1", fileName: "a.txt", description: nil, oldContent: "one\ntwo\n",
                                   newContent: "one\n2\n", diff: nil)
        let lines = Self.styles(NylaBackend.diff(edit))
        #expect(lines.map(\.0) == ["--- a/a.txt", "+++ b/a.txt", "@@ -1,2 +1,2 @@", " one", "-two", "+2"])
        #expect(lines.map(\.1) == [.dim, .dim, .dim, .plain, .error, .success])
        // In a pipe the same document is plain text.
        #expect(ANSI(enabled: false).render(StyledLine("+2", .success)) == "+2")
    }

    @Test func aReadyDiffFromTheGatewayIsColouredAsItIs() {
        let edit = NylaPendingEdit(id: "e2", fileID: nil, fileName: "b.md", description: nil, oldContent: nil, newContent: nil,
                                   diff: "--- a/b.md\n+++ b/b.md\n@@ -1 +1 @@\n-old\n+new\n")
        #expect(Self.styles(NylaBackend.diff(edit)).map(\.1) == [.dim, .dim, .dim, .error, .success])
    }

    @Test func aNewFileDiffsAgainstDevNull() {
        let edit = NylaPendingEdit(id: "e3", fileID: nil, fileName: "new.md", description: nil, oldContent: "", newContent: "hi\n",
                                   diff: nil)
        #expect(Self.styles(NylaBackend.diff(edit)).map(\.0) == ["--- /dev/null", "+++ b/new.md", "@@ -0,0 +1 @@", "+hi"])
    }
}
