import FoundationEssentials
import Glibc

/// `/forms` and `/form …`. Starting, resuming, sending and cancelling answer as replies (kept
/// in the thread, so the whole conversation is in the history); listing and export print.
extension LocalBackend {
    func listForms(_ context: CommandContext) async throws -> CommandOutcome { .output(try formsList()) }

    func startForm(_ context: CommandContext) async throws -> CommandOutcome {
        .events(Self.reply(try start(context.arguments["NAME"] ?? "", context: context)), recordAs: context.line)
    }

    func resumeForm(_ context: CommandContext) async throws -> CommandOutcome {
        .events(Self.reply(try resume(context.arguments["ID"], context: context)), recordAs: context.line)
    }

    /// `/form export [#ID] [FILE]`: a first word `#N` is the form's id, anything else the file.
    func exportForm(_ context: CommandContext) async throws -> CommandOutcome {
        let (id, files) = Self.formID(in: context.arguments.words)
        guard files.count <= 1 else { throw context.badArguments() }
        return .output(try export(try formToExport(id: id, context: context), to: files.first))
    }

    /// The reply is kept in the form's thread, with the form's conversation; the session is
    /// back on its notes afterwards.
    func submitForm(_ context: CommandContext) async throws -> CommandOutcome {
        let (id, extra) = Self.formID(in: context.arguments.words)
        guard extra.isEmpty else { throw context.badArguments("the form's #ID, as /forms shows it") }
        let record = try formToExport(id: id, context: context)
        let (template, target) = try submission(of: record)
        let current = try context.history.currentThread()
        if current?.id != record.threadID { try context.history.setCurrentThread(record.threadID) }
        return .events(Self.deferred { [self] in submitStream(record, template: template, to: target) }, recordAs: context.line)
    }

    /// The reply goes into the form's thread; then the session moves on to its notes.
    func cancelForm(_ context: CommandContext) async throws -> CommandOutcome {
        let lines = try cancel(context: context)
        return .events(Self.deferred { [self] in
            try moveToNotes()
            return Self.reply(lines)
        }, recordAs: context.line)
    }

    /// Lines as one finished reply.
    static func reply(_ lines: [String]) -> AsyncThrowingStream<ReplyEvent, Error> {
        let events = Locked<ArraySlice<ReplyEvent>>([.text(lines.joined(separator: "\n")), .finished(reason: nil)])
        return AsyncThrowingStream { events.update { $0.popFirst() } }
    }

    /// A stream made when it is first read: after the workspace has chosen the thread its
    /// reply is recorded in, so what `make` does to the session's current thread (moving on
    /// to the notes) cannot change where the reply goes.
    static func deferred(_ make: @escaping @Sendable () throws -> AsyncThrowingStream<ReplyEvent, Error>)
        -> AsyncThrowingStream<ReplyEvent, Error> {
        let box = Locked<AsyncThrowingStream<ReplyEvent, Error>.AsyncIterator?>(nil)
        return AsyncThrowingStream(unfolding: {
            var iterator = try box.update { current in
                if current == nil { current = try make().makeAsyncIterator() }
                return current!
            }
            let event = try await iterator.next()
            box.update { $0 = iterator }
            return event
        })
    }

    /// A new thread for the form, so its conversation stays together and apart from notes.
    func start(_ name: String, context: CommandContext) throws -> [String] {
        let (template, source) = try library.load(name)
        var conversation = FormConversation(template: template, today: today)
        var lines = conversation.begin()
        let thread = try context.history.createThread(title: template.title)
        lines += proposeFromDocuments(&conversation)
        _ = try forms().create(session: session.name, threadID: thread.id, template: template, source: source,
                               progress: conversation.progress)
        return lines
    }

    /// The latest open form, or the one named by id, template name or title; its thread
    /// becomes the current one.
    func resume(_ reference: String?, context: CommandContext) throws -> [String] {
        let open = try forms().forms(session: session.name).filter { $0.progress.stage.isOpen }
        guard !open.isEmpty else {
            throw HarkError.usage("no form is in progress in \(session.name); /forms lists the forms you can start")
        }
        var record: FormRecord
        if let reference {
            let lowered = reference.lowercased()
            let id = Int64(reference.hasPrefix("#") ? String(reference.dropFirst()) : reference)
            guard let found = open.first(where: { $0.id == id })
                ?? open.first(where: { $0.templateName.lowercased() == lowered || $0.title.lowercased() == lowered })
                ?? open.first(where: { $0.templateName.lowercased().hasPrefix(lowered) }) else {
                throw HarkError.usage("no form in progress matches \"\(reference)\"; in progress: "
                    + open.map { "#\($0.id) \($0.title)" }.joined(separator: ", "))
            }
            record = found
        } else {
            record = open[0]
        }
        try context.history.setCurrentThread(record.threadID)
        var conversation = FormConversation(template: try record.template(), progress: record.progress, today: today)
        var lines = conversation.resume()
        lines += proposeFromDocuments(&conversation)
        record.progress = conversation.progress
        try forms().save(&record)
        return lines
    }

    /// A leading `#ID` argument, and the rest.
    static func formID(in arguments: [String]) -> (Int64?, [String]) {
        guard let first = arguments.first, first.hasPrefix("#"), let id = Int64(first.dropFirst()) else { return (nil, arguments) }
        return (id, Array(arguments.dropFirst()))
    }

