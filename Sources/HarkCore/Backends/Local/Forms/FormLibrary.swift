import FoundationEssentials
import Glibc

/// The form templates: `forms/*.json` in the user's prompts folder, then in the shipped
/// `prompts/` folders. A user's template replaces a shipped one of the same name.
struct FormLibrary: Sendable {
    struct Entry: Sendable {
        var name: String
        var path: String
        var isUsers: Bool
        var source: String
        var template: Result<FormTemplate, HarkError>
    }

    let paths: Paths

    var directories: [String] { paths.promptDirectories.map { $0 + "/forms" } }

    var userDirectory: String { paths.userPromptDirectory + "/forms" }

    /// Every template file, by name; broken ones carry the reason.
    func entries() -> [Entry] {
        var seen = Set<String>()
        var entries: [Entry] = []
        for directory in directories {
            let files = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            for file in files.sorted() where file.hasSuffix(".json") && !file.hasPrefix(".") {
                let name = String(file.dropLast(5))
                guard seen.insert(name).inserted else { continue }
                entries.append(Self.read(directory + "/" + file, name: name, isUsers: directory == userDirectory))
            }
        }
        return entries.sorted { $0.name < $1.name }
    }

    /// Names for Tab: a directory listing, no parsing.
    func names() -> [String] {
        var names = Set<String>()
        for directory in directories {
            for file in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where file.hasSuffix(".json") {
                names.insert(String(file.dropLast(5)))
            }
        }
        return names.sorted()
    }

    static func read(_ path: String, name: String, isUsers: Bool) -> Entry {
        guard let data = FileManager.default.contents(atPath: path) else {
            return Entry(name: name, path: path, isUsers: isUsers, source: "",
                         template: .failure(.config(path: path, line: nil, reason: "cannot read the file")))
        }
        let source = String(decoding: data, as: UTF8.self)
        let template: Result<FormTemplate, HarkError>
        do {
            template = .success(try FormTemplateParser.parse(source, name: name, path: path))
        } catch {
            template = .failure(error as? HarkError ?? .config(path: path, line: nil, reason: error.userMessage))
        }
        return Entry(name: name, path: path, isUsers: isUsers, source: source, template: template)
    }

    /// A template by name (any case, or an unambiguous start), or by path (`./trip.json`).
    func load(_ reference: String) throws -> (template: FormTemplate, source: String) {
        if reference.contains("/") || reference.hasSuffix(".json") {
            let path = paths.resolve(reference.expandingTildeInPath)
            guard FileManager.default.fileExists(atPath: path) else { throw HarkError.usage("no form template at \(path)") }
            let name = path.lastPathComponent.deletingPathExtension
            let entry = Self.read(path, name: name, isUsers: true)
            return (try entry.template.get(), entry.source)
        }
        let all = entries()
        let lowered = reference.lowercased()
        let starting = all.filter { $0.name.lowercased().hasPrefix(lowered) }
        guard let entry = all.first(where: { $0.name.lowercased() == lowered }) ?? (starting.count == 1 ? starting[0] : nil) else {
            if all.isEmpty { throw HarkError.usage("there are no form templates yet; put JSON files in \(userDirectory)") }
            let suggestion = Suggest.closest(to: reference, in: all.map(\.name))
            throw HarkError.usage("no form named \"\(reference)\"" + (suggestion.map { "; did you mean \($0)?" } ?? "; /forms lists them"))
        }
        return (try entry.template.get(), entry.source)
    }
}
