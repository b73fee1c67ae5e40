import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// `hark /tools NAME` from a script: the server's revision and mode in plain text, for the MCP
/// Python SDK's server (Tests/Fixtures/mcp/elicit_server.py, which speaks both eras) left to
/// choose (2026-07-28, stateless) and held to the handshake (2025-11-25, a session).
struct MCPToolsCommandTests {
    @Test func toolsSaysWhichRevisionEachServerSpeaks() async throws {
        let url = try await TestMCPServers.elicitServerURL()
        let home = TestHome(config: TestMCPServers.section("modern", "url = " + url)
            + TestMCPServers.section("pinned", "url = " + url, "protocol = 2025-11-25"))
        let modern = try await HarkRun.run(["/tools", "modern"], home.environment)
        #expect(modern.status == 0, "\(modern.stderr)")
        #expect(modern.stdout.split(separator: "\n").contains("  running hark-elicit, protocol 2026-07-28 (stateless), 3 tools"),
                "\(modern.output)")
        let pinned = try await HarkRun.run(["/tools", "pinned"], home.environment)
        #expect(pinned.stdout.split(separator: "\n").contains("  running hark-elicit, protocol 2025-11-25 (session), 3 tools"),
                "\(pinned.output)")
        #expect(!modern.stdout.contains("\u{1B}"))
    }
}
