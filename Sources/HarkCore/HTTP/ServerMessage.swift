/// The most useful one-line message in an error response, whatever its shape: the JSON error
/// conventions of the servers hark talks to, an HTML page's title, or a plain-text first line.
/// Every kind's errors go through here, so each shows the server's words with the status.
public enum ServerMessage {
    public static func extract(from body: [UInt8], contentType: String?) -> String? {
        guard !body.isEmpty else { return nil }
        if let json = try? JSON.parse(body) {
            // JSON in a shape of its own ({"code":500,"msg":…}, a bare string) is shown as it
            // came, on one line: the server's words, not nothing.
            if let text = json.string { return text.trimmed.isEmpty ? nil : clip(sanitize(text.trimmed)) }
            return fromJSON(json) ?? clip(sanitize(json.encoded()))
        }
        let text = String(decoding: body.prefix(64 * 1024), as: UTF8.self)
        if (contentType ?? "").contains("html") || text.lowercased().contains("<html") {
            if let start = text.range(of: "<title>", options: .caseInsensitive),
               let end = text.range(of: "</title>", options: .caseInsensitive, range: start.upperBound..<text.endIndex) {
                let title = text[start.upperBound..<end.lowerBound].trimmed
                return title.isEmpty ? "an HTML error page" : clip(title)
            }
            return "an HTML error page"
        }
        let firstLine = text.split(whereSeparator: \.isNewline).lazy.map { $0.trimmingSpaces }.first { !$0.isEmpty }
        return firstLine.map { clip(sanitize($0)) }
    }

    static func fromJSON(_ json: JSON) -> String? {
        // {"error":{"message":…}} (OpenAI, Monica), {"error":"…"}, {"message":…,"hint":…} (n8n),
        // {"detail":"…"} or {"detail":[{"loc","msg"}]} (FastAPI), a problem's {"title"} without
        // a detail (RFC 9457; ASP.NET Core's defaults, src/Shared/ProblemDetailsDefaults.cs)
        if let error = json["error"] {
            if let message = error["message"] { return describe(message) }
            if let text = error.string { return clip(text) }
        }
        if let detail = json["detail"] { return describe(detail) }
        if let message = json["message"]?.string {
            if let hint = json["hint"]?.string, !hint.isEmpty { return clip(message + " (" + hint + ")") }
            return clip(message)
        }
        if let errors = json["errors"] { return describe(errors) }
        if let title = json["title"]?.string { return clip(title) }
        return nil
    }

    /// A string, or a list of strings or of FastAPI `{loc, msg}` items, as one line.
    static func describe(_ value: JSON) -> String? {
        if let text = value.string { return clip(text) }
        if let items = value.array {
            let parts = items.compactMap { item -> String? in
                if let text = item.string { return text }
                if let message = item["msg"]?.string {
                    let location = item["loc"]?.array?.compactMap { $0.text }.filter { $0 != "body" }.joined(separator: ".")
                    return (location.map { $0.isEmpty ? "" : $0 + ": " } ?? "") + message
                }
                return item["message"]?.string
            }
            return parts.isEmpty ? nil : clip(parts.joined(separator: "; "))
        }
        if let object = value.object {
            let parts = object.keys.sorted().compactMap { key in describe(object[key]!).map { "\(key): \($0)" } }
            return parts.isEmpty ? nil : clip(parts.joined(separator: "; "))
        }
        return nil
    }

    /// Masked before it is cut: a secret the server echoes across the cut would otherwise
    /// keep its start unmasked.
    static func clip(_ text: String) -> String {
        MessageLine.quote(text, 200)
    }

    /// Control characters from a hostile body must not reach the terminal.
    static func sanitize(_ text: String) -> String {
        String(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) })
    }

    /// The HarkError for a non-success status.
    public static func error(status: Int, host: String, body: [UInt8], contentType: String?) -> HarkError {
        let message = extract(from: body, contentType: contentType).map(sanitize)
        if status == 401 || status == 403 { return .unauthorized(status: status, host: host, serverMessage: message) }
        return .http(status: status, host: host, serverMessage: message)
    }
}
