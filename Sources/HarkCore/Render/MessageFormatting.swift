/// Messages as lines to show.
public enum MessageFormatting {
    /// `firstNumber`: the place in the thread of the first message not superseded, to number
    /// them (`/history`); superseded ones are marked and get no number. `attachments`: the
    /// files that went with each message, by message id.
    public static func document(_ messages: [Message], session: SessionConfig, firstNumber: Int? = nil,
                                attachments: [Int64: [Attachment]] = [:]) -> Document {
        var lines: Document = []
        let replyStyle: Style = BackendRegistry.repliesAreMarkdown(kind: session.kind) ? .markdownBlock : .plain
        var number = firstNumber
        for message in messages {
            if message.role == .tool {
                // A tool call and its result: two dim lines, as they showed while the reply ran.
                for line in message.text.lineSlices(keepingEmpty: false).prefix(2) {
                    lines.append(StyledLine("  ⚙ " + MessageLine.make(String(line), limit: 200), .dim))
                }
                // Counted as the thread counts it, so the numbers after it stay right.
                if let current = number, message.supersededBy == nil { number = current + 1 }
                continue
            }
            if message.role == .user && message.text == Workspace.continueInstruction {
                // hark's own request for the rest of a reply, not something the user wrote.
                lines.append(StyledLine("  · /continue: asked for the rest of the reply", .dim))
                if let current = number, message.supersededBy == nil { number = current + 1 }
                continue
            }
            var header: [Span] = []
            if let current = number, message.supersededBy == nil {
                header.append(Span("\(current) ", .dim))
                number = current + 1
            }
            header += [Span(message.role == .user ? "you" : message.session, message.role == .user ? .user : .accent),
                       Span(" · " + TimeFormat.short(message.createdAt), .dim)]
            if message.status != .complete { header.append(Span(" · " + message.status.rawValue, .warning)) }
            if let by = message.supersededBy {
                // /edit last points at the newer message that replaced it; /retry at the message retried.
                header.append(Span(" · superseded (\(by > message.id ? "/edit last" : "/retry"))", .dim))
            }
            lines.append(StyledLine(header))
            lines.append(StyledLine(message.text, message.role == .user ? .plain : replyStyle))
            if let piped = message.pipedText {
                lines.append(StyledLine("  piped in: \(piped.split(separator: "\n", omittingEmptySubsequences: false).count) lines, "
                                        + ByteCount.format(piped.utf8.count), .dim))
            }
            for file in attachments[message.id] ?? [] {
                lines.append(StyledLine("  attached: \(file.name) (\(file.size) bytes)", .dim))
            }
            for note in message.notes { lines.append(StyledLine("  » " + note, .dim)) }
            if let error = message.error { lines.append(StyledLine("  " + error, .error)) }
        }
        return lines
    }

    static func who(_ role: MessageRole) -> String {
        switch role {
        case .user: return "you"
        case .tool: return "tool"
        case .assistant, .system: return "reply"
        }
    }

    public static func searchDocument(_ hits: [SearchHit]) -> Document {
        var lines: Document = []
        for hit in hits {
            lines.append(StyledLine([
                Span("#\(hit.message.id) ", .dim), Span(hit.message.session, .accent), Span(" · " + hit.threadTitle, .bold),
                Span(" · " + Self.who(hit.message.role) + " · " + TimeFormat.short(hit.message.createdAt), .dim),
            ]))
            lines.append(highlighted(hit.snippet))
        }
        return lines
    }

    /// The FTS snippet with its \u{1}…\u{2} match markers turned into bold spans and line
    /// breaks into spaces. Read by scalar: the markers are control characters, which never
    /// join a grapheme, so this needs neither grapheme breaking nor Foundation.
    static func highlighted(_ snippet: String) -> StyledLine {
        var spans: [Span] = [Span("  ")]
        var current = String.UnicodeScalarView()
        var bold = false
        for scalar in snippet.unicodeScalars {
            if scalar == "\u{1}" || scalar == "\u{2}" {
                if !current.isEmpty { spans.append(Span(String(current), bold ? .bold : .plain)) }
                current = String.UnicodeScalarView()
                bold = scalar == "\u{1}"
            } else {
                current.append(scalar == "\n" ? " " : scalar)
            }
        }
        if !current.isEmpty { spans.append(Span(String(current), bold ? .bold : .plain)) }
        return StyledLine(spans)
    }
}
