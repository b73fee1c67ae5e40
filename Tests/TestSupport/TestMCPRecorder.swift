import Foundation
import HarkCore

/// The MCP Python SDK's Streamable HTTP server with a tool that waits (`wait`, seconds) and a
/// record of every request that reached it (Tests/Fixtures/mcp/recording_server.py): what hark
/// said to it, session by session, as the server read it. One per test.
public final class TestMCPRecorder: @unchecked Sendable {
    private let process: ChildProcess
    /// The endpoint, for `url =` in an `[mcp NAME]` section.
    public let url: String

    public init() async throws {
        let python = VoiceTestAssets.root + "/.local/venv/bin/python"
        guard FileManager.default.isExecutableFile(atPath: python) else { throw TestMCPServers.Failure.missing(python) }
        process = try ChildProcess([python, VoiceTestAssets.root + "/Tests/Fixtures/mcp/recording_server.py"],
                                   environment: ProcessInfo.processInfo.environment, lifeline: true)
        try await process.waitFor(stdout: "\n")
        guard let line = process.stdout.split(separator: "\n").first, line.hasPrefix("port "), let port = Int(line.dropFirst(5)) else {
            throw TestMCPServers.Failure.start("stdout \(process.stdout), stderr \(process.stderr)")
        }
        url = "http://127.0.0.1:\(port)/mcp"
    }

    deinit { process.signal(SIGTERM) }

    /// The record so far: `POST SESSION METHOD…`, `DELETE SESSION`, `session ID` (given).
    public var lines: [String] { Self.lines(of: process.stdout) }

    /// The session ids the server gave, in order.
    public var sessions: [String] { Self.sessions(in: process.stdout) }

    /// What the client said in `session`, in order: `tools/call`, `notifications/cancelled`,
    /// `DELETE`…
    public func requests(in session: String) -> [String] { Self.requests(in: session, record: process.stdout) }

    /// Waits until the server has given `count` sessions; the last one's id.
    public func waitForSession(_ count: Int, seconds: Double = 120) async throws -> String {
        try await process.waitFor("session number \(count)", seconds: seconds) { Self.sessions(in: $0).count >= count }
        return sessions[count - 1]
    }

    /// Waits until `session` has said `request` (as `requests(in:)` names it).
    public func waitFor(_ request: String, in session: String, seconds: Double = 120) async throws {
        try await process.waitFor("\(request) in session \(session)", seconds: seconds) {
            Self.requests(in: session, record: $0).contains(request)
        }
    }

    // The record is read from the text given (the conditions of a wait see it so; reading the
    // process's output there again would take the lock the wait holds).

    static func lines(of record: String) -> [String] { record.split(separator: "\n").dropFirst().map(String.init) }

    static func sessions(in record: String) -> [String] {
        lines(of: record).filter { $0.hasPrefix("session ") }.map { String($0.dropFirst(8)) }
    }

    static func requests(in session: String, record: String) -> [String] {
        lines(of: record).compactMap { line in
            let words = line.split(separator: " ")
            guard words.count >= 2, words[0] != "session", words[1] == session else { return nil }
            return words[0] == "POST" ? words.dropFirst(2).joined(separator: " ") : String(words[0])
        }
    }
}
