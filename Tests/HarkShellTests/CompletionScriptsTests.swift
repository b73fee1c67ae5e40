import Foundation
import Testing
import HarkCore
@testable import HarkShell

@Suite struct CompletionScriptsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test(arguments: [("bash", "hark.bash"), ("zsh", "_hark"), ("fish", "hark.fish")])
    func committedScriptsMatchTheCommandTable(_ shell: String, _ file: String) throws {
        let committed = try String(contentsOf: Self.root.appendingPathComponent("completions/" + file), encoding: .utf8)
        let generated = try #require(CompletionScripts.script(for: shell))
        #expect(committed == generated, "completions/\(file) is stale: run make completions")
    }

    @Test func bashScriptParsesAndCompletesSubcommandsAndSessions() throws {
        let script = try #require(CompletionScripts.script(for: "bash"))
        #expect(script.contains("complete -F _hark hark"))
        for command in CLICommands.commands { #expect(script.contains(command.name)) }
        #expect(script.contains("_hark_sessions"))
        let result = try Subprocess.run(["bash", "-n"], streams: .captured(input: Data(script.utf8)))
        #expect(result.status == 0, "bash -n: \(String(decoding: result.stderr, as: UTF8.self))")
    }

    @Test func everyKindIsOfferedForKind() throws {
        let script = try #require(CompletionScripts.script(for: "fish"))
        for kind in BackendRegistry.names { #expect(script.contains(kind)) }
    }
}
