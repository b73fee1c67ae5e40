import FoundationEssentials
import Glibc

/// `/docs` and `/ask`: the user's documents, searched offline, and answered from with a model
/// when `llm` names one.
extension LocalBackend {
    static let documentCommands: [CommandSpec] = [
        CommandSpec("docs", [], "your documents: list them; add, remove or read them again", group: "documents",
                    subcommands: [
                        CommandSpec("add", [.oneOrMore("PATH", .files)], "add files or folders (text, Markdown, source, PDF)",
                                    run: handler(LocalBackend.addDocuments)),
                        CommandSpec("rm", [.one("NAME", .dynamic("documents"))], "remove a document, or a folder's",
                                    run: handler(LocalBackend.removeDocuments)),
                        CommandSpec("reindex", "read every document again", run: handler(LocalBackend.reindexDocuments)),
                    ], hint: "/docs lists them", run: handler(LocalBackend.listDocuments)),
        CommandSpec("ask", [.text("QUESTION")], "answer from your documents and notes, citing them", group: "documents",
                    run: handler(LocalBackend.ask)),
    ]

    func documentLibrary() throws -> DocumentLibrary {
        guard let history else { throw HarkError.unavailable("documents need the history database", hint: "run hark normally") }
        return DocumentLibrary(history: history, now: clock.now)
    }

    func search() throws -> PassageSearch {
        guard let history else { throw HarkError.unavailable("documents need the history database", hint: "run hark normally") }
        return PassageSearch(history: history)
    }

    // MARK: /docs

    func listDocuments(_ context: CommandContext) async throws -> CommandOutcome {
        let report = try documentLibrary().refresh(folders: true)
        let documents = try documentLibrary().documents()
        var lines = Self.reportLines(report, quietWhenUnchanged: true)
        guard !documents.isEmpty else {
            return .output(lines + [StyledLine("no documents yet: /docs add PATH… adds files or folders (text, Markdown, "
                + "source files, PDFs); /ask QUESTION then finds the passages that answer it", .dim)])
        }
        let size = documents.reduce(0) { $0 + $1.size }
        let chunks = documents.reduce(0) { $0 + $1.chunks }
        lines.append(StyledLine("\(documents.count) document\(documents.count == 1 ? "" : "s") · \(Self.bytes(size)) · "
            + "\(chunks) passages · /ask QUESTION searches them", .heading))
        lines += Table.render(documents.map { document in
            [Span("  " + document.name, .accent), Span(Self.bytes(document.size), .dim),
             Span("\(document.chunks) passage\(document.chunks == 1 ? "" : "s")", .dim),
             Span("read " + TimeFormat.short(document.indexedAt, now: clock.now()), .dim)]
        })
        return .output(lines)
    }

    func addDocuments(_ context: CommandContext) async throws -> CommandOutcome {
        let paths = context.arguments.words
        let report = try documentLibrary().add(paths)
        var lines = Self.reportLines(report, quietWhenUnchanged: false)
        if report.added + report.updated + report.unchanged == 0 && report.skipped.isEmpty {
            lines.append(StyledLine("nothing to add", .dim))
        }
        lines += await vectorLines(changed: report.changed)
        return .output(lines)
    }

    func removeDocuments(_ context: CommandContext) async throws -> CommandOutcome {
        let name = context.arguments["NAME"] ?? ""
        let removed = try documentLibrary().remove(name)
        guard !removed.isEmpty else {
            let names = try documentLibrary().documents().map(\.name)
            throw HarkError.usage("no document called \(name)"
                + (Suggest.closest(to: name, in: names).map { "; did you mean \($0)?" } ?? "; /docs lists them"))
        }
        let shown = removed.count == 1 ? removed[0] : "\(removed.count) documents"
        return .output([StyledLine("removed \(shown) from the library (the files stay where they are)", .success)])
    }

    func reindexDocuments(_ context: CommandContext) async throws -> CommandOutcome {
        let report = try documentLibrary().refresh(folders: true, force: true)
        var lines = Self.reportLines(report, quietWhenUnchanged: false)
        if !report.changed { lines.append(StyledLine("no documents yet: /docs add PATH… adds some", .dim)) }
        lines += await vectorLines(changed: true)
        return .output(lines)
    }

