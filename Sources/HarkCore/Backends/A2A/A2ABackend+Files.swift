import FoundationEssentials
import Glibc

extension A2ABackend {
    var hasCredentials: Bool { session["auth"] != nil || session["api_key"] != nil }

    /// `/agent`: the card fetched anew (it may have changed), shown whole.
    func agentCard() async throws -> Document {
        A2AViews.document(try await client.card(refresh: true), credentials: hasCredentials)
    }

    /// `/files`: what agents sent in this session, newest last.
    func fileList() -> Document {
        let files = state.storedFiles
        guard !files.isEmpty else { return [StyledLine("no files from \(session.name) yet", .dim)] }
        let rows: [[Span]] = files.map { file in
            [Span(String(file.number), .accent), Span(file.name ?? file.url ?? "unnamed", .bold),
             Span(file.size.map(ByteCount.format) ?? "", .dim), Span(file.mediaType ?? "", .dim)]
        }
        return Table.render(rows) + [StyledLine("/download N [PATH] saves one", .dim)]
    }

    /// `/download N [PATH]`: the bytes this process received, else the file fetched again from
    /// its task (GetTask) or from the URL the agent gave.
    func download(_ number: Int, to path: String?) async throws -> Document {
        guard let (file, kept) = state.file(number: number) else {
            throw HarkError.usage("no file \(number) in \(session.name); /files lists them")
        }
        let bytes: [UInt8]
        if let kept { bytes = kept } else { bytes = try await contents(of: file) }
        let destination = try DownloadTarget.path(for: file.name ?? file.url?.lastPathComponent ?? "download",
                                                  given: path,
                                                  retry: "/download \(number)")
        try DownloadTarget.write(bytes, to: destination)
        return [StyledLine("saved \(file.name ?? "file \(number)") (\(ByteCount.format(bytes.count))) to \(destination)", .success)]
    }

    private func contents(of file: A2ASessionState.StoredFile) async throws -> [UInt8] {
        var part = A2AWire.FilePart(name: file.name, mediaType: file.mediaType, bytes: nil, url: file.url)
        if part.url == nil, let taskID = file.taskID, let artifactID = file.artifactID {
            let endpoint = try await client.endpoint()
            let answer = try await client.call(.get, params: A2AWire.taskParams(taskID, method: .get, tenant: endpoint.tenant,
                                                                                 version: endpoint.version), to: endpoint)
            guard case .task(let task) = answer, let artifact = task.artifacts.first(where: { $0.id == artifactID }),
                  artifact.parts.indices.contains(file.partIndex), case .file(let found) = artifact.parts[file.partIndex] else {
                throw HarkError.backend("the agent no longer has file \(file.number)")
            }
            part = found
        }
        if let bytes = part.bytes { return bytes }
        guard let url = part.url, url.lowercased().hasPrefix("http://") || url.lowercased().hasPrefix("https://") else {
            throw HarkError.backend("the agent no longer has file \(file.number)")
        }
        // The session's credentials go only to the agent's own host.
        let endpoint = try? await client.endpoint()
        let sameHost = endpoint.map { HTTPRequest.displayHost(of: $0.url) == HTTPRequest.displayHost(of: url) } ?? false
        var request = HTTPRequest(url: url, headers: sameHost ? endpoint?.headers ?? [] : [], timeouts: client.timeouts)
        // The session's ca and pin are its agent's; a file elsewhere is checked as usual.
        request.tls = sameHost ? client.tls : TLSOptions(insecure: session.isInsecure)
        request.followRedirects = true
        let response = try await client.http.fetch(request)
        guard response.head.isSuccess else { throw client.failure(response.head, body: response.body) }
        return response.body
    }
}
