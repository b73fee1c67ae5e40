import FoundationEssentials
import Glibc

/// /files, /upload, /download, /file and /attach: the workspace's files and folders.
extension NylaBackend {
    static let previewPageLines = 40
    static let previewLimit = 4 << 20

    func folders(_ instance: NylaInstance, notes: NylaNotes) async throws -> [NylaFolder] {
        let json = try await client.json("GET", NylaWire.folders(instance), instance: instance, notes: notes)
        let folders = NylaWire.items(json, key: "folders").compactMap(NylaWire.folder)
        state.update { $0.folders = folders }
        return folders
    }

    /// A folder by id or name (case-insensitive).
    func folder(_ reference: String, _ instance: NylaInstance, notes: NylaNotes) async throws -> NylaFolder {
        let folders = try await folders(instance, notes: notes)
        if let found = folders.first(where: { $0.id == reference })
            ?? folders.first(where: { $0.name.lowercased() == reference.lowercased() }) {
            return found
        }
        throw HarkError.usage("no folder \"\(reference)\" in \(instance.label); /files lists them")
    }

    func filesCommand(_ context: CommandContext, notes: NylaNotes) async throws -> Document {
        let instance = try await workspaceInstance(context, notes: notes, for: "files")
        var parent: NylaFolder?
        if let reference = context.arguments["FOLDER"] { parent = try await folder(reference, instance, notes: notes) }
        // Looking a folder up has just fetched them.
        let folders = parent == nil ? try await self.folders(instance, notes: notes) : state.read { $0.folders }
        let listed = try await client.allItems(NylaWire.files(instance), key: "files", query: parent.map { [("folderId", $0.id)] } ?? [],
                                               instance: instance, notes: notes)
        // Filtered here too, in case the gateway ignores the folder query.
        let files = listed.compactMap(NylaWire.file).filter { $0.folderID == parent?.id }
        state.update { values in
            values.files = files + values.files.filter { known in !files.contains { $0.id == known.id } }
        }
        let subfolders = folders.filter { $0.parentID == parent?.id }
        guard !files.isEmpty || !subfolders.isEmpty else {
            return [StyledLine(parent.map { "no files in \($0.name)" } ?? "no files in \(instance.label) yet; /upload PATH adds one", .dim)]
        }
        var rows: [[Span]] = subfolders.map { [Span($0.id, .dim), Span($0.name + "/", .accent), Span(""), Span("folder", .dim)] }
        rows += files.map { file in
            [Span(file.id, .dim), Span(file.name, .bold), Span(file.size.map(Self.size) ?? ""), Span(file.mimeType ?? "", .dim),
             Span(file.createdAt.map { TimeFormat.short($0) } ?? "", .dim)]
        }
        return Table.render(rows, gap: 2)
    }

    /// Uploads a local file (multipart: the file, and the folder when given).
    func upload(_ rawPath: String, folder: NylaFolder?, instance: NylaInstance, notes: NylaNotes) async throws -> NylaFile {
        let path = rawPath.expandingTildeInPath
        var isDirectory = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory else {
            throw HarkError.usage("no file at \(path)")
        }
        guard FileManager.default.isReadableFile(atPath: path) else { throw HarkError.io("cannot read \(path)") }
        let name = path.lastPathComponent
        var parts = [MultipartPart(name: NylaWire.uploadFileField, content: .file(path: path), filename: name,
                                   contentType: MimeType.guess(path))]
        if let folder { parts.append(MultipartPart(name: NylaWire.uploadFolderField, content: .text(folder.id))) }
        let response = try await client.fetch("POST", NylaWire.upload(instance), body: .multipart(parts), instance: instance,
                                              notes: notes)
        guard let json = try? JSON.parse(response.body), let file = NylaWire.file(json["file"] ?? json) else {
            throw HarkError.protocolViolation("\(client.host) took the upload but did not say the file's id")
        }
        state.update { $0.files.append(file) }
        return file
    }

    func uploadCommand(_ context: CommandContext, notes: NylaNotes) async throws -> Document {
        let instance = try await workspaceInstance(context, notes: notes, for: "files")
        var folder: NylaFolder?
        if let name = context.arguments["FOLDER"] { folder = try await self.folder(name, instance, notes: notes) }
        let file = try await upload(context.arguments["PATH"] ?? "", folder: folder, instance: instance, notes: notes)
        return [StyledLine("uploaded \(file.name) as \(file.id)" + (folder.map { " into \($0.name)" } ?? "")
                           + (file.size.map { " (\(Self.size($0)))" } ?? ""), .success)]
    }

