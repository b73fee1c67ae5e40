import Foundation
import Testing
import TestSupport
@testable import HarkCore

@Suite struct ConfigFileTests {
    @Test func parsesSectionsQuotedValuesAndComments() throws {
        let config = try ConfigFile.parse("""
            # comment
            [hark]
            default = bot

            [session bot]
            kind = OpenAI
            url  = http://127.0.0.1:8080/v1
            system = "  Be brief.\\nAlways."
            ; another comment
            [session notes]
            kind = local
            """, path: "cfg")
        #expect(config.defaultSession == "bot")
        #expect(config.sessionNames == ["local", "bot", "notes"])
        let bot = try #require(config.session(named: "bot"))
        #expect(bot.kind == "openai")
        #expect(bot["system"] == "  Be brief.\nAlways.")
        #expect(config.session(named: "local")?.kind == "local", "the built-in session is always there")
    }

    @Test(arguments: [
        ("key = value", "cfg:1: key is outside any section; put it under [hark]"),
        ("[session a b]", "cfg:1: unknown section [session a b]; use [hark], [session NAME] or [mcp NAME]"),
        ("[session bad/name]\nkind = local", "cfg:1: session name \"bad/name\" may use letters, digits, _ . and - only"),
        ("[session x]\nurl = http://h", "cfg:1: session \"x\" has no kind"),
        ("[session x]\nkind = local\n[session x]\nkind = local", "cfg:3: session \"x\" is defined twice"),
        ("[session x]\nkind local", "cfg:2: expected KEY = VALUE"),
        ("[hark]\nv = \"open", "cfg:2: unterminated quoted value"),
        ("[hark", "cfg:1: a section header must end with ]"),
    ])
    func malformedFilesGiveOneLineWithTheLineNumber(_ text: String, _ message: String) {
        do {
            _ = try ConfigFile.parse(text, path: "cfg")
            Issue.record("expected an error for \(text)")
        } catch {
            #expect(error.userMessage == message)
            #expect(error.exitCode == .config)
        }
    }

    @Test func windowsLineEndingsAreLineEndings() throws {
        let config = try ConfigFile.parse("[session bot]\r\nkind = local\r\ndescription = notes\r\n", path: "cfg")
        #expect(config.session(named: "bot")?["description"] == "notes")
    }

    @Test func firstRunWritesTheCommentedDefaultPrivately() throws {
        let home = TestHome()
        let config = try ConfigFile.load(paths: home.paths)
        #expect(config.defaultSession == "local")
        let text = try String(contentsOfFile: home.paths.configFile, encoding: .utf8)
        #expect(text.contains("# [session helpdesk]"))
        var info = stat()
        stat(home.paths.configFile, &info)
        #expect(info.st_mode & 0o777 == 0o600)
    }

    @Test func aLiteralSecretInAReadableFileIsRefused() throws {
        let home = TestHome(config: "[session bot]\nkind = openai\nurl = http://127.0.0.1:1/v1\nauth = bearer:sk-live-123\n")
        chmod(home.paths.configFile, 0o644)
        do {
            _ = try ConfigFile.load(paths: home.paths)
            Issue.record("a world-readable literal secret was accepted")
        } catch {
            #expect(error.userMessage.contains("literal secret in auth but the file is readable by others; run chmod 600"))
            #expect(!error.userMessage.contains("sk-live-123"))
        }
        chmod(home.paths.configFile, 0o600)
        #expect(throws: Never.self) { _ = try ConfigFile.load(paths: home.paths) }
        // References are fine whatever the mode.
        let references = TestHome(config: "[session bot]\nkind = openai\nurl = http://h/v1\nauth = bearer:env:KEY\n")
        chmod(references.paths.configFile, 0o644)
        #expect(throws: Never.self) { _ = try ConfigFile.load(paths: references.paths) }
    }

