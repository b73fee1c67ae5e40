import Testing
import TestSupport
@testable import HarkCore

/// Shows `segments` through a ReplyView, each text or reasoning segment cut into several
/// events at the given offsets; returns what went to the output and to the error stream.
func showReply(_ segments: [ReplyEvent], format: ReplyView.Format, colors: Bool = false, seed: UInt64? = nil,
               outcome: ReplyOutcome = .complete) -> (out: String, err: String) {
    var out = "", err = ""
    let view = ReplyView(format: format, capabilities: TerminalCapabilities(isTTY: format == .terminal, colors: colors),
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
                let whole = showReply(Self.reply, format: format, colors: colors)
                for seed in 1...200 as ClosedRange<UInt64> {
                    let cut = showReply(Self.reply, format: format, colors: colors, seed: seed)
                    #expect(cut.out == whole.out, "\(format), colours \(colors), seed \(seed)")
                    #expect(cut.err == whole.err)
                }
            }
        }
    }
}
