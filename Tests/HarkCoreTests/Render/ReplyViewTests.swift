import Testing
import TestSupport
@testable import HarkCore

/// Shows `segments` through a ReplyView, each text or reasoning segment cut into several
/// events at the given offsets; returns what went to the output and to the error stream.
func showReply(_ segments: [ReplyEvent], format: ReplyView.Format, colors: Bool = false, seed: UInt64? = nil,
               outcome: ReplyOutcome = .complete, markdown: Bool = true, sanitize: Bool? = nil,
               width: Int = 80) -> (out: String, err: String) {
    var out = "", err = ""
    let capabilities = TerminalCapabilities(isTTY: format == .terminal, colors: colors, sanitizes: sanitize)
    let view = ReplyView(format: format, capabilities: capabilities, markdown: markdown, width: { width },
                         output: { out += $0 }, errorOutput: { err += $0 })
    var generator = seed.map { SplitMix(seed: $0) }
    for segment in segments {
        switch segment {
        case .text(let text), .reasoning(let text):
            let scalars = Array(text.unicodeScalars)
            var cuts: [Int] = []
            if var random = generator {
                cuts = (0..<Int(random.next() % 6)).map { _ in Int(random.next() % UInt64(max(scalars.count, 1))) }.sorted()
                generator = random
            }
            var start = 0
            for cut in cuts + [scalars.count] where cut >= start {
                let piece = String(String.UnicodeScalarView(scalars[start..<cut]))
                if case .text = segment { view.render(.text(piece)) } else { view.render(.reasoning(piece)) }
                start = cut
            }
        default:
            view.render(segment)
        }
    }
    view.end(outcome, messageID: 7)
    return (out, err)
}

@Suite struct ReplyViewTests {
    static let reply: [ReplyEvent] = [
        .model("tiny"), .reasoning("The user wants\na list."), .status("searching"), .text("Here are **two**:\n- one\n"),
        .notice("1 pending edit"), .text("- two, with `code`\n\nDone"), .usage(Usage(promptTokens: 3, completionTokens: 5)),
        .finished(reason: "stop"),
    ]

