import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// The n8n chat socket through the shipped binary: a one-shot run whose workflow fails exits
/// 6 with n8n's words, and a button is pressed with one key in a real terminal.
struct N8NChatShellTests {
    static let generations: [TestN8NServer.ChatGeneration] = [.plain, .json]

    static func home(_ server: TestN8NServer) -> TestHome {
        TestHome(config: "[hark]\ndefault = helpdesk\n\n[session helpdesk]\nkind = webhook\nurl = \(server.webhookURL)\n"
            + "auth = header:X-N8N-Key:env:HARK_TEST_N8N_CHAT_KEY\n")
    }

    static func environment(_ home: TestHome) -> [String: String] {
        home.environment.merging(["HARK_TEST_N8N_CHAT_KEY": "k3y"]) { $1 }
    }

    @Test(arguments: generations)
    func aWorkflowThatFailsEndsAOneShotRunWithExit6(_ generation: TestN8NServer.ChatGeneration) async throws {
        let server = try TestN8NServer(requiredHeader: ("X-N8N-Key", "k3y"), chatGeneration: generation) { _, _ in
            .responseNodes(executionID: "30", resumeToken: nil, chat: [.heartbeat, .messageThenContinue("Working on it…"), .terminate])
        }
        let home = Self.home(server)
        let run = try await HarkRun.run(["-s", "helpdesk", "go"], Self.environment(home))
        #expect(run.status == 6)
        #expect(run.stdout == "Working on it…")
        #expect(run.stderr == "hark: n8n: the workflow stopped before it finished (it failed or was cancelled)\n")
    }

    @Test func aRefusedSocketEndsAOneShotRunWithN8NsMessage() async throws {
        let server = try TestN8NServer(requiredHeader: ("X-N8N-Key", "k3y"), chatGeneration: .json) { _, _ in
            .responseNodes(executionID: "31", resumeToken: "wrong", chat: [.error("Connection rejected")])
        }
        let home = Self.home(server)
        let run = try await HarkRun.run(["-s", "helpdesk", "go"], Self.environment(home))
        #expect(run.status == 6)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr == "hark: n8n: Connection rejected\n")
    }

    @Test(.enabled(if: TerminalDriver.isAvailable, "needs tmux; scripts/setup.sh --test installs it"))
    func aButtonIsPressedWithOneKey() async throws {
        let server = try TestN8NServer(requiredHeader: ("X-N8N-Key", "k3y"), chatGeneration: .json) { _, _ in
            .responseNodes(executionID: "32", resumeToken: nil, chat: [
                .heartbeat, .buttons("Deploy v2.4.1 to production?", [TestN8NServer.Button("✓ Approve", approved: true),
                                                                      TestN8NServer.Button("✗ Decline", approved: false)],
                                     blockUserInput: true),
                .awaitPress, .message("Deployed."), .close,
            ])
        }
        let home = Self.home(server)
        let terminal = try home.terminal(environment: ["HARK_TEST_N8N_CHAT_KEY": "k3y"])
        try await terminal.waitFor(text: "helpdesk ›")
        try terminal.enter("deploy")
        try await terminal.waitFor(text: "✓ [a]pprove / ✗ [d]ecline")
        try terminal.type("d")
        try await terminal.waitFor(text: "Deployed.")
        #expect(server.presses == [["approved": "false", "signature": "sig-32"]])
        #expect(try terminal.screen().contains("» you chose ✗ Decline"))
        try terminal.press("C-d")
        #expect(try await terminal.waitForExit() == 0)
    }

    /// A frame of a type hark does not know stays out of the reply and goes to the debug log.
    @Test func anUnknownFrameGoesToTheDebugLogOnly() async throws {
        let server = try TestN8NServer(requiredHeader: ("X-N8N-Key", "k3y"), chatGeneration: .json) { _, _ in
            .responseNodes(executionID: "33", resumeToken: nil, chat: [
                .heartbeat, .unknownFrame(#"{"type":"typing","node":"AI Agent"}"#), .message("Done."), .close,
            ])
        }
        let home = Self.home(server)
        let log = home.directory.path + "/debug.log"
        let run = try await HarkRun.run(["-s", "helpdesk", "go"], Self.environment(home).merging(["HARK_DEBUG_LOG": log]) { $1 })
        #expect(run.status == 0)
        #expect(run.stdout == "Done.")
        let logged = try String(contentsOfFile: log, encoding: .utf8)
        #expect(logged.contains(#"n8n chat: ignored a frame of a type hark does not know: {"type":"typing","node":"AI Agent"}"#))
        #expect(logged.split(separator: "\n").count == 1)
    }
}