    /// The form with that id, else the form of the current thread, else the session's latest
    /// finished one.
    func formToExport(id: Int64?, context: CommandContext) throws -> FormRecord {
        if let id {
            guard let record = try forms().form(id: id), record.session == session.name else {
                throw HarkError.usage("no form #\(id) in \(session.name); /forms lists them")
            }
            return record
        }
        if let thread = try context.history.currentThread(), let record = try forms().latest(threadID: thread.id) { return record }
        let finished = try forms().forms(session: session.name).filter { [.done, .submitted].contains($0.progress.stage) }
        guard let latest = finished.first else {
            throw HarkError.usage("no form is filled in yet; /form NAME starts one, /forms lists them")
        }
        return latest
    }

    func export(_ record: FormRecord, to file: String?) throws -> Document {
        let template = try record.template()
        let (jsonPath, markdownPath) = FormExport.paths(for: file, record: record)
        for (path, text) in [(jsonPath, FormExport.json(record, template: template)),
                             (markdownPath, FormExport.markdown(record, template: template))] {
            do { try PosixFile.writePrivately(Array(text.utf8), to: path) } catch {
                throw HarkError.io("cannot write \(path); check that its folder exists and is writable")
            }
        }
        var lines: Document = [StyledLine("wrote \(record.title) to \(jsonPath) and \(markdownPath)", .success)]
        if record.progress.stage.isOpen {
            lines.append(StyledLine("the form is not finished; the files hold the answers so far", .dim))
        }
        return lines
    }

    /// The template and the session a finished form goes to.
    func submission(of record: FormRecord) throws -> (FormTemplate, String) {
        let template = try record.template()
        guard [.done, .submitted].contains(record.progress.stage) else {
            throw HarkError.usage("\(record.title) is not finished yet; answer its questions and say yes first")
        }
        guard let target = template.submit else {
            throw HarkError.usage("\(record.title) names no session to submit to; /form export writes it to files instead")
        }
        return (template, target)
    }

    func submitStream(_ record: FormRecord, template: FormTemplate, to target: String) -> AsyncThrowingStream<ReplyEvent, Error> {
        ProducedStream.make { [self] emit in
            var record = record
            let lines = try await submit(&record, template: template, to: target, emit: emit)
            try moveToNotes()
            try await emit(.text(lines.joined(separator: "\n")))
            try await emit(.finished(reason: nil))
        }
    }

    func cancel(context: CommandContext) throws -> [String] {
        guard let thread = try context.history.currentThread(), var record = try forms().open(threadID: thread.id) else {
            throw HarkError.usage("no form is open in this thread; /form resume ID switches to one first")
        }
        var conversation = FormConversation(template: try record.template(), progress: record.progress, today: today)
        let lines = conversation.handle(.cancel)
        record.progress = conversation.progress
        try forms().save(&record)
        return lines
    }

    func formsList() throws -> Document {
        let entries = library.entries()
        var lines: Document = []
        if entries.isEmpty {
            lines.append(StyledLine("no form templates yet; put JSON files in \(library.userDirectory) "
                + "(docs/local.md shows the format)", .dim))
        } else {
            lines.append(StyledLine("forms to fill in · /form NAME starts one", .heading))
            var rows: [[Span]] = []
            var problems: Document = []
            for entry in entries {
                switch entry.template {
                case .success(let template):
                    var about = "\(template.fields.count) question" + (template.fields.count == 1 ? "" : "s")
                    if let target = template.submit { about += " · sent to \(target)" }
                    if entry.isUsers { about += " · yours" }
                    rows.append([Span("  " + entry.name, .accent), Span(template.title), Span(about, .dim)])
                case .failure(let error):
                    problems.append(StyledLine("  " + error.message, .warning))
                }
            }
            lines += Table.render(rows) + problems
        }
        let records = try forms().forms(session: session.name)
        let open = records.filter { $0.progress.stage.isOpen }
        if !open.isEmpty {
            lines.append(StyledLine("in progress · /form resume ID continues one", .heading))
            lines += Table.render(open.map { record in
                let progress: String
                if record.progress.stage == .review {
                    progress = "waiting for your yes"
                } else if let template = try? record.template() {
                    let conversation = FormConversation(template: template, progress: record.progress, today: today)
                    progress = "\(conversation.answeredCount) of \(conversation.askedFields.count) answered"
                } else {
                    progress = ""
                }
                return [Span("  #\(record.id)", .accent), Span(record.title), Span(progress, .dim),
                        Span(TimeFormat.short(record.updatedAt, now: clock.now()), .dim)]
            })
        }
        let finished = records.filter { [.done, .submitted].contains($0.progress.stage) }.prefix(5)
        if !finished.isEmpty {
            lines.append(StyledLine("done · /form export #ID writes one to files", .heading))
            lines += Table.render(finished.map { record in
                let when = TimeFormat.short(record.completedAt ?? record.updatedAt, now: clock.now())
                return [Span("  #\(record.id)", .accent), Span(record.title),
                        Span(record.submittedTo.map { "sent to \($0)" } ?? "done", .dim), Span(when, .dim)]
            })
        }
        return lines
    }
}
