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
    private let renderMarkdown: Bool
    private var markdown: MarkdownRenderer
    private var atLineStart = true
    private var inReasoning = false
    private var sawFirstEvent = false
    private var spinnerVisible = false
    private var spinnerFrame = 0
    private let started = Date()
    private var usage: Usage?
    private var finishReason: String?
    private var wroteText = false

    private let output: (String) -> Void
    private let errorOutput: (String) -> Void

    /// `markdown: false` shows the text as it comes even on a colour terminal (a console).
    public init(format: Format, capabilities: TerminalCapabilities, markdown: Bool = true,
                output: @escaping (String) -> Void, errorOutput: @escaping (String) -> Void) {
        self.format = format
        self.output = output
        self.errorOutput = errorOutput
        ansi = ANSI(enabled: capabilities.colors)
        renderMarkdown = markdown && format == .terminal && capabilities.colors
        self.markdown = MarkdownRenderer(ansi: ansi)
    }

    public var wantsSpinner: Bool { format == .terminal && !sawFirstEvent }

    /// A header when the reply comes from a session other than the current one.
    public func header(_ session: String) {
        guard format == .terminal else { return }
        out(ansi.wrap(session + " ›", .accent) + "\n")
    }

    public func tickSpinner() {
        guard wantsSpinner else { return }
        let frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]
        spinnerFrame = (spinnerFrame + 1) % frames.count
        let elapsed = Date().timeIntervalSince(started)
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
                out(text)
                return
            }
            if inReasoning {
                inReasoning = false
                out(ansi.end(.dim) + (atLineStart ? "\n" : "\n\n"))
                atLineStart = true
            }
            out(renderMarkdown ? markdown.feed(text) : text)
            atLineStart = text.hasSuffix("\n")
        case .reasoning(let text):
            guard format == .terminal else { return }
            if !inReasoning {
                inReasoning = true
                out(ansi.start(.dim))
            }
            out(text)
            atLineStart = text.hasSuffix("\n")
        case .status(let text):
            guard format == .terminal else { return }
            line(ansi.wrap("· " + text, .dim))
        case .notice(let text):
            if format == .terminal {
                line(ansi.wrap("» " + text, .accent))
            } else {
                errorOutput("hark: \(text)\n")
            }
        case .usage(let reported):
            usage = reported
        case .toolCall(let call):
            guard format == .terminal else { return }
            line(ansi.wrap("⚙ " + call.displayName + " " + MessageLine.make(call.arguments, limit: 200), .dim))
        case .toolResult(let result):
            guard format == .terminal else { return }
            line(ansi.wrap("  " + Self.resultLine(result), .dim))
        case .backendMessageID, .backendThreadID, .model, .finished, .detachable, .artifact, .promptEstimate, .resumable:
            break
        }
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

    /// Prints a status line on a line of its own, leaving the reply text intact around it.
    private func line(_ text: String) {
        if inReasoning {
            inReasoning = false
            out(ansi.end(.dim))
        }
        if !atLineStart { out("\n") }
        out(text + "\n")
        atLineStart = true
    }

    /// A dim line of the shell's own about this reply ("goes on in the background"), on a line
    /// of its own.
    public func aside(_ text: String) {
        guard format == .terminal else { return }
        clearSpinner()
        line(ansi.wrap(text, .dim))
    }

    /// A question of the reply's (may this tool run?) on a line of its own; the answer goes
    /// after it, then `answered` ends the line.
    public func ask(_ text: String) {
        clearSpinner()
        if inReasoning {
            inReasoning = false
            out(ansi.end(.dim))
        }
        if !atLineStart { out("\n") }
        out(ansi.wrap(text, .bold))
        atLineStart = false
    }

    public func answered(_ answer: String) {
        out(answer + "\n")
        atLineStart = true
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
            break
        case .terminal:
            if renderMarkdown { out(markdown.finish()) }
            if inReasoning { out(ansi.end(.dim)) }
            if !atLineStart { out("\n") }
            atLineStart = true
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
