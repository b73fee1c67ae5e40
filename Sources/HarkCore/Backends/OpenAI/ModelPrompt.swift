import FoundationEssentials
import Glibc

/// What a model session sends, whatever API it speaks: the system prompt, the earlier turns
/// that go along, the new message with its files, and the sampling settings. Each API's folder
/// writes it as its own request body (ChatCompletions/, Messages/, Responses/).
struct ModelPrompt: Sendable {
    var model: String?
    var system: String?
    /// Earlier turns of the thread sent with the message, oldest first (`turnsToSend`).
    var turns: [Turn]
    var text: String
    /// The message's files as the model reads them (ModelFile.read).
    var files: [ModelFile]
    var temperature: Double?
    var maxTokens: Int?
    /// Responses API only: the server keeps the conversation up to this reply, so `turns` is
    /// empty and only the new message goes.
    var previousResponseID: String?
    /// MCP tools the model may call (ToolLoop), and this reply's rounds of calls so far: each an
    /// assistant turn carrying its calls with their results, sent after the new message.
    var tools: ToolSet?
    var rounds: [Turn] = []

    /// Which earlier turns go with a message, for all three APIs: the latest `limit`, starting
    /// on one of the user's (Anthropic's Messages API wants the first message to be the
    /// user's; the others lose nothing). A budget in tokens belongs here too.
    static func turnsToSend(_ history: [Turn], limit: Int) -> [Turn] {
        var turns = history.suffix(max(limit, 0))
        while let first = turns.first, first.role == .assistant { turns = turns.dropFirst() }
        return Array(turns)
    }

    /// The new message as every API takes it: text files inlined after the text
    /// (`<file name="…">`), images apart, base64 with their type, in the API's own shape.
    var content: (text: String, images: [(mimeType: String, base64: String)]) {
        var text = self.text
        var images: [(mimeType: String, base64: String)] = []
        for file in files {
            switch file {
            case .image(let type, let base64): images.append((type, base64))
            case .text(let name, let body): text += ModelFile.inlined(name: name, text: body)
            }
        }
        return (text, images)
    }
}
