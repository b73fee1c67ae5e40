import FoundationEssentials
import Glibc

/// What an export holds besides the threads' messages, from the kinds that keep more (a
/// local session's forms and documents): keys added to a thread's JSON object and Markdown
/// after its messages, and keys and Markdown for the whole export.
public struct ExportAdditions: Sendable {
    public var threadJSON: [Int64: [String: JSON]] = [:]
    public var threadMarkdown: [Int64: String] = [:]
    public var json: [String: JSON] = [:]
    public var markdown = ""

    public init() {}

    public mutating func merge(_ other: ExportAdditions) {
        threadJSON.merge(other.threadJSON) { $1 }
        threadMarkdown.merge(other.threadMarkdown) { $1 }
        for (key, value) in other.json {
            if case .array(let mine)? = json[key], case .array(let theirs) = value { json[key] = .array(mine + theirs) } else { json[key] = value }
        }
        markdown += other.markdown
    }
}

/// Threads as Markdown or JSON, for `/export` and `hark export`.
public enum Export {
    public static func markdown(threads: [(ChatThread, [Message])], session: SessionConfig?,
                                additions: ExportAdditions = ExportAdditions()) -> String {
        var out = ""
        for (thread, messages) in threads {
            out += "# \(thread.title)\n\n"
            out += "_\(thread.session) · thread #\(thread.id) · \(TimeFormat.format(thread.createdAt))_\n\n"
            for message in messages {
                if message.role == .tool {
                    // The call, then its result, as a quote under the reply that made it.
                    out += message.text.lineSlices().map { "> ⚙ " + $0 }.joined(separator: "\n") + "\n\n"
                    continue
                }
                let who = message.role == .user ? "You" : thread.session
                var heading = "## \(who) · \(TimeFormat.format(message.createdAt))"
                if message.status != .complete { heading += " (\(message.status.rawValue))" }
                out += heading + "\n\n" + message.text + "\n\n"
                for note in message.notes { out += "> " + note + "\n\n" }
            }
            out += additions.threadMarkdown[thread.id] ?? ""
        }
        return out + additions.markdown
    }

    /// `{"threads": […]}`, with what the kinds add (`documents` for a local session).
    public static func json(threads: [(ChatThread, [Message])], additions: ExportAdditions = ExportAdditions()) -> String {
        let array: [JSON] = threads.map { thread, messages in
            var object: [String: JSON] = [
                "id": .number(Double(thread.id)), "session": .string(thread.session), "title": .string(thread.title),
                "server_id": JSON(thread.backendID), "created_at": .string(TimeFormat.iso8601(thread.createdAt)),
                "messages": .array(messages.map(messageJSON)),
            ]
            object.merge(additions.threadJSON[thread.id] ?? [:]) { $1 }
            return .object(object)
        }
        var object = additions.json
        object["threads"] = .array(array)
        return JSON.object(object).encoded(pretty: true) + "\n"
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
        // What was piped into hark with the message, as it is in `text` (after the typed part).
        if let piped = message.pipedText { object["piped"] = .string(String(piped)) }
        if let usage = message.usage {
            object["usage"] = ["prompt_tokens": JSON(usage.promptTokens), "completion_tokens": JSON(usage.completionTokens),
                               "total_tokens": JSON(usage.totalTokens)]
        }
        return .object(object)
    }
}
