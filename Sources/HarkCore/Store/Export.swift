import FoundationEssentials
import Glibc

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
