import FoundationEssentials
import Glibc
import HarkCore

extension HarkCommandLine {
    /// Runs a subcommand, or its subcommand (`hark session add`), with its options parsed.
    func subcommand(_ command: CLICommand, _ arguments: [String], parent: String = "hark") throws -> Int32 {
        if let first = arguments.first, let sub = command.subcommands.first(where: { $0.name == first }) {
            return try subcommand(sub, Array(arguments.dropFirst()), parent: parent + " " + command.name)
        }
        if arguments.contains("-h") || arguments.contains("--help") {
            terminal.showLong(CLICommands.document(CLICommands.help(for: command, parent: parent)))
            return 0
        }
        let place = parent + " " + command.name
        return try command.run(self)(try OptionParser.parse(arguments, options: command.options, place: place,
                                                      help: "hark help " + (parent == "hark" ? command.name : place)))
    }

    func completions(_ parsed: ParsedOptions) throws -> Int32 {
        guard let shell = parsed.words.first, let script = CompletionScripts.script(for: shell) else {
            throw HarkError.usage("usage: hark completions bash|zsh|fish")
        }
        terminal.write(script)
        return 0
    }

    /// The workspace for a subcommand, with `--session` checked.
    func workspace(_ parsed: ParsedOptions) throws -> (Workspace, String?) {
        let workspace = try openWorkspace()
        let session = parsed.value("--session")
        if let session { _ = try workspace.session(named: session) }
        return (workspace, session)
    }

    func history(_ parsed: ParsedOptions) throws -> Int32 {
        let (store, session) = try readOnlyHistory(parsed)
        printMessages(try store.recentMessages(session: session, limit: try parsed.int("-n", default: 20)),
                      json: parsed.flag("--json"))
        return 0
    }

    /// `hark history` and `hark search` only read: they open the history read-only and skip
    /// the workspace (sessions, backends, the write that registers the current session), which
    /// would cost more than the query itself. The config is read only to check `--session`.
    /// `searching`: a search needs every reply in the full-text index; when some text is not
    /// yet (a hark was killed mid-reply), the history is opened writable and indexed first.
    func readOnlyHistory(_ parsed: ParsedOptions, searching: Bool = false) throws -> (HistoryStore, String?) {
        let paths = Paths.fromEnvironment()
        let session = parsed.value("--session")
        if let session { _ = try ConfigFile.load(paths: paths).existingSession(named: session) }
        return (try readableStore(paths, searching: searching), session)
    }

    /// The history for a command that only reads it: read-only when its schema allows (one
    /// from a newer hark too, which no other command may open), else opened the usual way,
    /// which creates or migrates it. `searching`: also opened the usual way when some text is
    /// not indexed yet, so that the search indexes it first.
    func readableStore(_ paths: Paths, searching: Bool = false) throws -> HistoryStore {
        if let store = HistoryStore.openForReading(path: paths.historyDatabase, searching: searching) { return store }
        let store = try HistoryStore(path: paths.historyDatabase)
        tell(store.notices)
        return store
    }

    func search(_ parsed: ParsedOptions) throws -> Int32 {
        let (store, session) = try readOnlyHistory(parsed, searching: true)
        let json = parsed.flag("--json")
        let query = parsed.words.joined(separator: " ")
        guard !query.isEmpty else { throw HarkError.usage("usage: hark search TEXT") }
        let hits = try store.search(query, session: session, limit: try parsed.int("-n", default: 20))
        var out = ""
        if json {
            let full = parsed.flag("--full")
            for hit in hits {
                // The text only on request: a hit's message may be a 100 MB reply.
                let message = full ? (try store.message(id: hit.message.id) ?? hit.message) : hit.message
                var object = Export.messageJSON(message).object ?? [:]
                if !full { object["text"] = nil }
                object["thread_title"] = .string(hit.threadTitle)
                object["length"] = .number(Double(hit.length))
                object["snippet"] = .string(hit.snippet.replacingOccurrences(of: "\u{1}", with: "").replacingOccurrences(of: "\u{2}", with: ""))
                out += JSON.object(object).encoded() + "\n"
            }
        } else {
            let lines = terminal.rendered(MessageFormatting.searchDocument(hits))
            if !lines.isEmpty { out = lines + "\n" }
        }
        if json { terminal.write(out) } else { terminal.page(out) }  // one write, not one per line
        return hits.isEmpty ? 1 : 0
    }

    func help(_ parsed: ParsedOptions) throws -> Int32 {
        guard let name = parsed.words.first else {
            terminal.showLong(CLICommands.document(CLICommands.usage()))
            return 0
        }
        if let command = CLICommands.command(named: name) {
            terminal.showLong(CLICommands.document(CLICommands.help(for: command)))
            return 0
        }
        let slash = name.hasPrefix("/") ? String(name.dropFirst()) : name
        let specs = CommandTable.standard.specs.filter { $0.name == slash }
        guard !specs.isEmpty else {
            let names = CLICommands.commands.map(\.name) + CommandTable.standard.names
            terminal.writeError("hark: no command \(name)" + (Suggest.closest(to: slash, in: names).map { "; did you mean \($0)?" } ?? "")
                + "\n")
            return HarkError.ExitCode.usage.rawValue
        }
        for spec in specs {
            terminal.write("\(spec.fullUsage)\n  \(spec.summary)\n" + (spec.kinds.map { "  for \($0.joined(separator: ", ")) sessions\n" } ?? ""))
        }
        return 0
    }