    @Test func editingTouchesOnlyThatSessionsLines() throws {
        let original = """
            # my notes about the setup
            [session a]
            kind = webhook
            url = http://one
            # keep this comment

            [session b]
            kind = local
            """
        let added = ConfigFile.adding(SessionConfig(name: "c", kind: "openai", values: ["url": "http://c", "model": "m"]), to: original)
        #expect(added.hasPrefix(original))
        #expect(added.hasSuffix("[session c]\nkind = openai\nurl = http://c\nmodel = m\n"))
        let edited = ConfigFile.setting([("url", "http://two"), ("auth", "bearer:env:T"), ("stream", nil)], session: "a",
                                        kind: "webhook", in: original)
        #expect(edited.contains("url = http://two\nauth = bearer:env:T\n# keep this comment"))
        #expect(edited.contains("# my notes about the setup"))
        let removed = try #require(ConfigFile.removing(session: "a", from: original))
        #expect(!removed.contains("[session a]"))
        #expect(removed.contains("# my notes about the setup"))
        #expect(removed.contains("[session b]"))
        #expect(try ConfigFile.parse(removed, path: "x").session(named: "a") == nil)
    }

    /// Found by the config fuzzer: with a key written twice, editing changed the first line
    /// while reading takes the last, so the edit had no effect.
    @Test func editingAKeyWrittenTwiceChangesTheValueRead() throws {
        let original = "[session a]\nkind = openai\nurl = http://one\nurl = http://two\n"
        let edited = ConfigFile.setting([("url", "http://three")], session: "a", kind: "openai", in: original)
        #expect(try ConfigFile.parse(edited, path: "x").session(named: "a")?.url == "http://three")
        let removed = ConfigFile.setting([("url", nil)], session: "a", kind: "openai", in: original)
        #expect(try ConfigFile.parse(removed, path: "x").session(named: "a")?.url == nil)
    }

    /// Noticed by the config fuzzer: a value holding a line break other than LF (CR, CRLF,
    /// VT, FF, NEL, U+2028, U+2029) was written unquoted and split its line when read back.
    @Test(arguments: ["a\rb", "a\r\nb", "a\u{B}b", "a\u{C}b", "a\u{85}b", "a\u{2028}b", "a\u{2029}b",
                      "tab\there", " padded ", "\"quoted\"", "back\\slash\\u2028", "plain", "é\u{301}\r\u{2028}"])
    func anyValueSurvivesBeingWrittenAndReadBack(_ value: String) throws {
        let original = "[session a]\nkind = openai\nurl = http://one\n"
        let edited = ConfigFile.setting([("model", value)], session: "a", kind: "openai", in: original)
        let session = try #require(try ConfigFile.parse(edited, path: "x").session(named: "a"))
        #expect(session.values["model"] == value)
        #expect(session.url == "http://one")
        #expect(edited.split(whereSeparator: \.isNewline).count == 4, "\(edited.debugDescription)")
    }

    @Test func aBadUnicodeEscapeIsAConfigError() {
        #expect(throws: HarkError.self) { try ConfigFile.parse("[session a]\nkind = openai\nmodel = \"x\\u20\"\n", path: "x") }
    }

    @Test func authSpecsInBothForms() throws {
        #expect(try AuthSpec(parsing: "basic:ann:env:PW") == .basic(user: "ann", password: .environment("PW")))
        #expect(try AuthSpec(parsing: "header X-N8N-Key env:K") == .header(name: "X-N8N-Key", value: .environment("K")))
        #expect(try AuthSpec(parsing: "bearer:cmd:pass show api") == .bearer(.command("pass show api")))
        #expect(try AuthSpec(parsing: "basic:ann:cmd:pass show x") == .basic(user: "ann", password: .command("pass show x")))
        #expect(throws: HarkError.self) { try AuthSpec(parsing: "token:abc") }
        #expect(throws: HarkError.self) { try AuthSpec(parsing: "basic:ann") }
    }

    @Test func secretsResolveFromEnvFileAndCommand() throws {
        let directory = TemporaryDirectory()
        let file = directory.write("secret", "from-file\n")
        #expect(try SecretReference("env:HARK_T").resolve(environment: ["HARK_T": "from-env"]) == "from-env")
        #expect(try SecretReference("file:\(file)").resolve() == "from-file")
        #expect(try SecretReference("cmd:printf from-cmd").resolve() == "from-cmd")
        #expect(throws: HarkError.self) { try SecretReference("env:HARK_UNSET_X").resolve(environment: [:]) }
        #expect(throws: HarkError.self) { try SecretReference("cmd:exit 3").resolve() }
        // The description names where the secret lives, never the value.
        #expect(SecretReference("cmd:pass show very/secret --flag").description == "cmd:pass")
        #expect(SecretReference("hunter2").description == "(literal)")
    }
}
