import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// What a person gets wrong or throws at the prompt: mistyped commands, wrong arguments,
/// binary junk and megabyte pastes, an editor that does not start. Each mistake is one line on
/// stderr, the shell carries on, and nothing typed is lost.
@Suite(.enabled(if: TerminalDriver.isAvailable, "needs tmux; scripts/setup.sh --test installs it"))
struct BadInputTests {
    let home = TestHome()

    func start(editor: String? = nil) async throws -> TerminalDriver {
        let terminal = try home.terminal(environment: ["EDITOR": editor, "VISUAL": nil], columns: 120)
        try await terminal.waitFor(text: "local ›")
        return terminal
    }

    func storedTexts() throws -> [String] {
        try HistoryStore(path: home.paths.historyDatabase).recentMessages(session: "local", limit: 100).map(\.text)
    }

    /// Types `line`, waits for the error line that starts with `error`, and checks it stands alone
    /// between the line typed and the next prompt.
    func expectOneLineError(_ terminal: TerminalDriver, typing line: String, error: String) async throws {
        try terminal.press("C-l")
        try terminal.enter(line)
        // Rows without the spaces that pad them: the prompt waiting for input ends in "›".
        func rows(_ screen: String) -> [String] {
            screen.split(separator: "\n").map { row in
                var row = String(row)
                while row.hasSuffix(" ") { row.removeLast() }
                return row
            }.filter { !$0.isEmpty }
        }
        let screen = try await terminal.waitFor("the error for \(line)") {
            $0.contains(error) && rows($0).last?.hasSuffix("›") == true
        }
        let lines = rows(screen)
        let index = try #require(lines.lastIndex { $0.contains(error) })
        #expect(lines[index].hasPrefix("hark: "), "an error is one line starting hark: (\(lines[index]))")
        #expect(lines[index - 1].hasSuffix("› " + line), "right after the line typed")
        #expect(lines.count == index + 2, "then the prompt again: \(screen)")
    }

    @Test func mistakesAreOneLineEachAndTheShellCarriesOn() async throws {
        let terminal = try await start()
        try terminal.enter("a first note")
        try await terminal.waitFor(text: "local · a first note ›")
        try await expectOneLineError(terminal, typing: "/frobnicate", error: "unknown command /frobnicate; /help lists them")
        try await expectOneLineError(terminal, typing: "/sesions", error: "did you mean /sessions?")
        try await expectOneLineError(terminal, typing: "/session nosuch", error: "no session named \"nosuch\"")
        try await expectOneLineError(terminal, typing: "/thread 424242", error: "no thread \"424242\"")
        try await expectOneLineError(terminal, typing: "/export one two", error: "usage: /export [md|json] [FILE]")
        try terminal.enter("still here")
        try await terminal.waitFor(text: "local · a first note ›")
        try terminal.press("C-d")
        #expect(try await terminal.waitForExit() == 0)
        #expect(try storedTexts() == ["a first note", "still here"], "mistakes are not sent as messages")
    }

    @Test func junkAndAMegabytePasteArriveWhole() async throws {
        let terminal = try await start()
        // Control characters, an escape sequence, a bell, invalid UTF-8 and a NUL-free binary mess.
        var junk: [UInt8] = Array("junk:".utf8) + [0x01, 0x02, 0x07, 0x1B] + Array("[2J".utf8) + [0xFF, 0xFE, 0xC3]
        junk += Array(" end".utf8)
        try terminal.paste(bytes: junk)
        try terminal.press("Enter")
        try await terminal.waitFor(text: "local · junk")

        var big = ""
        var number = 0
        while big.utf8.count < 1 << 20 {
            big += "line \(number) " + String(repeating: "x", count: number % 97) + "\n"
            number += 1
        }
        big.removeLast()
        try terminal.paste(big)
        // One line stands for the paste until Enter sends all of it.
        try await terminal.waitFor(text: "› [pasted \(number) lines]")
        try terminal.press("Enter")
        try terminal.enter("typed after")
        try await terminal.waitFor(text: "› typed after")
        try terminal.press("C-d")
        #expect(try await terminal.waitForExit() == 0)
        let texts = try storedTexts()
        // Control characters are dropped (they would garble the line); bad bytes become U+FFFD.
        #expect(texts.first == "junk:[2J\u{FFFD}\u{FFFD}\u{FFFD} end")
        #expect(texts.count == 3)
        #expect(texts.dropFirst().first == big, "the megabyte arrived byte for byte")
        #expect(texts.last == "typed after")
    }

    @Test func aDeadEditorGivesTheDraftBack() async throws {
        let terminal = try await start(editor: home.directory.path + "/no-such-editor")
        // A longer line first: its tail must not creep into the draft given back.
        try await expectOneLineError(terminal, typing: "/export one two a-longer-argument",
                                     error: "usage: /export [md|json] [FILE]")
        try terminal.enter("first line \\")
        try terminal.type("keep me")
        try terminal.press("C-x", "C-e")
        try await terminal.waitFor(text: "set $EDITOR to one that works")
        try terminal.press("Enter")
        try await terminal.waitFor(text: "local · first line")
        try expectNoDraftLost()
        // /edit alone, the same way.
        try terminal.enter("/edit")
        try await terminal.waitFor("a second editor error") { $0.components(separatedBy: "set $EDITOR to one that works").count == 3 }
        try terminal.press("C-d")
        #expect(try await terminal.waitForExit() == 0)

        func expectNoDraftLost() throws {
            #expect(try storedTexts() == ["first line \nkeep me"])
        }
    }
}
