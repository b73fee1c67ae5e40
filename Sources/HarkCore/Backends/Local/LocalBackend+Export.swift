import FoundationEssentials
import Glibc

/// `/export` and `hark export` of a local session: each form with the thread it was filled
/// in, and the documents' metadata (never their text, which stays in the files).
extension LocalBackend {
    public func exportAdditions(threads: [ChatThread]) -> ExportAdditions {
        var additions = ExportAdditions()
        let ids = Set(threads.map(\.id))
        for record in ((try? forms().forms(session: session.name)) ?? []) where ids.contains(record.threadID) {
            guard let template = try? record.template() else { continue }
            additions.threadJSON[record.threadID] = ["form": FormExport.object(record, template: template)]
            let markdown = FormExport.markdown(record, template: template)
                .replacingOccurrences(of: "\n## ", with: "\n### ").replacingOccurrences(of: "# \(record.title)\n", with: "## Form: \(record.title)\n")
            additions.threadMarkdown[record.threadID] = markdown
        }
        let documents = (try? documentLibrary().documents()) ?? []
        additions.json["documents"] = .array(documents.map { document -> JSON in
            var object: [String: JSON] = ["session": .string(session.name), "name": .string(document.name)]
            object["path"] = .string(document.path)
            object["format"] = .string(document.format.rawValue)
            object["size"] = .number(Double(document.size))
            object["passages"] = .number(Double(document.chunks))
            object["modified_at"] = .string(TimeFormat.iso8601(Date(timeIntervalSince1970: document.modified)))
            object["indexed_at"] = .string(TimeFormat.iso8601(document.indexedAt))
            return .object(object)
        })
        if !documents.isEmpty {
            var markdown = "# Documents of \(session.name)\n\n| document | size | passages | read |\n|---|---|---|---|\n"
            for document in documents {
                markdown += "| \(document.name) | \(Self.bytes(document.size)) | \(document.chunks) | "
                    + "\(TimeFormat.format(document.indexedAt)) |\n"
            }
            additions.markdown = markdown + "\n"
        }
        return additions
    }
}
