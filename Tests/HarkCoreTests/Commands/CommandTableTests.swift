import Foundation
import Testing
import TestSupport
@testable import HarkCore

@Suite struct CommandTableTests {
    /// Every form of every command (subcommands, and the bare form of those that have one)
    /// reaches its handler in a session of each kind it applies to: none answers "unknown
    /// command" or "does not apply", as a spec without code behind it would. The sessions
    /// point at a loopback server that knows no path (404), so the handlers that go to the
    /// network fail at once, which is all this needs: it checks dispatch, not the protocols.
    @Test func everyFormOfEveryCommandReachesItsHandler() async throws {
        let server = try TestHTTPServer { _, writer in writer.send(status: 404, text: "not here") }
        defer { server.stop() }
        setenv("HARK_TEST_DISPATCH_TOKEN", "t0k3n", 1)
        var config = ""
        for kind in BackendRegistry.names where kind != "local" {
            config += "[session \(kind)]\nkind = \(kind)\nurl = \(server.baseURL)\n"
                + (kind == "monica" ? "auth = bearer:env:HARK_TEST_DISPATCH_TOKEN\n" : "")
        }
        let home = TestHome(config: config)
        let workspace = try home.workspace()
        let transcript = Transcript(workspace)
        var tried = 0
        for kind in BackendRegistry.names {
            for spec in workspace.commandTable.applicable(to: kind) {
                for line in Self.lines(for: spec) {
                    try workspace.switchSession(to: kind)
                    let output = await transcript.type(line)
                    #expect(!output.contains("unknown command") && !output.contains("does not apply"), "\(kind): \(output)")
                    tried += 1
                }
            }
        }
        #expect(tried > 100)
    }

    /// A line for each form of a command, its required arguments filled with `x`.
    static func lines(for spec: CommandSpec) -> [String] {
        func filled(_ form: CommandSpec, _ prefix: String) -> String {
            ([prefix] + form.arguments.filter(\.isRequired).map { _ in "x" }).joined(separator: " ")
        }
        var lines = [filled(spec, "/" + spec.name)]
        if spec.bare != nil { lines.append("/" + spec.name) }
        for sub in spec.subcommands { lines.append(filled(sub, "/\(spec.name) \(sub.name)")) }
        return lines
    }

