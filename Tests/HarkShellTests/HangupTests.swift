import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// The end of a terminal and the signals that end hark, in every state the shell waits in, on
/// the shipped binary: whatever the state, hark is gone within a second of the event (a bound
/// on waiting for its exit, the failure condition), spends under 0.2 s of CPU after it (it
/// does not spin), records no message the user did not send, and keeps a reply cut short as
/// `stopped`. One case at a time: forty debug builds of hark at once, each with its servers,
/// would measure the machine's load rather than hark.
@Suite(.serialized) struct HangupTests {
    enum State: String, CaseIterable, Sendable {
        case idlePrompt, replyStreaming, replyInTheBackground, toolApprovalAsked, formInProgress
    }

    enum Event: String, CaseIterable, Sendable {
        case hangupSignal, termSignal, terminalClosed
        /// The terminal's input ends without a signal: it is not hark's controlling terminal,
        /// and its other side closes.
        case inputAtEnd
    }

    static let cases: [(State, Event, Bool)] = State.allCases.flatMap { state in
        Event.allCases.flatMap { event in [false, true].map { (state, event, $0) } }
    }

    @Test(arguments: cases)
    func harkEndsAtOnceKeepingOnlyWhatWasSaid(_ state: State, _ event: Event, _ stdoutIsPipe: Bool) async throws {
        let fixture = try Fixture()
        defer { fixture.gate.open() }
        let setup = PseudoTerminalProcess.Setup(stdoutIsPipe: stdoutIsPipe, controlling: event != .inputAtEnd)
        let hark = try PseudoTerminalProcess([BuiltProducts.hark] + (state == .formInProgress ? ["-s", "local"] : []),
                                             environment: fixture.environment, setup: setup)
        defer { hark.end() }
        let typed = try await reach(state, hark, stdoutIsPipe: stdoutIsPipe)

        let before = hark.cpuSeconds()
        Self.end(hark, by: event)
        let exit = try #require(await hark.exit(within: 1), "hark still runs 1 s after \(event) in \(state); it wrote:\n\(hark.text)")
        #expect(exit.status == (event == .termSignal ? 143 : 129), "\(hark.text)")
        #expect(exit.cpuSeconds - before < 0.2, "CPU after \(event): \(exit.cpuSeconds - before) s")

        let store = try HistoryStore(path: fixture.home.paths.historyDatabase)
        let messages = try store.recentMessages(session: nil, limit: 100)
        let sent = messages.filter { $0.role == .user }.map(\.text)
        #expect(sent.allSatisfy { typed.contains($0) }, "messages nobody sent: \(sent) (typed \(typed))")
        if state != .formInProgress { #expect(sent == typed) }
        #expect(!messages.contains { $0.role != .tool && $0.text.trimmed.isEmpty }, "an empty message: \(messages)")
        if state == .replyStreaming || state == .replyInTheBackground {
            let reply = try #require(messages.last { $0.role == .assistant })
            #expect(reply.status == .stopped)
            #expect(reply.text == "Counting: one, two, ")
        }
    }

    /// Takes the shell to `state`; returns the messages typed on the way.
    func reach(_ state: State, _ hark: PseudoTerminalProcess, stdoutIsPipe: Bool) async throws -> [String] {
        switch state {
        case .idlePrompt:
            try await hark.waitFor("llama ›")
            return []
        case .replyStreaming, .replyInTheBackground:
            try await hark.waitFor("llama ›")
            hark.type("long one\r")
            try await hark.waitFor("Counting: one, two,")
            if state == .replyInTheBackground {
                hark.type("\u{1A}")
                // In a pipe stdout holds the reply alone: the prompt, back with the reply running, tells.
                try await hark.waitFor(stdoutIsPipe ? "⟳1 ›" : "goes on in the background")
            }
            return ["long one"]
        case .toolApprovalAsked:
            try await hark.waitFor("llama ›")
            hark.type("what time is it in Paris?\r")
            // hark asks only where the reply is shown on a terminal; in a pipe the call is
            // refused unasked and the reply ends (its text and the prompt interleave).
            try await hark.waitFor(stdoutIsPipe ? "in Paris." : "[a]lways for this tool")
            return ["what time is it in Paris?"]
        case .formInProgress:
            try await hark.waitFor("local")
            hark.type("/form new-contact\r")
            try await hark.waitFor("1/8 Name")
            hark.type("Ann")  // an answer half typed, never entered
            return ["/form new-contact"]
        }
    }

    /// A model server that streams "Counting: one, two, " and waits, or calls a tool; a home
    /// whose default session is it, with mcp-server-time, and the shipped forms.
    struct Fixture {
        let gate = Gate()
        let server: TestOpenAIServer
        let home: TestHome
        var environment: [String: String] {
            var environment = home.environment
            environment["TERM"] = "xterm-256color"
            environment["EDITRC"] = home.directory.write("editrc", "")
            return environment
        }

        init() throws {
            let gate = self.gate
            server = try TestOpenAIServer { body in
                let last = body["messages"]?.array?.last?.encoded() ?? ""
                if last.contains("tool_call_id") { return [.text("It is evening "), .text("in Paris."), .done] }
                if last.contains("Paris") {
                    return [.toolCall(id: "call_1", name: "time__get_current_time", arguments: [#"{"timezone":"Europe/Paris"}"#]),
                            .finish("tool_calls"), .done]
                }
                return [.text("Counting: one, two, "), .wait(gate), .text("three"), .done]
            }
            let time = try TestMCPServers.requireTime()
            home = TestHome(config: "[hark]\ndefault = llama\n\n" + TestMCPServers.section("time", "command = " + time)
                + "[session llama]\nkind = openai\nurl = \(server.baseURL)\nmcp = time\n", sharedPrompts: [TestHome.shippedPrompts])
        }
    }
}

extension HangupTests {
    /// hark's shell in `home`, on a pseudo-terminal that is its controlling terminal.
    static func shell(in home: TestHome) throws -> PseudoTerminalProcess {
        var environment = home.environment
        environment["TERM"] = "xterm-256color"
        environment["EDITRC"] = home.directory.write("editrc", "")
        return try PseudoTerminalProcess([BuiltProducts.hark], environment: environment, setup: .init())
    }

    static func end(_ hark: PseudoTerminalProcess, by event: Event) {
        switch event {
        case .termSignal: kill(hark.pid, SIGTERM)
        case .hangupSignal: kill(hark.pid, SIGHUP)
        case .terminalClosed, .inputAtEnd: hark.closeTerminal()
        }
    }

    /// The pager waits on its own program: a signal or the terminal's end ends it and hark.
    @Test(arguments: [Event.termSignal, .hangupSignal, .terminalClosed])
    func thePagerOpenEndsWithHark(_ event: Event) async throws {
        let home = TestHome()
        let hark = try Self.shell(in: home)
        defer { hark.end() }
        try await hark.waitFor("local ›")
        hark.type("/help\r")
        try await hark.waitFor(":\u{1B}[K")  // less -FRX waits at its prompt
        Self.end(hark, by: event)
        let exit = try #require(await hark.exit(within: 1), "hark waits for the pager:\n\(hark.text)")
        #expect(exit.status == (event == .termSignal ? 143 : 129))
    }

    /// A stop that never ends (the A2A agent never answers CancelTask) is given up after a
    /// bound: SIGTERM still ends hark within a second, and what arrived is kept as `stopped`.
    @Test func aStopStuckOnTheServerDoesNotHoldHarkUp() async throws {
        let agent = try await TestA2AAgent.shared()
        let home = TestHome(config: "[hark]\ndefault = echo\n\n[session echo]\nkind = a2a\nurl = \(agent.url("echo"))\n")
        let hark = try Self.shell(in: home)
        defer { hark.end() }
        try await hark.waitFor("echo ›")
        hark.type("stuck on purpose\r")
        try await hark.waitFor("started")
        kill(hark.pid, SIGTERM)
        let exit = try #require(await hark.exit(within: 1), "hark waits for a cancel that never comes:\n\(hark.text)")
        #expect(exit.status == 143)
        let store = try HistoryStore(path: home.paths.historyDatabase)
        let reply = try #require(try store.lastMessage(session: "echo", role: .assistant))
        #expect(reply.status == .stopped)
        #expect(reply.text == "started ")
    }
}

extension HangupTests {
    /// hark's last step ends its MCP sessions with DELETE; a server that never answers it does
    /// not hold the exit of a hangup or a signal past its second, and the DELETE did go out.
    @Test(arguments: [Event.hangupSignal, .termSignal, .terminalClosed])
    func anMCPServerSilentAtTheEndDoesNotHoldHarkUp(_ event: Event) async throws {
        let recorder = try await TestMCPRecorder(holdingDelete: true)
        let model = try MCPSessionEndTests.model(waiting: 0)
        let home = MCPSessionEndTests.home(model, recorder)
        let hark = try Self.shell(in: home)
        defer { hark.end() }
        try await hark.waitFor("llama ›")
        hark.type("what is it?\r")
        try await hark.waitFor("done")
        let session = try await recorder.waitForSession(1, seconds: 10)
        Self.end(hark, by: event)
        let exit = try #require(await hark.exit(within: 1), "hark waits for a DELETE never answered:\n\(hark.text)")
        #expect(exit.status == (event == .termSignal ? 143 : 129))
        try await recorder.waitFor("DELETE", in: session, seconds: 10)
    }
}

/// `hark 2>&1 | tee log` in a real terminal, as reported: stdin a terminal, stdout a pipe.
@Suite(.enabled(if: TerminalDriver.isAvailable, "needs tmux; scripts/setup.sh --test installs it"))
struct PipedShellTerminalTests {
    /// Starts hark as `hark 2>&1 | tee LOG` in tmux; the PID file names hark's process.
    func start(_ home: TestHome) throws -> (TerminalDriver, pidFile: String, log: String) {
        let script = home.directory.write("tee.sh", """
            sh -c 'echo $$ > "$HARK_PIDFILE"; exec "$HARK_BIN"' 2>&1 | tee "$HARK_LOG"
            """)
        let pidFile = home.directory.file("pid")
        let log = home.directory.file("log")
        var environment = home.environment
        environment["TERM"] = "xterm-256color"
        environment["EDITRC"] = home.directory.write("editrc", "")
        environment["HARK_PIDFILE"] = pidFile
        environment["HARK_BIN"] = BuiltProducts.hark
        environment["HARK_LOG"] = log
        return (try TerminalDriver(["/bin/sh", script], environment: environment), pidFile, log)
    }

    func pid(_ file: String) throws -> pid_t {
        try #require(pid_t((try String(contentsOfFile: file, encoding: .utf8)).trimmed))
    }

    /// As reported: Ctrl-D at the prompt, then the terminal closed (the tmux session killed).
    /// hark used to ignore the Ctrl-D, record it as a message when the terminal closed, and
    /// spin on for minutes, deaf to SIGTERM.
    @Test func theReportedSequenceEndsHarkAndRecordsNothing() async throws {
        let home = TestHome()
        let (terminal, pidFile, _) = try start(home)
        try await terminal.waitFor(text: "Ctrl-D to quit")
        let hark = try pid(pidFile)
        try terminal.press("C-d")
        try terminal.close()
        try await ProcessExit.waitForExit(hark, seconds: 1)
        let store = try HistoryStore(path: home.paths.historyDatabase)
        #expect(try store.recentMessages(session: nil, limit: 10).isEmpty)
    }

    @Test func closingTheTerminalEndsHarkAtOnceAndSendsNothing() async throws {
        let home = TestHome()
        let (terminal, pidFile, _) = try start(home)
        try await terminal.waitFor(text: "local ›")
        try terminal.type("half typed")
        // Echoed by hark's line editor (tee's copy of the greeting may land around the prompt).
        try await terminal.waitFor(text: "half typed")
        let hark = try pid(pidFile)
        try terminal.close()
        // A bound on the wait, the failure condition: on main hark spun on for minutes.
        try await ProcessExit.waitForExit(hark, seconds: 1)
        let store = try HistoryStore(path: home.paths.historyDatabase)
        #expect(try store.recentMessages(session: nil, limit: 10).isEmpty, "nothing was entered, so nothing is recorded")
    }

    @Test func ctrlDQuitsAndTheLogHoldsTheOutputWithoutTheLineEditorsCodes() async throws {
        let home = TestHome()
        let (terminal, pidFile, log) = try start(home)
        try await terminal.waitFor(text: "local ›")
        try terminal.enter("a note")
        try await terminal.waitFor(text: "local · a note ›")
        try terminal.press("C-d")
        try await ProcessExit.waitForExit(try pid(pidFile), seconds: 30)
        _ = try await terminal.waitForExit()
        let written = try String(contentsOfFile: log, encoding: .utf8)
        #expect(written.hasPrefix("hark \(HarkVersion.string) · session local"))
        #expect(!written.contains("\u{1B}"), "the prompt and its codes go to the terminal, not into the pipe")
        let store = try HistoryStore(path: home.paths.historyDatabase)
        #expect(try store.recentMessages(session: nil, limit: 10).map(\.text) == ["a note"])
    }
}