    func addSession(_ parsed: ParsedOptions) throws -> Int32 {
        let paths = Paths.fromEnvironment()
        guard let name = parsed.words.first else { throw HarkError.usage("usage: hark session add NAME --kind KIND …") }
        let added = try SessionEditing.add(name: name, settings: Array(parsed.words.dropFirst()), options: parsed, paths: paths,
                                           config: try ConfigFile.load(paths: paths))
        terminal.write("added session \(added.name) (\(added.kind)) to \(paths.configFile)\n")
        return 0
    }

    func removeSession(_ parsed: ParsedOptions) throws -> Int32 {
        let paths = Paths.fromEnvironment()
        guard parsed.words.count == 1 else { throw HarkError.usage("usage: hark session rm NAME") }
        try SessionEditing.remove(name: parsed.words[0], paths: paths, config: try ConfigFile.load(paths: paths))
        terminal.write("removed session \(parsed.words[0]) (its history stays)\n")
        return 0
    }

    func editSession(_ parsed: ParsedOptions) throws -> Int32 {
        let paths = Paths.fromEnvironment()
        let assignments = SessionEditing.assignments(parsed, words: Array(parsed.words.dropFirst()))
        guard let name = parsed.words.first, !assignments.isEmpty else {
            throw HarkError.usage("usage: hark session edit NAME KEY=VALUE… (or --set KEY=VALUE, --url URL…)")
        }
        let session = try ConfigFile.load(paths: paths).existingSession(named: name)
        try SessionEditing.set(assignments, session: session, paths: paths)
        terminal.write("updated session \(name)\n")
        return 0
    }

    func sessions(_ parsed: ParsedOptions) throws -> Int32 {
        let (workspace, _) = try workspace(parsed)
        let json = parsed.flag("--json")
        if parsed.flag("--names") {
            terminal.write(workspace.config.sessionNames.joined(separator: "\n") + "\n")
            return 0
        }
        let unread = try workspace.unreadCounts()
        if json {
            for session in workspace.config.sessions {
                var object: [String: JSON] = ["name": .string(session.name), "kind": .string(session.kind),
                                              "default": .bool(session.name == workspace.config.defaultSession),
                                              "unread": .number(Double(unread[session.name] ?? 0))]
                if let url = session.url { object["url"] = .string(Workspace.displayURL(url)) }
                terminal.write(JSON.object(object).encoded() + "\n")
            }
            return 0
        }
        let rows: [[Span]] = workspace.config.sessions.map { session in
            [Span(session.name), Span(session.kind), Span(session.url.map(Workspace.displayURL) ?? "-"),
             Span(session.name == workspace.config.defaultSession ? "default" : "")]
        }
        for line in Table.render(rows) { terminal.write(line.plainText.trimmingSpaces + "\n") }
        return 0
    }

    /// Messages one by one, or on a terminal all at once through the pager when they do not
    /// fit the screen.
    func printMessages(_ messages: [Message], json: Bool) {
        let paged = !json && terminal.capabilities.isTTY
        var out = ""
        for message in messages {
            var line: String
            if json {
                line = Export.messageJSON(message).encoded() + "\n"
            } else {
                let who = message.role == .user ? "you" : message.session
                let status = message.status == .complete ? "" : " (\(message.status.rawValue))"
                let text = "\(TimeFormat.format(message.createdAt)) [\(message.session)] \(who)\(status): \(message.text)"
                // In a pipe the text as stored; on a terminal inert and cut to its width.
                line = terminal.capabilities.sanitizes ? terminal.rendered([StyledLine(text)]) + "\n" : text + "\n"
            }
            if paged { out += line } else { terminal.write(line) }
        }
        if paged { terminal.page(out) }
    }

    /// Reads only, as history and search do (a history from a newer hark can be exported):
    /// the config for the sessions, the history read-only.
    func export(_ parsed: ParsedOptions) throws -> Int32 {
        let paths = Paths.fromEnvironment()
        let config = try ConfigFile.load(paths: paths)
        let session = parsed.value("--session")
        if let session { _ = try config.existingSession(named: session) }
        let store = try readableStore(paths)
        let format = parsed.value("--format") ?? "md"
        guard format == "md" || format == "json" else { throw HarkError.usage("--format is md or json") }
        var threads: [ChatThread] = []
        let sessions = session.map { [$0] } ?? config.sessionNames
        for name in sessions { threads += try store.threads(session: name) }
        if let reference = parsed.value("--thread") {
            guard let name = session else { throw HarkError.usage("--thread needs -s SESSION") }
            guard let thread = try store.findThread(session: name, reference) else { throw HarkError.unknownThread(reference) }
            threads = [thread]
        }
        let contents = try threads.sorted { $0.id < $1.id }.map { ($0, try store.messages(threadID: $0.id)) }
        var additions = ExportAdditions()
        for name in sessions {
            guard let config = config.session(named: name) else { continue }
            additions.merge(Workspace.exportAdditions(session: config, paths: paths, store: store,
                                                      threads: threads.filter { $0.session == name }))
        }
        let text = format == "json" ? Export.json(threads: contents, additions: additions)
            : Export.markdown(threads: contents, session: nil, additions: additions)
        if let path = parsed.value("--output") {
            try PosixFile.writePrivately(Array(text.utf8), to: path)
        } else {
            terminal.write(terminal.capabilities.sanitizes ? TerminalSanitizer.visible(text) : text)
        }
        return 0
    }
}
