import FoundationEssentials
import Glibc

/// Shows one reply as its events arrive. On a TTY: a spinner with elapsed time until the
/// first byte, Markdown when colours are on, reasoning dim, status lines apart from the text.
/// In a pipe: the reply text exactly as received on stdout and nothing else; notices go to
/// stderr. With --json: one JSON object per event per line. Writes through the given
/// sinks (the terminal's output and error streams; a string in tests).
public final class ReplyView {
    public enum Format: Sendable { case terminal, plain, json }

    private let format: Format
    private let ansi: ANSI
    private let width: () -> Int
    /// The reply's text on a colour terminal.
    private var markdown: MarkdownRenderer?
    /// The reply's text on a terminal without colours, or a console's.
    private var plain: PlainTextRenderer?
    private var reasoning: PlainTextRenderer
    /// In a pipe with `--sanitize`: the text's control sequences as marks, nothing else changed.
    private var pipeSanitizer: TerminalSanitizer?
    private var inReasoning = false
    private var sawFirstEvent = false
    private var spinnerVisible = false
    private var spinnerFrame = 0
    /// Durations shown (the spinner's seconds) are read on this clock.
    private let clock: HarkClock
    private let started: Double
    private var usage: Usage?
    private var finishReason: String?
    private var wroteText = false
    /// The cursor's column on the row the view last wrote to (0: at a line's start). hark cuts
    /// its lines itself and never relies on the terminal's auto-wrap, so this is the
    /// terminal's column too.
    public private(set) var column = 0

    private let output: (String) -> Void
    private let errorOutput: (String) -> Void

    /// `markdown: false` shows the text as it comes even on a colour terminal (a console, whose
    /// own colours are kept). `width` is asked before each piece of text (a resized window
    /// applies from the next line).
    public init(format: Format, capabilities: TerminalCapabilities, markdown: Bool = true, width: @escaping () -> Int = { 80 },
                clock: HarkClock = .system, output: @escaping (String) -> Void, errorOutput: @escaping (String) -> Void) {
        self.format = format
        self.clock = clock
        started = clock.uptime()
        self.output = output
        self.errorOutput = errorOutput
        self.width = width
        ansi = ANSI(capabilities)
        let columns = width()
        if format == .terminal && markdown && capabilities.colors {
            self.markdown = MarkdownRenderer(width: columns, hyperlinks: capabilities.hyperlinks)
        } else if format == .terminal {
            plain = PlainTextRenderer(width: columns, colors: capabilities.colors, keepingColors: !markdown, tracksFences: markdown)
        } else if format == .plain && capabilities.sanitizes {
            pipeSanitizer = TerminalSanitizer()
        }
        reasoning = PlainTextRenderer(width: columns, colors: capabilities.colors, base: TextAttributes([.dim]))
    }

    public var wantsSpinner: Bool { format == .terminal && !sawFirstEvent }

    /// A header when the reply comes from a session other than the current one.
    public func header(_ session: String) {
        guard format == .terminal else { return }
        out(ansi.wrap(session + " ›", .accent) + "\n")
        column = 0
    }

