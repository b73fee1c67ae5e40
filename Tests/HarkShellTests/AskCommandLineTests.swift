import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// `hark ask` from a script: the real binary, its output a pipe.
@Suite struct AskCommandLineTests {
    /// A pipe gets each snippet whole on one line, however long, for the script that reads it;
    /// a terminal gets it cut at spaces to its width (LocalDocumentsTests, LineWrappingTests).
    @Test func aPipeGetsEachSnippetOnOneLine() async throws {
        let library = TemporaryDirectory("hark-docs")
        DocumentFixtures.write(into: library)
        let home = TestHome()
        let added = try await CommandLineTests().hark(["/docs add \(library.file("handbook.md"))"], home: home)
        #expect(added.status == 0, "\(added.stderr)")
        let asked = try await CommandLineTests().hark(["ask", "how long do I have to file expense claims?"], home: home,
                                                environment: ["COLUMNS": "40"])
        #expect(asked.status == 0, "\(asked.stderr)")
        #expect(asked.stdout == """
            [1] handbook.md:5-9  Staff handbook › Travel › Expenses
                ## Travel  ### Expenses Expense claims must be filed within 30 days of returning from a trip. \
            Keep every receipt; a missing receipt needs a short…

            """)
    }
}