    /// `added 3 files (48 passages, 120 KB) · 1 read again · 2 gone`, and each file skipped.
    static func reportLines(_ report: IndexReport, quietWhenUnchanged: Bool) -> Document {
        var parts: [String] = []
        if report.added > 0 { parts.append("added \(report.added) file\(report.added == 1 ? "" : "s")") }
        if report.updated > 0 { parts.append("read \(report.updated) changed file\(report.updated == 1 ? "" : "s") again") }
        if report.added + report.updated > 0 { parts[parts.count - 1] += " (\(report.chunks) passage\(report.chunks == 1 ? "" : "s"), \(bytes(report.bytes)))" }
        if !report.removed.isEmpty {
            parts.append("dropped \(report.removed.count == 1 ? report.removed[0] : "\(report.removed.count) files"), gone from disk")
        }
        if report.unchanged > 0 && !quietWhenUnchanged { parts.append("\(report.unchanged) unchanged") }
        var lines: Document = parts.isEmpty ? [] : [StyledLine(parts.joined(separator: " · "), .success)]
        lines += report.skipped.map { StyledLine("skipped " + $0, .warning) }
        return lines
    }

    static func bytes(_ count: Int) -> String {
        if count < 1024 { return "\(count) B" }
        if count < 1024 * 1024 { return "\((count + 512) / 1024) KB" }
        let tenths = (count * 10 + 524_288) / 1_048_576
        return "\(tenths / 10).\(tenths % 10) MB"
    }

    // MARK: Vectors

    /// The model's session, when it can make embeddings.
    func embedder() -> (any EmbeddingProvider)? {
        guard let llm, let sessions, let (backend, _) = try? sessions.backend(named: llm) else { return nil }
        return backend as? EmbeddingProvider
    }

    /// Vectors for passages that have none, when the model's server makes them.
    func vectorLines(changed: Bool) async -> Document {
        guard let llm, let history, let provider = embedder() else { return [] }
        do {
            guard let made = try await VectorIndex(history: history).fill(using: provider) else { return [] }
            return made > 0 ? [StyledLine("\(llm) made vectors for \(made) passages: /ask also finds passages by meaning", .dim)] : []
        } catch is CancellationError {
            return []
        } catch {
            return [StyledLine("\(llm) could not make vectors (\(error.userMessage)); /ask finds passages by their words", .warning)]
        }
    }

    // MARK: /ask

    func ask(_ context: CommandContext) async throws -> CommandOutcome {
        let question = (context.arguments["QUESTION"] ?? "").trimmed
        guard !question.isEmpty else { throw context.badArguments() }
        let library = try documentLibrary()
        // With a model, whose answer takes far longer than any check, every file is checked.
        let checkAll = try llm != nil || !library.holdsMore(than: DocumentLibrary.checkAllBeforeAsk)
        var refreshed = checkAll ? try library.refresh(folders: false) : IndexReport()
        guard let llm else {
            var passages = try search().keywordPassages(question, limit: 5)
            if !checkAll {
                // A large library: the files the passages come from, and the search again if one changed.
                refreshed = try library.refresh(folders: false, only: Set(passages.compactMap(\.chunkID)))
                if refreshed.changed { passages = try search().keywordPassages(question, limit: 5) }
            }
            for line in Self.reportLines(refreshed, quietWhenUnchanged: true) { context.notes.add(line.plainText) }
            return .output(try passageLines(passages, question: question))
        }
        for line in Self.reportLines(refreshed, quietWhenUnchanged: true) { context.notes.add(line.plainText) }
        return .events(answerStream(question, llm: llm, refreshed: refreshed.changed), recordAs: context.line)
    }

    /// The passages as found: `[1] booking.md:4-9  Booking › Train` and the snippet under it.
    /// `numbers` are their numbers when not 1, 2, 3… (the ones an answer cited).
    func passageLines(_ passages: [Passage], question: String, numbers: [Int]? = nil) throws -> Document {
        guard !passages.isEmpty else {
            let hint = try documentLibrary().isEmpty() ? "no documents yet: /docs add PATH… adds files or folders"
                : "/docs lists your documents"
            return [StyledLine("nothing in your documents or notes matches \"\(question)\"; \(hint)", .dim)]
        }
        var lines: Document = []
        for (index, passage) in passages.enumerated() {
            var spans = [Span("[\(numbers?[index] ?? index + 1)] ", .dim), Span(passage.citation, .accent)]
            if !passage.heading.isEmpty { spans.append(Span("  " + passage.heading, .dim)) }
            lines.append(StyledLine(spans))
            var snippet = MessageFormatting.highlighted(passage.snippet.trimmed)
            snippet.spans.insert(Span("  "), at: 0)
            lines.append(snippet)
        }
        return lines
    }

