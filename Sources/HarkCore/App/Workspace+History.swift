import FoundationEssentials
import Glibc

extension Workspace {
    func showHistory(_ invocation: CommandInvocation) async throws -> CommandOutcome {
        var count = 20
        if let text = invocation.arguments.first {
            guard let number = Int(text), number > 0 else { throw HarkError.usage("usage: /history [N], N a positive number") }
            count = number
        }
        guard let thread = try currentThread() else { return .output([StyledLine("no messages in this thread yet", .dim)]) }
        let messages = try store.messages(threadID: thread.id, limit: count)
        guard !messages.isEmpty else { return .output([StyledLine("no messages in this thread yet", .dim)]) }
        return .output(MessageFormatting.document(messages, session: currentConfig))
    }

    func searchCommand(_ invocation: CommandInvocation) async throws -> CommandOutcome {
        let query = invocation.rawArguments
        guard !query.isEmpty else { throw HarkError.usage("usage: /search TEXT") }
        let hits = try store.search(query)
        guard !hits.isEmpty else { return .output([StyledLine("no messages match \(query)", .dim)]) }
        return .output(MessageFormatting.searchDocument(hits))
    }

    func exportCommand(_ invocation: CommandInvocation) async throws -> CommandOutcome {
        var format = "md"
        var file: String?
        for argument in invocation.arguments {
            if argument == "md" || argument == "json" || argument == "markdown" {
                format = argument == "json" ? "json" : "md"
            } else if file == nil {
                file = argument
            } else {
                throw HarkError.usage("usage: /export [md|json] [FILE]")
            }
        }
        guard let thread = try currentThread() else { throw HarkError.usage("there is no thread to export yet") }
        let messages = try store.messages(threadID: thread.id)
        let text = format == "json"
            ? Export.json(threads: [(thread, messages)]) : Export.markdown(threads: [(thread, messages)], session: currentConfig)
        guard let file else {
            var lines = text.lineSlices().map { StyledLine(String($0)) }
            if lines.last?.plainText.isEmpty == true { lines.removeLast() }
            return .output(lines)
        }
        let path = file.expandingTildeInPath
        guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8)) else {
            throw HarkError.io("cannot write \(path)")
        }
        return .output([StyledLine("wrote \(messages.count) messages to \(path)", .success)])
    }
}

/// Threads as Markdown or JSON, for `/export` and `hark export`.
public enum Export {
    public static func markdown(threads: [(ChatThread, [Message])], session: SessionConfig?) -> String {
        var out = ""
        for (thread, messages) in threads {
            out += "# \(thread.title)\n\n"
            out += "_\(thread.session) · thread #\(thread.id) · \(TimeFormat.format(thread.createdAt))_\n\n"
            for message in messages {
                let who = message.role == .user ? "You" : thread.session
                var heading = "## \(who) · \(TimeFormat.format(message.createdAt))"
                if message.status != .complete { heading += " (\(message.status.rawValue))" }
                out += heading + "\n\n" + message.text + "\n\n"
                for note in message.notes { out += "> " + note + "\n\n" }
            }
        }
        return out
    }

    public static func json(threads: [(ChatThread, [Message])]) -> String {
        let array: [JSON] = threads.map { thread, messages in
            [
                "id": .number(Double(thread.id)), "session": .string(thread.session), "title": .string(thread.title),
                "server_id": JSON(thread.backendID), "created_at": .string(TimeFormat.iso8601(thread.createdAt)),
                "messages": .array(messages.map(messageJSON)),
            ]
        }
        return JSON.array(array).encoded(pretty: true) + "\n"
    }

    public static func messageJSON(_ message: Message) -> JSON {
        var object: [String: JSON] = [
            "id": .number(Double(message.id)), "thread": .number(Double(message.threadID)),
            "session": .string(message.session), "role": .string(message.role.rawValue), "text": .string(message.text),
            "status": .string(message.status.rawValue), "created_at": .string(TimeFormat.iso8601(message.createdAt)),
        ]
        if let id = message.backendID { object["server_id"] = .string(id) }
        if let model = message.model { object["model"] = .string(model) }
        if let error = message.error { object["error"] = .string(error) }
        if !message.notes.isEmpty { object["notes"] = .array(message.notes.map(JSON.string)) }
        if let usage = message.usage {
            object["usage"] = ["prompt_tokens": JSON(usage.promptTokens), "completion_tokens": JSON(usage.completionTokens),
                               "total_tokens": JSON(usage.totalTokens)]
        }
        return .object(object)
    }
}

/// Messages as lines to show.
public enum MessageFormatting {
    public static func document(_ messages: [Message], session: SessionConfig) -> Document {
        var lines: Document = []
        let replyStyle: Style = BackendRegistry.repliesAreMarkdown(kind: session.kind) ? .markdownBlock : .plain
        for message in messages {
            var header: [Span] = [Span(message.role == .user ? "you" : message.session, message.role == .user ? .user : .accent),
                                  Span(" · " + TimeFormat.short(message.createdAt), .dim)]
            if message.status != .complete { header.append(Span(" · " + message.status.rawValue, .warning)) }
            lines.append(StyledLine(header))
            lines.append(StyledLine(message.text, message.role == .user ? .plain : replyStyle))
            for note in message.notes { lines.append(StyledLine("  » " + note, .dim)) }
            if let error = message.error { lines.append(StyledLine("  " + error, .error)) }
        }
        return lines
    }

    public static func searchDocument(_ hits: [SearchHit]) -> Document {
        var lines: Document = []
        for hit in hits {
            lines.append(StyledLine([
                Span("#\(hit.message.id) ", .dim), Span(hit.message.session, .accent), Span(" · " + hit.threadTitle, .bold),
                Span(" · " + (hit.message.role == .user ? "you" : "reply") + " · " + TimeFormat.short(hit.message.createdAt), .dim),
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
