import Testing
import TestSupport
@testable import HarkCore

/// A thread's title comes from its first message's first line, without its Markdown.
@Suite struct ThreadTitleTests {
    @Test func markdownMarksAreDropped() {
        #expect(Workspace.title(from: "# Release notes\nbody") == "Release notes")
        #expect(Workspace.title(from: "## **Bold** and `code`") == "Bold and code")
        #expect(Workspace.title(from: "see [the docs](http://127.0.0.1/docs) first") == "see the docs first")
        #expect(Workspace.title(from: "> quoted line") == "quoted line")
        #expect(Workspace.title(from: "- an item") == "an item")
        #expect(Workspace.title(from: "#6 is broken") == "#6 is broken", "a number is no heading")
        #expect(Workspace.title(from: "snake_case_name stays") == "snake_case_name stays")
        #expect(Workspace.title(from: "   ") == "untitled")
        #expect(Workspace.title(from: "/build deploy TOKEN=***") == "/build deploy TOKEN=***", "a command is kept as typed")
    }

    /// `/thread #6` as /threads prints it.
    @Test func aThreadIsFoundByItsNumberAsListed() async throws {
        let workspace = try TestHome().workspace()
        let transcript = Transcript(workspace)
        await transcript.type("first note")
        await transcript.type("/thread new second")
        let first = try #require(try workspace.store.threads(session: "local").first { $0.title == "first note" })
        let switched = await transcript.type("/thread #\(first.id)")
        #expect(!switched.contains("hark:"), "\(switched)")
        #expect(try workspace.currentThread()?.id == first.id)
    }
}
