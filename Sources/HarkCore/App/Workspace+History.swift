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
