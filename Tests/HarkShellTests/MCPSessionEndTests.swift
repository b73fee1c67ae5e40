import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// The built binary against the MCP Python SDK's Streamable HTTP server (TestMCPRecorder):
/// however hark ends (a one-shot's reply, a stopped call, /quit, Ctrl-D, SIGTERM), it ends the
/// MCP session it opened with DELETE before it exits, and a call it stopped is cancelled with
/// `notifications/cancelled` first (spec 2025-11-25 basic/transports).
@Suite struct MCPSessionEndTests {
    /// A model that calls `rec.wait` for `seconds`, then answers "done" once it has the result.
    static func model(waiting seconds: Double) throws -> TestOpenAIServer {
        try TestOpenAIServer { body in
            let last = body["messages"]?.array?.last?.encoded() ?? ""
            if last.contains("tool_call_id") { return [.text("done"), .done] }
            return [.toolCall(id: "call_1", name: "rec__wait", arguments: [#"{"seconds":\#(seconds)}"#]), .finish("tool_calls"), .done]
        }
    }

    /// The recorder's SDK speaks both eras: these tests hold hark to the handshake's session
    /// (`protocol = 2025-11-25`) unless told otherwise.
    static func home(_ model: TestOpenAIServer, _ recorder: TestMCPRecorder, mode: String = "2025-11-25") -> TestHome {
        TestHome(config: "[hark]\ndefault = llama\n\n"
            + TestMCPServers.section("rec", "url = " + recorder.url, "allow = wait", "protocol = \(mode)")
            + "[session llama]\nkind = openai\nurl = \(model.baseURL)\nmcp = rec\n")
    }

    @Test func aOneShotEndsItsSessionWithDelete() async throws {
        let recorder = try await TestMCPRecorder()
        let model = try Self.model(waiting: 0)
        let home = Self.home(model, recorder)
        let run = try await HarkRun.run(["what is it?"], home.environment)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.hasPrefix("done"), "\(run.output)")
        let session = try await recorder.waitForSession(1, seconds: 10)
        try await recorder.waitFor("DELETE", in: session, seconds: 10)
        #expect(recorder.requests(in: session) == ["notifications/initialized", "tools/list", "tools/call", "DELETE"])
    }

    /// A one-shot run stopped while the tool runs: the call is cancelled, then the session
    /// ended, before the process exits; every time (the notice once went out from a task the
    /// exit did not wait for, and was lost two times in three).
    @Test(arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143))])
    func aStoppedOneShotCancelsItsCallThenEndsItsSession(_ signal: Int32, _ status: Int32) async throws {
        let recorder = try await TestMCPRecorder()
        let model = try Self.model(waiting: 600)
        let home = Self.home(model, recorder)
        let tries = signal == SIGINT ? 10 : 3
        for attempt in 1...tries {
            let hark = try ChildProcess([BuiltProducts.hark, "what is it?"], environment: home.environment)
            let session = try await recorder.waitForSession(attempt)
            try await recorder.waitFor("tools/call", in: session)
            hark.signal(signal)
            #expect(try await hark.waitForExit() == status, "\(hark.stderr)")
            // Said before the exit, so there already: the wait only lets the record catch up.
            try await recorder.waitFor("DELETE", in: session, seconds: 10)
            let said = recorder.requests(in: session)
            #expect(said.suffix(3) == ["tools/call", "notifications/cancelled", "DELETE"], "try \(attempt): \(said)")
        }
    }

    /// The shell ends its session when it quits, whichever way: /quit, Ctrl-D, SIGTERM.
    @Test(.enabled(if: TerminalDriver.isAvailable, "needs tmux; scripts/setup.sh --test installs it"),
          arguments: ["/quit", "C-d", "SIGTERM"])
    func theShellEndsItsSessionWhenItQuits(_ how: String) async throws {
        let recorder = try await TestMCPRecorder()
        let model = try Self.model(waiting: 0)
        let home = Self.home(model, recorder)
        let terminal = try home.terminal()
        try await terminal.waitFor(text: "llama ›")
        try terminal.enter("what is it?")
        try await terminal.waitFor(text: "done")
        let session = try await recorder.waitForSession(1, seconds: 10)
        switch how {
        case "/quit": try terminal.enter("/quit")
        case "C-d": try terminal.press("C-d")
        default: kill(try #require(try terminal.programPID()), SIGTERM)
        }
        let status = try await terminal.waitForExit()
        #expect(status == (how == "SIGTERM" ? 143 : 0))
        try await recorder.waitFor("DELETE", in: session, seconds: 10)
        #expect(recorder.requests(in: session).last == "DELETE")
    }
}

extension MCPSessionEndTests {
    /// Left to choose, hark speaks 2026-07-28 to the same server: `server/discover`, then each
    /// request on its own, with no session to open or end (no `initialize`, no DELETE).
    @Test func aStatelessServerGetsNoSessionToEnd() async throws {
        let recorder = try await TestMCPRecorder()
        let model = try Self.model(waiting: 0)
        let home = Self.home(model, recorder, mode: "auto")
        let run = try await HarkRun.run(["what is it?"], home.environment)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.hasPrefix("done"), "\(run.output)")
        try await recorder.waitFor("tools/call", in: "-", seconds: 10)
        #expect(recorder.requests(in: "-") == ["server/discover", "tools/list", "tools/call"])
        #expect(recorder.sessions.isEmpty)
    }

    /// A stopped one-shot's call to a stateless server is cancelled by closing its stream
    /// (2026-07-28 has no notifications from the client): no `notifications/cancelled` goes out,
    /// and hark exits as it does for any stopped call.
    @Test func aStoppedCallToAStatelessServerEndsWithItsStream() async throws {
        let recorder = try await TestMCPRecorder()
        let model = try Self.model(waiting: 600)
        let home = Self.home(model, recorder, mode: "auto")
        let hark = try ChildProcess([BuiltProducts.hark, "what is it?"], environment: home.environment)
        var exited = false
        defer { if !exited { hark.signal(SIGKILL) } }
        try await recorder.waitFor("tools/call", in: "-")
        hark.signal(SIGINT)
        #expect(try await hark.waitForExit() == 130, "\(hark.stderr)")
        exited = true
        #expect(recorder.requests(in: "-") == ["server/discover", "tools/list", "tools/call"])
    }
}
