import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// Long conversations in the real binary: `/copy` through OSC 52 in a real terminal (tmux
/// with `set-clipboard on` keeps what it is sent), `/edit last` in the input line, and the
/// command line's `--code`, `--fork-at` and `hark stats`.
@Suite(.enabled(if: TerminalDriver.isAvailable, "needs tmux; scripts/setup.sh --test installs it"))
struct ConversationShellTests {
    static let reply = "Like this:\n\n```sh\nprintf '%s\\n' \"a  b\"   \nls -la | head -3\n```\n\nand in Python:\n\n```python\nprint('hi')\n```\n"

    func home(_ server: TestOpenAIServer) -> TestHome {
        TestHome(config: "[hark]\ndefault = llama\n\n[session llama]\nkind = openai\nurl = \(server.baseURL)\ncontext = 4096\n")
    }

    /// hark in a terminal, at its first prompt; no $EDITOR.
    func shell(_ home: TestHome, clipboard: Bool = false) async throws -> TerminalDriver {
        var environment = home.environment
        environment["TERM"] = "xterm-256color"
        environment["EDITRC"] = home.directory.write("editrc", "")
        environment["EDITOR"] = nil
        environment["VISUAL"] = nil
        let terminal = try TerminalDriver([BuiltProducts.hark], environment: environment, clipboard: clipboard)
        try await terminal.waitFor(text: "llama ›")
        return terminal
    }

    @Test func copyPutsTheCodeOnTheTerminalsClipboard() async throws {
        let server = try TestOpenAIServer { _ in [.text(Self.reply), .done] }
        let home = home(server)
        let terminal = try await shell(home, clipboard: true)
        try terminal.type("how do I list files")
        try terminal.press("Enter")
        try await terminal.waitFor(text: "print('hi')")
        try terminal.type("/copy code 1")
        try terminal.press("Enter")
        try await terminal.waitFor(text: "copied code block 1 of 2 (sh) (2 lines) to the clipboard through the terminal (OSC 52)")
        #expect(try terminal.pasteBuffer() == "printf '%s\\n' \"a  b\"   \nls -la | head -3")
        try terminal.type("/copy")
        try terminal.press("Enter")
        try await terminal.waitFor(text: "copied the last reply")
        #expect(try terminal.pasteBuffer() == Self.reply)
        try terminal.press("C-d")
        #expect(try await terminal.waitForExit() == 0)
    }

    /// Without $EDITOR, `/edit last` puts the message in the input line; Enter sends the change.
    @Test func editLastWithoutAnEditorUsesTheInputLine() async throws {
        let server = try TestOpenAIServer { body in
            [.text("you said " + (body["messages"]?.array?.last?["content"]?.string ?? "")), .done]
        }
        let home = home(server)
        let terminal = try await shell(home)
        try terminal.type("what is 2+2")
        try terminal.press("Enter")
        try await terminal.waitFor(text: "you said what is 2+2")
        try terminal.type("/edit last")
        try terminal.press("Enter")
        try await terminal.waitFor(text: "› what is 2+2")
        try terminal.press("BSpace", "BSpace", "BSpace")
        try terminal.type("3+3")
        try terminal.press("Enter")
        try await terminal.waitFor(text: "you said what is 3+3")
        try terminal.press("C-d")
        #expect(try await terminal.waitForExit() == 0)
        let store = try HistoryStore(path: home.paths.historyDatabase)
        let thread = try #require(try store.currentThread(session: "llama"))
        #expect(try store.messages(threadID: thread.id).map(\.text) == ["what is 3+3", "you said what is 3+3"])
        #expect(try store.messages(threadID: thread.id, superseded: true).count == 4)
        #expect(server.sentMessages.last?.count == 1)
    }

