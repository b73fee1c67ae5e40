import Foundation
import Testing
@testable import HarkCore

/// The README's configuration reference cannot fall behind the code: every setting a kind
/// understands is named there, and so is every kind.
@Suite struct ReadmeTests {
    static let readme: String = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        return (try? String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)) ?? ""
    }()

    @Test func everyKindAndSettingIsDocumented() {
        for kind in BackendRegistry.kinds {
            #expect(Self.readme.contains("`\(kind.name)`"), "README.md does not mention the \(kind.name) kind")
            for setting in kind.settings + CommonSettings.all {
                #expect(Self.readme.contains("`\(setting.key)`"), "README.md does not document \(kind.name)'s setting \(setting.key)")
            }
        }
    }

    @Test func theTwoCommandsAreTheScriptsThatExist() {
        #expect(Self.readme.contains("scripts/run.sh"))
        #expect(Self.readme.contains("scripts/test.sh"))
    }
}
