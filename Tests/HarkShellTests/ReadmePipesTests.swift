import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// Every example in the README's "Pipes" section, run with /bin/sh as a reader would run it,
/// against a recording model server that answers for `llama` (a window of 2,048 tokens, no
/// vision, as llama.cpp's /props says): what hark printed on stderr, its exit code, and the
/// exact message the server received. An example cannot drift from what hark does.
///
/// The section's examples are ```sh blocks: `$ COMMAND` lines, each followed by the lines it
/// must print on stderr; `$ echo $?` is followed by the exit code of the command before it.
/// A ```text block right after a sh block is the last user message the server received for
/// the block's last command (a line `…` stands for any lines); a block without one whose last
/// command failed must have sent nothing. The commands run in a folder holding `photo.png` and
/// `report.pdf` (DocumentFixtures' two pages), with the built hark first on PATH.
@Suite struct ReadmePipesTests {
    struct Command {
        var line: String
        var stderr: [String] = []
        var status: Int32?
    }

    struct Example {
        var commands: [Command] = []
        var sends: String?
    }

    static let readme: String = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return (try? String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)) ?? ""
    }()

    /// The examples of the section, in order.
    static func examples() -> [Example] {
        guard let start = readme.range(of: "\n## Pipes\n") else { return [] }
        let section = readme[start.upperBound...].components(separatedBy: "\n## ").first ?? ""
        var examples: [Example] = []
        var fence: String?
        var info = ""
        var block: [String] = []
        var lastWasSh = false
        for line in section.components(separatedBy: "\n") {
            if let open = fence {
                guard line == open else {
                    block.append(line)
                    continue
                }
                fence = nil
                if info == "sh" {
                    examples.append(parseCommands(block))
                    lastWasSh = true
                } else if info == "text", lastWasSh, !examples.isEmpty {
                    examples[examples.count - 1].sends = block.joined(separator: "\n")
                    lastWasSh = false
                }
                continue
            }
            if line.hasPrefix("```") {
                let ticks = line.prefix { $0 == "`" }
                fence = String(ticks)
                info = String(line.dropFirst(ticks.count))
                block = []
            }
        }
        return examples
    }

    static func parseCommands(_ lines: [String]) -> Example {
        var example = Example()
        var awaitingStatus = false
        for line in lines {
            if line == "$ echo $?" {
                awaitingStatus = true
            } else if line.hasPrefix("$ ") {
                example.commands.append(Command(line: String(line.dropFirst(2))))
            } else if awaitingStatus {
                example.commands[example.commands.count - 1].status = Int32(line)
                awaitingStatus = false
            } else {
                example.commands[example.commands.count - 1].stderr.append(line)
            }
        }
        return example
    }

    /// `expected`, where a line `…` stands for any lines, matches `actual`.
    static func matches(_ actual: String, _ expected: String) -> Bool {
        let pieces = expected.components(separatedBy: "\n…\n")
        guard pieces.count > 1 else { return actual == expected }
        guard actual.hasPrefix(pieces[0] + "\n"), actual.hasSuffix("\n" + pieces[pieces.count - 1]) else { return false }
        var rest = actual.dropFirst(pieces[0].count)
        for piece in pieces.dropFirst().dropLast() {
            guard let found = rest.range(of: "\n" + piece + "\n") else { return false }
            rest = rest[found.upperBound...]
        }
        return true
    }

    @Test func theSectionHasItsExamples() {
        let examples = Self.examples()
        #expect(examples.count >= 8)
        #expect(examples.filter { $0.sends != nil }.count >= 6)
        #expect(Self.matches("a\nb\nc\nd", "a\n…\nd"))
        #expect(!Self.matches("a\nb", "a\n…\nd"))
    }

    @Test(.enabled(if: DocumentFixtures.hasPdftotext, "needs pdftotext; scripts/setup.sh --test installs poppler-utils"))
    func everyExampleDoesWhatTheReadmeSays() throws {
        let props: JSON = ["default_generation_settings": ["n_ctx": 2048], "modalities": ["vision": false, "audio": false]]
        // No usage in the answers: the token guesses stay uncalibrated, as the README's are.
        let server = try TestOpenAIServer(props: props) { _ in [.text("ok"), .done] }
        let home = TestHome(config: "[session llama]\nkind = openai\nurl = \(server.baseURL)\nmodel = gemma-3-270m\n")
        let folder = TemporaryDirectory()
        _ = FileManager.default.createFile(atPath: folder.file("report.pdf"),
                                       contents: Data(DocumentFixtures.pdf(pages: DocumentFixtures.reportPages)))
        _ = FileManager.default.createFile(atPath: folder.file("photo.png"), contents: Data(DocumentFixtures.png))
        var environment = home.environment
        environment["PATH"] = (BuiltProducts.hark as NSString).deletingLastPathComponent + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        for example in Self.examples() {
            let before = server.bodies.count
            var status: Int32 = 0
            for command in example.commands {
                let result = try Subprocess.run(["/bin/sh", "-c", "cd \"$0\" && " + command.line, folder.path],
                                                environment: environment, streams: .captured(input: Data()))
                status = result.status
                let stderr = String(decoding: result.stderr, as: UTF8.self)
                #expect(stderr == command.stderr.map { $0 + "\n" }.joined(), "stderr of: \(command.line)")
                if let expected = command.status { #expect(result.status == expected, "exit code of: \(command.line)") }
            }
            let last = example.commands.last?.line ?? ""
            if let sends = example.sends {
                let received = server.sentMessages.last?.last(where: { $0.role == .user })?.text ?? ""
                #expect(server.bodies.count > before, "\(last) sent nothing")
                #expect(Self.matches(received, sends), "\(last) sent:\n\(received)")
            } else if status != 0 {
                #expect(server.bodies.count == before, "\(last) failed, yet sent something")
            }
        }
    }
}