    public func tickSpinner() {
        guard wantsSpinner else { return }
        let frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]
        spinnerFrame = (spinnerFrame + 1) % frames.count
        let elapsed = clock.uptime() - started
        out("\r" + ansi.wrap(frames[spinnerFrame] + " " + String(cFormat: "%.1fs", elapsed), .dim) + "\u{1B}[K")
        spinnerVisible = true
    }

    private func clearSpinner() {
        guard spinnerVisible else { return }
        out("\r\u{1B}[K")
        spinnerVisible = false
    }

    public func render(_ event: ReplyEvent) {
        if format == .json {
            if let line = Self.json(for: event) { out(line.encoded() + "\n") }
            if case .usage(let reported) = event { usage = reported }
            if case .finished(let reason) = event { finishReason = reason }
            return
        }
        // hark's own note of what it sent is no sign of the reply: the spinner goes on.
        if case .promptEstimate = event { return }
        if !sawFirstEvent {
            sawFirstEvent = true
            clearSpinner()
        }
        switch event {
        case .text(let text):
            wroteText = true
            if format == .plain {
                plainText(text)
                return
            }
            if inReasoning { endReasoning(blankLine: true) }
            show(text)
        case .reasoning(let text):
            guard format == .terminal else { return }
            if !inReasoning {
                out(breakText())
                inReasoning = true
            }
            reasoning.width = width()
            out(reasoning.feed(text))
            column = reasoning.column
        case .status(let text):
            guard format == .terminal else { return }
            line("· " + text, .dim)
        case .notice(let text):
            if format == .terminal {
                line("» " + text, .accent)
            } else {
                errorOutput("hark: \(pipeSanitizer == nil ? text : TerminalSanitizer.visible(text))\n")
            }
        case .usage(let reported):
            usage = reported
        case .toolCall(let call):
            guard format == .terminal else { return }
            line("⚙ " + call.displayName + " " + MessageLine.make(call.arguments, limit: 200), .dim)
        case .toolResult(let result):
            guard format == .terminal else { return }
            line("  " + Self.resultLine(result), .dim)
        case .backendMessageID, .backendThreadID, .model, .finished, .detachable, .artifact, .promptEstimate, .resumable:
            break
        }
    }

    private func show(_ text: String) {
        let columns = width()
        if markdown != nil {
            markdown!.width = columns
            out(markdown!.feed(text))
            column = markdown!.column
        } else if plain != nil {
            plain!.width = columns
            out(plain!.feed(text))
            column = plain!.column
        }
    }

    private func plainText(_ text: String) {
        guard var sanitizer = pipeSanitizer else { return out(text) }
        var bytes: [UInt8] = []
        sanitizer.feed(text) { bytes += $0 }
        pipeSanitizer = sanitizer
        bytes.removeAll { $0 == TerminalSanitizer.markStart || $0 == TerminalSanitizer.markEnd }
        out(String(decoding: bytes, as: UTF8.self))
    }

    /// The reply's text stops where it is for another line; it goes on after it.
    private func breakText() -> String {
        var out = ""
        if markdown != nil {
            out = markdown!.breakLine()
            column = markdown!.column
        } else if plain != nil {
            out = plain!.breakLine()
            column = plain!.column
        }
        return out
    }

    private func endReasoning(blankLine: Bool) {
        inReasoning = false
        out(reasoning.finish() + (blankLine ? "\n" : ""))
        column = 0
    }

    /// A tool's result in one short line: what it returned, its error, or the refusal.
    static func resultLine(_ result: ToolResult) -> String {
        let text = MessageLine.make(result.text, limit: 160)
        switch result.outcome {
        case .ok: return "→ " + text
        case .error: return "→ error: " + text
        case .refused: return "→ not run"
        }
    }

    /// Prints a status line on a line of its own, cut to the width, leaving the reply text
    /// intact around it.
    private func line(_ text: String, _ style: Style) {
        if inReasoning { endReasoning(blankLine: false) } else { out(breakText()) }
        if column > 0 { out("\n") }
        let columns = width()
        for row in StyledLine(text, style).sanitized().wrapped(to: columns) { out(ansi.render(row) + "\n") }
        column = 0
    }

    /// The row the reply was on was ended by something else (a line typed below it and
    /// entered): the text goes on at the start of a new row, as a continuation of its line,
    /// without the space it held at the word break.
    public func rowEndedElsewhere() {
        guard format == .terminal, !inReasoning else { return }
        out(breakText())
    }

    /// A dim line of the shell's own about this reply ("goes on in the background"), on a line
    /// of its own.
    public func aside(_ text: String) {
        guard format == .terminal else { return }
        clearSpinner()
        line(text, .dim)
    }

    /// A question of the reply's (may this tool run?) on a line of its own; the answer goes
    /// after it, then `answered` ends the line.
    public func ask(_ text: String) {
        clearSpinner()
        if inReasoning { endReasoning(blankLine: false) } else { out(breakText()) }
        if column > 0 { out("\n") }
        let rows = StyledLine(text, .bold).sanitized().wrapped(to: width())
        out(rows.map { ansi.render($0) }.joined(separator: "\n"))
        column = rows.last.map { TextWidth.of($0.plainText) } ?? 0
    }

    /// A question's lines (an agent's form): hints in parentheses dim, the rest plain.
    public func questionLines(_ lines: [String]) {
        guard format == .terminal else { return }
        clearSpinner()
        for text in lines { line(text, text.hasPrefix("(") ? .dim : .plain) }
    }

    /// The terminal's line mode echoed the answer and its Enter: the cursor is at a line's start.
    public func answeredByTerminal() {
        column = 0
    }

    public func answered(_ answer: String) {
        out(answer + "\n")
        column = 0
    }

    /// The reply ended; `outcome` decides the closing line.
    public func end(_ outcome: ReplyOutcome, messageID: Int64?) {
        clearSpinner()
        switch format {
        case .json:
            var done: [String: JSON] = ["type": "done", "status": .string(outcome.status.rawValue)]
            if let messageID { done["message_id"] = .number(Double(messageID)) }
            if let finishReason { done["finish_reason"] = .string(finishReason) }
            if let usage {
                done["usage"] = ["prompt_tokens": JSON(usage.promptTokens), "completion_tokens": JSON(usage.completionTokens),
                                 "total_tokens": JSON(usage.totalTokens)]
            }
            if case .failed(let error, _) = outcome {
                out(JSON.object(["type": "error", "message": .string(error.message),
                                 "exit_code": .number(Double(error.exitCode.rawValue))]).encoded() + "\n")
            }
            out(JSON.object(done).encoded() + "\n")
        case .plain:
            if var sanitizer = pipeSanitizer {
                var bytes: [UInt8] = []
                sanitizer.finish { bytes += $0 }
                pipeSanitizer = TerminalSanitizer()
                bytes.removeAll { $0 == TerminalSanitizer.markStart || $0 == TerminalSanitizer.markEnd }
                if !bytes.isEmpty { out(String(decoding: bytes, as: UTF8.self)) }
            }
        case .terminal:
            if markdown != nil { out(markdown!.finish()) }
            if plain != nil { out(plain!.finish()) }
            if inReasoning { endReasoning(blankLine: false) }
            column = 0
            if outcome == .stopped { out(ansi.wrap("(stopped; what arrived is kept)", .dim) + "\n") }
        }
    }

    static func json(for event: ReplyEvent) -> JSON? {
        switch event {
        case .text(let text): return ["type": "text", "text": .string(text)]
        case .reasoning(let text): return ["type": "reasoning", "text": .string(text)]
        case .status(let text): return ["type": "status", "text": .string(text)]
        case .notice(let text): return ["type": "notice", "text": .string(text)]
        case .usage(let usage):
            return ["type": "usage", "prompt_tokens": JSON(usage.promptTokens),
                    "completion_tokens": JSON(usage.completionTokens), "total_tokens": JSON(usage.totalTokens)]
        case .backendThreadID(let id): return ["type": "thread", "server_id": .string(id)]
        case .model(let name): return ["type": "model", "model": .string(name)]
        case .artifact(let id, let name): return ["type": "artifact", "id": .string(id), "name": JSON(name)]
        case .toolCall(let call):
            return ["type": "tool_call", "id": .string(call.id), "server": JSON(call.server), "tool": .string(call.tool ?? call.name),
                    "arguments": (try? JSON.parse(call.arguments)) ?? .string(call.arguments)]
        case .toolResult(let result):
            return ["type": "tool_result", "id": .string(result.call.id), "server": JSON(result.call.server),
                    "tool": .string(result.call.tool ?? result.call.name), "status": .string(result.outcome.rawValue),
                    "text": .string(result.text)]
        case .backendMessageID, .finished, .detachable, .promptEstimate, .resumable: return nil
        }
    }

    private func out(_ text: String) {
        output(text)
    }
}