    @Test func codePrintsOnlyTheCodeBlocks() async throws {
        let server = try TestOpenAIServer { _ in [.text(Self.reply), .done] }
        let home = home(server)
        let run = try await HarkRun.run(["-s", "llama", "--code", "list files"], home.environment)
        #expect(run.status == 0)
        #expect(run.stdout == "printf '%s\\n' \"a  b\"   \nls -la | head -3\nprint('hi')\n")
        let plain = try TestOpenAIServer { _ in [.text("no code here"), .done] }
        let plainHome = self.home(plain)
        let none = try await HarkRun.run(["-s", "llama", "--code", "hi"], plainHome.environment)
        #expect(none.status == 1)
        #expect(none.stderr == "hark: the reply has no code block\n")
        #expect(try await HarkRun.run(["-s", "llama", "--code", "--json", "hi"], home.environment).status == 2)
    }

    @Test func forkAtSendsInAForkAndStatsCountWhatWasRecorded() async throws {
        let server = try TestOpenAIServer { body in
            [.text("answer \(body["messages"]?.array?.count ?? 0)"), .usage(prompt: 12, completion: 3), .done]
        }
        let home = home(server)
        for question in ["one", "two"] {
            #expect(try await HarkRun.run(["-s", "llama", "--thread", "numbers", question], home.environment).status == 0)
        }
        let forked = try await HarkRun.run(["-s", "llama", "--thread", "numbers", "--fork-at", "2", "three"], home.environment)
        #expect(forked.status == 0)
        #expect(forked.stderr.contains("hark: forked #1 numbers into #2 numbers (fork) with 2 messages"))
        #expect(server.sentMessages.last?.map(\.text) == ["one", "answer 1", "three"])
        let store = try HistoryStore(path: home.paths.historyDatabase)
        #expect(try store.messages(threadID: 1).count == 4, "the original is untouched")
        #expect(try store.messages(threadID: 2).map(\.text) == ["one", "answer 1", "three", "answer 3"])

        let stats = try await HarkRun.run(["stats", "-s", "llama", "--json"], home.environment)
        #expect(stats.status == 0)
        let json = try JSON.parse(stats.stdout)
        #expect(json["session"]?.string == "llama")
        #expect(json["messages"]?.int == 8)  // 4 in each thread, 2 of the fork's copies
        #expect(json["prompt_tokens"]?.int == 12 * 4)
        #expect(json["completion_tokens"]?.int == 3 * 4)
        #expect(json["threads"]?.array?.map { $0["messages"]?.int } == [4, 4])
        #expect(json["first_byte_seconds"]?.double != nil)
        let table = try await HarkRun.run(["stats"], home.environment).stdout.split(separator: "\n")
        #expect(table.first == "session  messages  tokens in  tokens out  first byte  tokens/s")
        #expect(table.dropFirst().first?.split(separator: " ").prefix(4) == ["llama", "8", "48", "12"])
    }

    @Test func copyOffATerminalSaysWhatIsMissing() async throws {
        let server = try TestOpenAIServer { _ in [.text("hello"), .done] }
        let home = home(server)
        _ = try await HarkRun.run(["-s", "llama", "hi"], home.environment)
        var environment = home.environment
        environment["DISPLAY"] = nil
        environment["WAYLAND_DISPLAY"] = nil
        let run = try await HarkRun.run(["-s", "llama", "/copy"], environment)
        #expect(run.status == 1)
        #expect(run.stderr == "hark: no clipboard here: not on a terminal, and no wl-copy (with WAYLAND_DISPLAY) or xclip or xsel "
            + "(with DISPLAY); install one, or run /copy in the shell\n")
        // With a display and a clipboard program on PATH, that program gets the text.
        let bin = TemporaryDirectory("hark-bin")
        let kept = bin.file("kept")
        _ = bin.write("xclip", "#!/bin/sh\n[ \"$1 $2\" = \"-selection clipboard\" ] && cat > '\(kept)'\n", mode: 0o755)
        environment["DISPLAY"] = ":0"
        environment["PATH"] = bin.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        let copied = try await HarkRun.run(["-s", "llama", "/copy"], environment)
        #expect(copied.status == 0)
        #expect(copied.stderr == "hark: copied the last reply (5 bytes) to the clipboard with xclip\n")
        #expect(try String(contentsOfFile: kept, encoding: .utf8) == "hello")
    }
}
