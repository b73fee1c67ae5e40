import FoundationEssentials
import Glibc

/// What Tab offers: the candidates for the word under the cursor and where that word starts.
public struct CompletionResult: Sendable, Equatable {
    /// Offset, in characters of the line, where the completed word begins.
    public var start: Int
    public var candidates: [String]

    public init(start: Int, candidates: [String]) {
        self.start = start
        self.candidates = candidates
    }

    /// The longest text every candidate starts with.
    public var commonPrefix: String {
        guard var prefix = candidates.first else { return "" }
        for candidate in candidates.dropFirst() {
            while !candidate.hasPrefix(prefix) { prefix.removeLast() }
        }
        return prefix
    }
}

/// Tab completion from the command table: command names, their subcommands and arguments,
/// session and thread names, file paths.
public enum Completion {
    public static func complete(line: String, workspace: Workspace) -> CompletionResult {
        let characters = Array(line)
        let wordStart = (characters.lastIndex(where: { $0 == " " }).map { $0 + 1 }) ?? 0
        let word = String(characters[wordStart...])
        if line.hasPrefix("@"), wordStart == 0 {
            return result(wordStart, word, workspace.config.sessionNames.map { "@" + $0 })
        }
        guard line.hasPrefix("/"), !line.hasPrefix("//") else { return CompletionResult(start: wordStart, candidates: []) }
        let kind = workspace.currentConfig.kind
        if wordStart == 0 {
            return result(0, word, workspace.commandTable.applicable(to: kind).map { "/" + $0.name }.sorted())
        }
        let words = String(characters[..<wordStart]).split(separator: " ").map(String.init)
        guard let name = words.first?.dropFirst(), let spec = workspace.commandTable.lookup(String(name), kind: kind) else {
            return CompletionResult(start: wordStart, candidates: [])
        }
        let arguments = Array(words.dropFirst())
        var candidates: [String] = []
        for completion in spec.completion(for: arguments, position: arguments.count) {
            candidates += values(completion, word: word, workspace: workspace)
        }
        return result(wordStart, word, candidates)
    }

    static func result(_ start: Int, _ word: String, _ candidates: [String]) -> CompletionResult {
        var seen = Set<String>()
        let matching = candidates.filter { $0.hasPrefix(word) && seen.insert($0).inserted }
        return CompletionResult(start: start, candidates: matching)
    }

    static func values(_ completion: ArgumentCompletion, word: String, workspace: Workspace) -> [String] {
        switch completion {
        case .none: return []
        case .sessions: return workspace.config.sessionNames
        case .kinds: return BackendRegistry.names
        case .commands: return workspace.commandTable.names.sorted()
        case .choices(let choices): return choices
        case .threads:
            // Where the server keeps the threads, the ones it last listed.
            if let listed = workspace.listedServerThreads(session: workspace.currentSession) { return listed.map(\.id) }
            let threads = (try? workspace.store.threads(session: workspace.currentSession)) ?? []
            return threads.map { String($0.id) } + threads.map(\.title).filter { !$0.contains(" ") }
        case .files: return files(matching: word)
        case .prompts: return PromptLibrary(paths: workspace.paths).names
        case .dynamic(let key):
            return (try? workspace.backend(for: workspace.currentSession))?.completions(for: key) ?? []
        }
    }

    /// Paths starting with `word`; folders end with "/".
    static func files(matching word: String) -> [String] {
        let expanded = word.expandingTildeInPath
        let directoryPart = word.hasSuffix("/") ? expanded : expanded.deletingLastPathComponent
        let directory = directoryPart.isEmpty ? "." : directoryPart
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        let typedDirectory = word.hasSuffix("/") ? word : String(word.prefix(word.count - word.lastPathComponent.count))
        return entries.sorted().compactMap { entry in
            if entry.hasPrefix("."), !word.lastPathComponent.hasPrefix(".") { return nil }
            var isDirectory = false
            _ = FileManager.default.fileExists(atPath: directory + "/" + entry, isDirectory: &isDirectory)
            return typedDirectory + entry + (isDirectory ? "/" : "")
        }
    }
}