    @Test func onATerminalReasoningStatusAndNoticesStandApartFromTheText() {
        let shown = showReply(Self.reply, format: .terminal)
        #expect(shown.out == """
            The user wants
            a list.
            · searching
            Here are **two**:
            - one
            » 1 pending edit
            - two, with `code`

            Done

            """)
        #expect(shown.err.isEmpty)
    }

    @Test func inAPipeOnlyTheTextAndNoticesOnTheErrorStream() {
        let shown = showReply(Self.reply, format: .plain)
        #expect(shown.out == "Here are **two**:\n- one\n- two, with `code`\n\nDone")
        #expect(shown.err == "hark: 1 pending edit\n")
    }

    @Test func asJSONOneObjectPerEventAndTheEnd() throws {
        let lines = showReply([.text("a"), .usage(Usage(promptTokens: 1, completionTokens: 2, totalTokens: 3))], format: .json).out
            .split(separator: "\n").map { try? JSON.parse(String($0)) }
        #expect(lines.count == 3)
        #expect(lines[0]?["text"] == "a")
        #expect(lines[2]?["type"] == "done")
        #expect(lines[2]?["usage"]?["total_tokens"] == 3)
        #expect(lines[2]?["message_id"] == 7)
    }

    @Test func aStoppedReplySaysSoOnItsOwnLine() {
        #expect(showReply([.text("half")], format: .terminal, outcome: .stopped).out == "half\n(stopped; what arrived is kept)\n")
    }

    /// However the backend cut the text into events, the screen and the pipe show the same.
    @Test func randomCutsShowLikeWholeEvents() {
        for format in [ReplyView.Format.terminal, .plain] {
            for colors in format == .terminal ? [false, true] : [false] {
                let whole = showReply(Self.reply, format: format, colors: colors, width: 12)
                for seed in 1...200 as ClosedRange<UInt64> {
                    let cut = showReply(Self.reply, format: format, colors: colors, seed: seed, width: 12)
                    if format == .terminal {
                        let screen = VirtualScreen(width: 12, showing: cut.out), expected = VirtualScreen(width: 12, showing: whole.out)
                        #expect(screen == expected, "colours \(colors), seed \(seed): \(screen.difference(from: expected))")
                    } else {
                        #expect(cut.out == whole.out, "seed \(seed)")
                    }
                    #expect(cut.err == whole.err)
                }
            }
        }
    }

    static let hostile = "Hello \u{1B}]52;c;cHduZWQ=\u{7} \u{1B}]0;PWNED-TITLE\u{7} \u{1B}[2J \u{1B}]8;;http://evil.example/\u{7}click"
        + "\u{1B}]8;;\u{7} \u{1B}P+q\u{1B}\\ \u{9B}31m \u{7} END"

    @Test func aPipeGetsTheBytesAsSentAndSanitizeShowsThemAsMarks() {
        #expect(showReply([.text(Self.hostile)], format: .plain).out == Self.hostile)
        let sanitized = showReply([.text(Self.hostile)], format: .plain, sanitize: true).out
        #expect(sanitized == "Hello ␛]52;c;cHduZWQ=␇ ␛]0;PWNED-TITLE␇ ␛[2J ␛]8;;http://evil.example/␇click␛]8;;␇ ␛P+q␛\\ ␛[31m ␇ END")
    }

    @Test func onATerminalNoSequenceOfTheReplyReachesTheScreen() {
        for colors in [false, true] {
            for markdown in [false, true] {
                let out = showReply([.text(Self.hostile), .reasoning("\u{1B}[2Jthink"), .status("\u{1B}]0;x\u{7}s"),
                                     .notice("\u{7}n")], format: .terminal, colors: colors, markdown: markdown, width: 200).out
                let screen = VirtualScreen(width: 200, showing: out)
                #expect(screen.faults.isEmpty, "colours \(colors), markdown \(markdown): \(screen.faults)")
                #expect(screen.text.contains("Hello ␛]52;c;cHduZWQ=␇ ␛]0;PWNED-TITLE␇ ␛[2J ␛]8;;http://evil.example/␇click"))
                #expect(!out.unicodeScalars.contains { $0 == "\u{7}" || (0x80...0x9F).contains($0.value) })
            }
        }
    }

    @Test func aConsoleKeepsItsColoursWrittenAgainFromParsedSGR() {
        let out = showReply([.text("\u{1B}[1;31mred\u{1B}[0m plain \u{1B}[38;5;208morange\u{1B}[39m \u{1B}[8mhidden\u{1B}[0m\n")],
                            format: .terminal, colors: true, markdown: false).out
        let screen = VirtualScreen(width: 80, showing: out)
        #expect(screen.faults.isEmpty)
        #expect(screen.lines == ["red plain orange hidden"])
        #expect(screen.style(of: "red") == "0;1;31")
        #expect(screen.style(of: "plain") == "")
        #expect(screen.style(of: "orange") == "0;38;5;208")
        // Concealed text would be there and unseen: it is shown.
        #expect(screen.style(of: "hidden") == "")
    }

    @Test func aStatusLineInTheMiddleOfARowLeavesTheTextToGoOnAfterIt() {
        let out = showReply([.text("- a list item that"), .status("working"), .text(" wraps onto more rows\n")], format: .terminal,
                            colors: true, width: 20).out
        #expect(VirtualScreen(width: 20, showing: out).lines == ["• a list item that", "· working", "  wraps onto more", "  rows"])
    }
}

/// A code line streamed in pieces ends coloured as the whole line is: the token still arriving
/// is shown plain and settled in its colour, and no colour of one token may stay on the next.
@Suite struct StreamedCodeColourTests {
    static let block = "```bash\n# promote the build\n./deploy.sh --env prod --tag \"v2.4.1\" && echo \"ok\"\n```\n"

    @Test func everyCutInTwoOrThreeLeavesTheScreenOfTheWholeBlock() {
        let expected = VirtualScreen(width: 60, showing: showReply([.text(Self.block)], format: .terminal, colors: true, width: 60).out)
        let scalars = Array(Self.block.unicodeScalars)
        func piece(_ range: Range<Int>) -> ReplyEvent { .text(String(String.UnicodeScalarView(scalars[range]))) }
        var differing: [String] = []
        for first in 1..<scalars.count {
            for second in [first, min(first + 1, scalars.count), min(first + 3, scalars.count)] {
                let pieces = second > first ? [piece(0..<first), piece(first..<second), piece(second..<scalars.count)]
                    : [piece(0..<first), piece(first..<scalars.count)]
                let screen = VirtualScreen(width: 60, showing: showReply(pieces, format: .terminal, colors: true, width: 60).out)
                if screen != expected { differing.append("cut at \(first), \(second): \(screen.difference(from: expected))") }
            }
        }
        #expect(differing.isEmpty, "\(differing.prefix(3))")
    }
}
