import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// The real binary in a real terminal against the loopback Nyla gateway: the password is not
/// echoed, Ctrl-C stops the workflow on the gateway, the prompt counts pending edits.
@Suite(.enabled(if: TerminalDriver.isAvailable, "needs tmux; scripts/setup.sh --test installs it"))
struct NylaTerminalTests {
    @Test func loginChatStopAndPendingEditsInATerminal() async throws {
        let hold = Gate()
        defer { hold.open() }
        let gateway = try TestNylaGateway { request in
            switch request.prompt {
            case "long task": return [.chunk("Working on it: step one, "), .wait(hold), .chunk("step two"), .complete]
            case "fix the notes":
                return [.proposeEdit(fileID: "file-notes", content: "# Notes\nfixed\n", description: "fix"), .chunk("Proposed a fix."),
                        .complete]
            default: return TestNylaGateway.echo(request)
            }
        }
        let home = TestHome(config: "[hark]\ndefault = acme\n\n[session acme]\nkind = nyla\nurl = \(gateway.url)\nlanguage = en\n")
        let terminal = try home.terminal()

        try await terminal.waitFor(text: "acme ›")
        try terminal.enter("/login")
        try await terminal.waitFor(text: "user: ")
        try terminal.enter("ann")
        try await terminal.waitFor(text: "password for ann: ")
        try terminal.enter("s3cret pass")
        let loggedIn = try await terminal.waitFor(text: "logged in to 127.0.0.1:\(gateway.http.port) as Ann Example")
        #expect(!loggedIn.contains("s3cret"), "the password is typed without echo")

        try terminal.enter("/instance ws1")
        try await terminal.waitFor(text: "acme now talks to Team workspace")
        try terminal.enter("long task")
        try await terminal.waitFor(text: "Working on it: step one,")
        try terminal.press("C-c")
        try await terminal.waitFor(text: "(stopped; what arrived is kept)")
        let workflow = try #require(gateway.workflowIDs(instance: "ws1").first)
        #expect(gateway.stops.map(\.workflow) == [workflow])

        try terminal.enter("fix the notes")
        try await terminal.waitFor(text: "1 pending edit; /edits shows it")
        try await terminal.waitFor(text: "1 edit ›")
        try terminal.enter("/accept all")
        try await terminal.waitFor(text: "accepted the pending edit")
        #expect(gateway.fileContent("file-notes") == "# Notes\nfixed\n")

        try terminal.press("C-d")
        #expect(try await terminal.waitForExit() == 0)
        let login = NylaLoginFile(paths: home.paths, session: "acme").path
        let mode = (try FileManager.default.attributesOfItem(atPath: login)[.posixPermissions] as? NSNumber)?.intValue
        #expect(mode == 0o600)
    }
}
