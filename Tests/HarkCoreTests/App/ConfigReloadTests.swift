import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// Reloading the config (after /session add, /set, /config) rebuilds only the backends of the
/// sessions it changed: the others may be following builds or hold a login.
@Suite struct ConfigReloadTests {
    static let config = """
        [session ci]
        kind = jenkins
        url = http://127.0.0.1:9/
        auth = basic:ada:env:HARK_TEST_UNUSED

        [session llm]
        kind = openai
        url = http://127.0.0.1:9/v1
        model = tiny

        [session notes]
        kind = local
        """

    @Test func unchangedSessionsKeepTheirBackendsAndChangedOnesGetNewOnes() throws {
        let home = TestHome(config: Self.config)
        let workspace = try home.workspace()
        let ci = try workspace.backend(for: "ci")
        let llm = try workspace.backend(for: "llm")
        let notes = try workspace.backend(for: "notes")

        // A session added above the others moves their lines in the file, not their settings.
        let edited = "[session new]\nkind = local\n\n" + Self.config.replacingOccurrences(of: "model = tiny", with: "model = large")
        _ = FileManager.default.createFile(atPath: home.paths.configFile, contents: Data(edited.utf8),
                                           attributes: [.posixPermissions: 0o600])
        try workspace.reloadConfig()

        #expect(try workspace.backend(for: "ci") === ci)
        #expect(try workspace.backend(for: "notes") === notes)
        #expect(try workspace.backend(for: "llm") !== llm, "its model changed")

        // A session removed and added back with the same settings starts afresh.
        let without = edited.replacingOccurrences(of: "[session notes]\nkind = local", with: "")
        _ = FileManager.default.createFile(atPath: home.paths.configFile, contents: Data(without.utf8),
                                           attributes: [.posixPermissions: 0o600])
        try workspace.reloadConfig()
        #expect(throws: (any Error).self) { try workspace.backend(for: "notes") }
        _ = FileManager.default.createFile(atPath: home.paths.configFile, contents: Data(edited.utf8),
                                           attributes: [.posixPermissions: 0o600])
        try workspace.reloadConfig()
        #expect(try workspace.backend(for: "notes") !== notes)
        #expect(try workspace.backend(for: "ci") === ci)
    }
}