    /// The question and the best passages to the model; its answer streams, the sources after it.
    func answerStream(_ question: String, llm: String, refreshed: Bool) -> AsyncThrowingStream<ReplyEvent, Error> {
        ProducedStream.make { [self] emit in
            try await answer(question, llm: llm, refreshed: refreshed, emit: emit)
            try await emit(.finished(reason: nil))
        }
    }

    func answer(_ question: String, llm: String, refreshed: Bool, emit: ProducedStream.Emitter<ReplyEvent>) async throws {
        let search = try search()
        let keyword = try search.keywordPassages(question, limit: 20)
        var vector: [(id: Int64, similarity: Float)] = []
        if let history, let provider = embedder() {
            do {
                let index = VectorIndex(history: history)
                let hasVectors = try index.hasVectors(model: provider.embeddingModel)
                if refreshed || !hasVectors { _ = try await index.fill(using: provider) }
                if try index.hasVectors(model: provider.embeddingModel), let query = try await provider.embeddings([question])?.first {
                    vector = try index.nearest(query, model: provider.embeddingModel, limit: 20)
                }
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                try await emit(.notice("\(llm) could not make vectors (\(error.userMessage)); passages were found by their words"))
            }
        }
        let passages = try search.fused(keyword: keyword, vector: vector, limit: 5)
        guard !passages.isEmpty else {
            try await emit(.text(try passageLines([], question: question).map(\.plainText).joined(separator: "\n")))
            return
        }
        let texts = try search.texts(passages.compactMap(\.chunkID))
        let numbered = passages.map { passage in (passage, passage.chunkID.flatMap { texts[$0] } ?? passage.text ?? passage.snippet) }
        let prompt = AskPrompt.prompt(question: question, passages: numbered)
        try await emit(.status("asking \(llm) with \(passages.count) passage\(passages.count == 1 ? "" : "s")…"))
        var answer = ""
        do {
            guard let sessions else { throw HarkError.unknownSession(llm, suggestion: nil) }
            let (backend, config) = try sessions.backend(named: llm)
            guard config.kind != LocalBackend.name else {
                throw HarkError.usage("llm names \(llm), a local session; it must be a model's session (kind openai)")
            }
            let now = clock.now()
            let thread = ChatThread(id: 0, session: llm, title: "ask", backendID: nil, createdAt: now, updatedAt: now)
            reading: for try await event in backend.send(ChatRequest(text: prompt, thread: thread)) {
                switch event {
                case .text(let piece):
                    answer += piece
                    try await emit(event)
                case .reasoning, .usage, .model: try await emit(event)
                case .finished: break reading
                default: continue
                }
            }
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            try await emit(.notice("\(llm) failed (\(error.userMessage)); here are the passages instead"))
            try await emit(.text(try passageLines(passages, question: question).map(\.plainText).joined(separator: "\n")))
            return
        }
        try await emit(.text(try sourceLines(answer, numbered: numbered, question: question)))
    }

    /// Under the answer, the passages it cites, as /ask shows them without a model; an answer
    /// that cites none, or cites passages without its key words, is marked and every passage
    /// is shown instead, so a wrong answer is seen as one.
    func sourceLines(_ answer: String, numbered: [(Passage, String)], question: String) throws -> String {
        let texts = numbered.map { AskPrompt.label($0.0) + "\n" + $0.1 }
        let lines: Document
        switch AnswerGrounding.check(answer, texts: texts) {
        case .grounded(let cited):
            lines = try passageLines(cited.map { numbered[$0 - 1].0 }, question: question, numbers: cited)
        case .notFound:
            lines = [StyledLine(AskPrompt.notFound)] + (try passageLines(numbered.map(\.0), question: question))
        }
        let separator = answer.hasSuffix("\n") ? "\n" : "\n\n"
        return separator + lines.map(\.plainText).joined(separator: "\n")
    }
}
