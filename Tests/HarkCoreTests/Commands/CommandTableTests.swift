import Testing
@testable import HarkCore

@Suite struct CommandTableTests {
    @Test func everyCoreCommandHasAHandlerAndEveryHandlerACommand() {
        let names = Set(CoreCommands.all.map(\.name))
        #expect(names == Set(Workspace.coreHandlers.keys))
    }

    @Test func namesAreUniquePerKind() {
        for kind in BackendRegistry.names {
            let specs = CoreCommands.table().filter { $0.kinds?.contains(kind) == true }
            #expect(Set(specs.map(\.name)).count == specs.count, "duplicate command for \(kind)")
        }
    }

    @Test func parsingSplitsLikeAShellAndKeepsTheRawRest() throws {
        let invocation = try #require(try CommandInvocation.parse(#"/thread rename "Big refactor" now"#))
        #expect(invocation.name == "thread")
        #expect(invocation.arguments == ["rename", "Big refactor", "now"])
        #expect(invocation.rawArguments(droppingFirst: 1) == #""Big refactor" now"#)
        #expect(try CommandInvocation.parse("//not a command") == nil)
        #expect(try CommandInvocation.parse("plain") == nil)
        #expect(throws: HarkError.self) { try CommandInvocation.parse(#"/search "open"#) }
    }

    /// Found by the command fuzzer: a pasted multi-line command with an open quote gave an
    /// error of several lines.
    @Test func anUnterminatedQuoteInAMultiLinePasteIsAOneLineError() {
        do {
            _ = try CommandInvocation.parse("/run \"first line\nsecond line\r\nthird")
            Issue.record("an unterminated quote parsed")
        } catch {
            #expect((error as? HarkError)?.message == "unterminated quote in: \"first line second line third")
        }
    }

    @Test func didYouMeanFindsNearNames() {
        #expect(Suggest.closest(to: "/sesions", in: ["/sessions", "/session", "/search"]) == "/sessions")
        #expect(Suggest.closest(to: "/hsitory", in: ["/history", "/help"]) == "/history")
        #expect(Suggest.closest(to: "/zzzzzz", in: ["/history", "/help"]) == nil)
    }

    @Test func completionOffersSubcommandsAndThreads() throws {
        let spec = try #require(CoreCommands.all.first { $0.name == "thread" })
        #expect(spec.completion(for: [], position: 0) == [.choices(["new", "rename", "rm"]), .threads])
        #expect(spec.completion(for: ["rm"], position: 1) == [.threads])
        #expect(spec.completion(for: ["rename"], position: 1) == [.none])
    }
}