    func attachCommand(_ context: CommandContext, notes: NylaNotes) async throws -> Document {
        guard let path = Workspace.attachedPath(context) else {
            let attached = try context.history.pendingAttachments()
            guard !attached.isEmpty else { throw context.badArguments() }
            return attached.map { StyledLine("attached: \($0.name)" + ($0.backendID.map { " (\($0))" } ?? ""), .dim) }
        }
        let instance = try await workspaceInstance(context, notes: notes, for: "files")
        let file = try await upload(path, folder: nil, instance: instance, notes: notes)
        // Kept in the history until the next message takes it, in this run or the next.
        try context.history.attach(Attachment(path: path.expandingTildeInPath, name: file.name, size: file.size ?? 0,
                                              mimeType: file.mimeType ?? MimeType.guess(path), backendID: file.id))
        return [StyledLine("\(file.name) uploaded as \(file.id); it goes with your next message", .dim)]
    }

    func metadata(_ id: String, _ instance: NylaInstance, notes: NylaNotes) async throws -> NylaFile {
        let json = try await client.json("GET", NylaWire.file(instance, id), instance: instance, notes: notes)
        guard let file = NylaWire.file(json["file"] ?? json) else {
            throw HarkError.protocolViolation("\(client.host) did not describe file \(id)")
        }
        return file
    }

    func downloadCommand(_ context: CommandContext, notes: NylaNotes) async throws -> Document {
        let instance = try await workspaceInstance(context, notes: notes, for: "files")
        let file = try await metadata(context.arguments["ID"] ?? "", instance, notes: notes)
        let destination = try DownloadTarget.path(for: file.name, given: context.arguments["PATH"],
                                                  retry: "/download \(file.id)")
        let path = NylaWire.fileContent(instance, file.id)
        let response = try await client.open(path, notes: notes) {
            try client.request("GET", path, instance: instance, accept: "*/*")
        }
        defer { response.stream.cancel() }
        let written = try await DownloadTarget.save(response.body, to: destination)
        return [StyledLine("saved \(file.name) (\(Self.size(written))) to \(destination)", .success)]
    }

    func fileCommand(_ context: CommandContext, notes: NylaNotes) async throws -> Document {
        let id = context.arguments["ID"] ?? ""
        let page = context.arguments["PAGE"].map { Int($0) } ?? 1
        guard let page, page >= 1 else { throw context.badArguments("PAGE is a number from 1, e.g. /file \(id) 2") }
        let instance = try await workspaceInstance(context, notes: notes, for: "files")
        let file = try await metadata(id, instance, notes: notes)
        let type = file.mimeType ?? MimeType.guess(file.name)
        var facts = [type] + (file.size.map { [Self.size($0)] } ?? [])
        let binaryDescription = StyledLine("\(file.name): \(facts.joined(separator: ", ")); binary, /download \(file.id) saves it", .dim)
        let looksBinary = !MimeType.isText(type) && type != "application/octet-stream" && !type.hasSuffix("+json")
            && !type.hasSuffix("+xml")
        if looksBinary { return [binaryDescription] }
        let (bytes, complete) = try await prefix(of: NylaWire.fileContent(instance, file.id), instance: instance, notes: notes)
        guard !bytes.contains(0), let text = String(validatingUTF8Bytes: bytes) else { return [binaryDescription] }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { String($0) }
        if lines.last == "" { lines.removeLast() }
        let pages = max(1, (lines.count + Self.previewPageLines - 1) / Self.previewPageLines)
        guard page <= pages else { throw HarkError.usage("\(file.name) has \(pages) page\(pages == 1 ? "" : "s")") }
        let start = (page - 1) * Self.previewPageLines
        let shown = lines[start..<min(lines.count, start + Self.previewPageLines)]
        facts.append(lines.isEmpty ? "empty" : "lines \(start + 1)–\(start + shown.count) of \(lines.count)"
                     + (complete ? "" : " (first \(Self.size(bytes.count)))"))
        var document: Document = [StyledLine(file.name + " · " + facts.joined(separator: " · "), .dim)]
        document += shown.map { StyledLine(ServerMessage.sanitize($0.replacingOccurrences(of: "\t", with: "    "))) }
        if page < pages { document.append(StyledLine("/file \(file.id) \(page + 1) shows the next page", .dim)) }
        return document
    }

    /// The first bytes of a body (enough to preview), and whether that was all of it.
    private func prefix(of path: String, instance: NylaInstance, notes: NylaNotes) async throws -> ([UInt8], Bool) {
        let response = try await client.open(path, notes: notes) { try client.request("GET", path, instance: instance, accept: "*/*") }
        defer { response.stream.cancel() }
        var body = response.body
        let (bytes, whole) = try await body.collect(upTo: Self.previewLimit)
        // Cut at a line end so no character is split.
        guard whole else { return (Array(bytes[..<(bytes.lastIndex(of: 0x0A).map { $0 + 1 } ?? bytes.count)]), false) }
        return (bytes, true)
    }

    static func size(_ bytes: Int) -> String { ByteCount.format(bytes) }
}
