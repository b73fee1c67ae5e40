import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// Typed settings: each kind declares what its values must be, and a config holding a value of
/// the wrong type is refused when it loads, naming the line (exit 3), before anything is sent.
@Suite struct SettingTypeTests {
    @Test(arguments: [
        (SettingType.whole(1...100), "15", nil),
        (.whole(1...100), " 100 ", nil),
        (.whole(1...100), "0", "must be a whole number from 1 to 100, not \"0\""),
        (.whole(1...100), "lots", "must be a whole number from 1 to 100, not \"lots\""),
        (.count, "0", nil),
        (.count, "-1", "must be a whole number, 0 or more, not \"-1\""),
        (.positiveCount, "2.5", "must be a whole number, 1 or more, not \"2.5\""),
        (.seconds, "0.25", nil),
        (.seconds, "-3", "must be a number, 0 or more, not \"-3\""),
        (.seconds, "inf", "must be a number, 0 or more, not \"inf\""),
        (.number(0.3...10), "12", "must be a number from 0.3 to 10, not \"12\""),
        (.flag, "Yes", nil),
        (.flag, "0", nil),
        (.flag, "sometimes", "must be on or off, not \"sometimes\""),
        (.choice(["auto", "on", "off"]), "AUTO", nil),
        (.choice(["auto", "on", "off"]), "never", "must be auto, on or off, not \"never\""),
        (.text, "anything at all", nil),
    ] as [(SettingType, String, String?)])
    func valuesAreCheckedAgainstTheirType(_ type: SettingType, _ value: String, _ problem: String?) {
        #expect(type.problem(with: value) == problem)
    }

    @Test func aBadValueStopsTheLoadWithItsLineAndExitThree() throws {
        let home = TestHome(config: """
            [session bot]
            kind = openai
            url = http://127.0.0.1:9/v1
            # the reply's length
            max_tokens = lots
            """)
        do {
            _ = try home.workspace()
            Issue.record("a config with max_tokens = lots loaded")
        } catch {
            #expect(error.userMessage == "\(home.paths.configFile):5: session bot: max_tokens must be a whole number, 0 or more, not \"lots\"")
            #expect(error.exitCode == .config)
        }
    }

    @Test func commonSettingsAreCheckedForEveryKindAndGoodValuesLoad() throws {
        let bad = TestHome(config: "[session notes]\nkind = local\nspeak = loud\n")
        #expect(throws: HarkError.self) { try bad.workspace() }
        let good = TestHome(config: """
            [session ci]
            kind = jenkins
            url = http://127.0.0.1:9/
            crumb = Off
            poll_interval = 0.5
            idle_timeout = 30
            rate = 200
            """)
        _ = try good.workspace()
    }

    /// `/config` (and anything that reloads) keeps the config it had when the new one is wrong.
    @Test func aReloadWithABadValueKeepsTheOldConfig() throws {
        let home = TestHome(config: "[session ci]\nkind = jenkins\nurl = http://127.0.0.1:9/\n")
        let workspace = try home.workspace()
        try "[session ci]\nkind = jenkins\nurl = http://127.0.0.1:9/\npoll_interval = soon\n"
            .write(toFile: home.paths.configFile, atomically: true, encoding: .utf8)
        #expect(throws: HarkError.self) { try workspace.reloadConfig() }
        #expect(workspace.config.session(named: "ci")?["poll_interval"] == nil)
    }

    /// `hark session edit` refuses a bad value before writing it.
    @Test func editingRefusesABadValueAndWritesNothing() throws {
        let home = TestHome(config: "[session ci]\nkind = jenkins\nurl = http://127.0.0.1:9/\n")
        let before = try String(contentsOfFile: home.paths.configFile, encoding: .utf8)
        let session = try #require(try home.workspace().config.session(named: "ci"))
        #expect(throws: HarkError.self) { try SessionEditing.set(["crumb=sometimes"], session: session, paths: home.paths) }
        #expect(try String(contentsOfFile: home.paths.configFile, encoding: .utf8) == before)
    }
}