    @Test func namesAreUniquePerKindAndSpecsAreWellFormed() {
        for kind in BackendRegistry.names {
            let specs = CommandTable.standard.specs.filter { $0.kinds?.contains(kind) == true }
            #expect(Set(specs.map(\.name)).count == specs.count, "duplicate command for \(kind)")
        }
        for spec in CommandTable.standard.specs {
            #expect(Set(spec.subcommands.map(\.name)).count == spec.subcommands.count, "duplicate subcommand of /\(spec.name)")
            for form in [spec] + spec.subcommands {
                // A repeating or text argument takes the rest, so it comes last; options are
                // taken from among the words, which a text argument keeps as typed.
                let greedy = form.arguments.firstIndex(where: \.isGreedy)
                #expect(greedy == nil || greedy == form.arguments.count - 1, "/\(form.name): a greedy argument not last")
                #expect(form.options.isEmpty || !form.arguments.contains { $0.count == .text || $0.count == .optionalText },
                        "/\(form.name) has options and a text argument")
                #expect(Set(form.arguments.map(\.name)).count == form.arguments.count, "/\(form.name): two arguments named alike")
            }
        }
    }

    @Test func argumentsAreCheckedAndBoundFromTheSpec() throws {
        let export = try #require(CommandTable.standard.lookup("export", kind: "local"))
        func parse(_ spec: CommandSpec, _ line: String, skipping: Int = 0) throws -> CommandArguments {
            try CommandArguments.parse(try #require(try CommandInvocation.parse(line)), skipping: skipping, for: spec)
        }
        // A word that is not one of an optional argument's choices leaves it out.
        let toFile = try parse(export, "/export notes.md")
        #expect(toFile["md|json"] == nil)
        #expect(toFile["FILE"] == "notes.md")
        #expect(try parse(export, "/export JSON")["md|json"] == "json")
        #expect(throws: export.badArguments()) { try parse(export, "/export xml nowhere extra") }
        #expect(export.badArguments().message == "usage: /export [md|json] [FILE]")
        // A text argument is the rest of the line as typed.
        let thread = try #require(CommandTable.standard.lookup("thread", kind: "local"))
        let rename = try #require(thread.subcommand("rename"))
        #expect(try parse(rename, #"/thread rename "Big refactor" now"#, skipping: 1)["TITLE"] == #""Big refactor" now"#)
        #expect(throws: HarkError.self) { try parse(rename, "/thread rename", skipping: 1) }
        // Options anywhere among the words; the usage error carries the reason and the hint.
        let prompt = try #require(CommandTable.standard.lookup("prompt", kind: "local"))
        let sent = try parse(prompt, "/prompt --send translate text=hi lang=fr")
        #expect(sent.flag("--send"))
        #expect(sent["NAME"] == "translate")
        #expect(sent.list("KEY=VALUE") == ["text=hi", "lang=fr"])
        #expect(prompt.badArguments("one name").message
                == "usage: /prompt NAME [KEY=VALUE…] [--send]; one name; /prompts lists the names")
        #expect(throws: HarkError.usage("unknown option --sned for /prompt; did you mean --send?")) {
            try parse(prompt, "/prompt x --sned")
        }
    }

    @Test func aSubcommandRunsUnderItsFullName() throws {
        let (spec, _, arguments) = try CommandTable.standard.resolve(
            try #require(try CommandInvocation.parse("/thread rm 12")), kind: "local")
        #expect(spec.name == "thread rm")
        #expect(spec.usage == "/thread rm [ID]")
        #expect(arguments["ID"] == "12")
        #expect(throws: HarkError.commandNotForKind(command: "/jobs", kind: "local")) {
            try CommandTable.standard.resolve(try #require(try CommandInvocation.parse("/jobs")), kind: "local")
        }
    }

    @Test func theOptionParserReadsEveryForm() throws {
        let options = [OptionSpec(["-s", "--session"], "NAME", "s"), OptionSpec(["--json"], nil, "j"),
                       OptionSpec(["--set"], "K=V", "set", repeats: true), OptionSpec(["--grammar"], "WORD…", "g", takesWords: true),
                       OptionSpec(["--kind"], "KIND", "k", isRequired: true)]
        let parsed = try OptionParser.parse(["hi", "-s", "a", "--session=b", "--set", "x=1", "--set", "y=2", "--json",
                                             "--grammar", "yes", "no", "--kind", "k", "--", "--json", "-"],
                                            options: options, help: "hark --help")
        #expect(parsed.words == ["hi", "--json", "-"])
        #expect(parsed.value("--session") == "b")
        #expect(parsed.values("--set") == ["x=1", "y=2"])
        #expect(parsed.values("--grammar") == ["yes", "no"])
        #expect(parsed.flag("--json"))
        #expect(throws: HarkError.usage("unknown option --jsn; did you mean --json?")) {
            try OptionParser.parse(["--jsn"], options: options, help: "hark --help")
        }
        #expect(throws: HarkError.usage("unknown option --frobnicate for hark history; see hark help history")) {
            try OptionParser.parse(["--frobnicate"], options: options, place: "hark history", help: "hark help history")
        }
        #expect(throws: HarkError.usage("-s needs a value; see hark --help")) {
            try OptionParser.parse(["--kind", "k", "-s"], options: options, help: "hark --help")
        }
        #expect(throws: HarkError.usage("session add needs --kind")) {
            try OptionParser.parse([], options: options, place: "session add", help: "x")
        }
    }

    @Test func parsingSplitsLikeAShellAndKeepsTheRawRest() throws {
        let invocation = try #require(try CommandInvocation.parse(#"/thread rename "Big refactor" now"#))
        #expect(invocation.name == "thread")
        #expect(invocation.arguments == ["rename", "Big refactor", "now"])
        #expect(invocation.rawArguments(droppingFirst: 1) == #""Big refactor" now"#)
        #expect(try CommandInvocation.parse("//not a command") == nil)
        #expect(try CommandInvocation.parse("plain") == nil)
        #expect(throws: HarkError.self) { try CommandInvocation.parse(#"/search "open"#) }
    }

    /// Found by the command fuzzer: a pasted multi-line command with an open quote gave an
    /// error of several lines.
    @Test func anUnterminatedQuoteInAMultiLinePasteIsAOneLineError() {
        do {
            _ = try CommandInvocation.parse("/run \"first line\nsecond line\r\nthird")
            Issue.record("an unterminated quote parsed")
        } catch {
            #expect((error as? HarkError)?.message == "unterminated quote in: \"first line second line third")
        }
    }

    @Test func didYouMeanFindsNearNames() {
        #expect(Suggest.closest(to: "/sesions", in: ["/sessions", "/session", "/search"]) == "/sessions")
        #expect(Suggest.closest(to: "/hsitory", in: ["/history", "/help"]) == "/history")
        #expect(Suggest.closest(to: "/zzzzzz", in: ["/history", "/help"]) == nil)
    }

    @Test func completionOffersSubcommandsThreadsAndOptionValues() throws {
        let spec = try #require(CoreCommands.all.first { $0.name == "thread" })
        #expect(spec.completion(for: [], position: 0) == [.choices(["fork", "new", "rename", "rm"]), .threads])
        #expect(spec.completion(for: ["rm"], position: 1) == [.threads])
        #expect(spec.completion(for: ["rename"], position: 1) == [.none])
        let session = try #require(CoreCommands.all.first { $0.name == "session" })
        #expect(session.completion(for: ["add", "x", "--kind"], position: 3) == [.kinds])
        #expect(session.completion(for: ["add", "x"], position: 2).contains(
            .choices(["--kind", "--url", "--auth", "--model", "--system", "--set"])))
    }
}
