import Testing
@testable import HarkCore

@Suite struct CodeBlocksTests {
    @Test func blocksComeOutAsWrittenWithoutFences() {
        let reply = """
            Run this:

            ```bash
            git log --oneline | head -3
            echo "done"   
            ```

            Then in Swift:
            ~~~~swift title="x"
            let fence = "```"

                indented()
            ~~~~
            """
        let blocks = CodeBlocks.extract(from: reply)
        #expect(blocks.map(\.language) == ["bash", "swift"])
        #expect(blocks[0].code == "git log --oneline | head -3\necho \"done\"   ")
        #expect(blocks[1].code == "let fence = \"```\"\n\n    indented()")
    }

    @Test func anIndentedFenceTakesItsIndentOffAndAnOpenOneRunsToTheEnd() {
        let reply = "1. install:\n   ```\n   apt install tmux\n     -y\n   ```\n2. then:\n```sh\nmake\n"
        let blocks = CodeBlocks.extract(from: reply)
        #expect(blocks.map(\.code) == ["apt install tmux\n  -y", "make\n"])
        #expect(blocks[1].language == "sh")
    }

    @Test func backtickRunsInsideTextAreNoFences() {
        #expect(CodeBlocks.extract(from: "use ``x`` or\n```inline``` here").isEmpty)
        #expect(CodeBlocks.extract(from: "no code at all").isEmpty)
    }
}
