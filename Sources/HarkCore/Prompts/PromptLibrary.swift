import FoundationEssentials
import Glibc

extension Paths {
    /// Where prompt files are looked for: the user's own folder first (`$XDG_CONFIG_HOME/hark/
    /// prompts`), so a prompt there replaces a shipped one of the same name, then the shipped
    /// `prompts/` folders.
    public var promptDirectories: [String] { [configDirectory + "/prompts"] + sharedPromptDirectories }

    /// The user's own prompts folder.
    public var userPromptDirectory: String { configDirectory + "/prompts" }
}

/// The prompt files (`*.md`) of the prompt folders, by name.
public struct PromptLibrary: Sendable {
    public struct Entry: Sendable, Equatable {
        public var template: PromptTemplate
        public var path: String
        /// True for the user's own prompts (not shipped with hark).
        public var isUsers: Bool
    }

    public let paths: Paths

    public init(paths: Paths) {
        self.paths = paths
    }

    /// Every prompt, sorted by name; of two with the same name, the user's.
    public func entries() -> [Entry] {
        var byName: [String: Entry] = [:]
        for directory in paths.promptDirectories {
            let isUsers = directory == paths.userPromptDirectory
            let files = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            for file in files.sorted() where file.hasSuffix(".md") && !file.hasPrefix(".") {
                let path = directory + "/" + file
                guard let data = FileManager.default.contents(atPath: path) else { continue }
                let template = PromptTemplate.parse(String(decoding: data, as: UTF8.self),
                                                    fallbackName: String(file.dropLast(3)))
                if byName[template.name] == nil { byName[template.name] = Entry(template: template, path: path, isUsers: isUsers) }
            }
        }
        return byName.values.sorted { $0.template.name < $1.template.name }
    }

    public var names: [String] { entries().map(\.template.name) }

    /// A prompt by exact name (case-insensitive) or a unique prefix.
    public func find(_ reference: String) throws -> Entry {
        let all = entries()
        let lowered = reference.lowercased()
        if let exact = all.first(where: { $0.template.name.lowercased() == lowered }) { return exact }
        let prefixed = all.filter { $0.template.name.lowercased().hasPrefix(lowered) }
        if prefixed.count == 1 { return prefixed[0] }
        if all.isEmpty {
            throw HarkError.usage("there are no prompts yet; put Markdown files in \(paths.userPromptDirectory)")
        }
        let suggestion = Suggest.closest(to: reference, in: all.map(\.template.name))
        throw HarkError.usage("no prompt named \"\(reference)\"" + (suggestion.map { "; did you mean \($0)?" } ?? "; /prompts lists them"))
    }
}
