import FoundationEssentials
import Glibc
import HarkCore

extension HarkCommandLine {
    /// Options of a subcommand: flags and `--name VALUE` pairs, checked against its spec.
    struct Parsed {
        var values = OptionTable<String>()
        var flags = OptionTable<Bool>()
        var words: [String] = []
        /// Options that take every word up to the next option (`--grammar yes no`).
        var lists = OptionTable<[String]>()

        init(_ arguments: [String], command: CLICommand) throws {
            var index = 0
            while index < arguments.count {
                let argument = arguments[index]
                if argument.hasPrefix("-"), argument != "-" {
                    guard let option = command.options.first(where: { $0.names.contains(argument) }) else {
                        let names = command.options.flatMap(\.names)
                        throw HarkError.usage("hark \(command.name): unknown option \(argument)"
                            + (Suggest.closest(to: argument, in: names).map { "; did you mean \($0)?" } ?? ""))
                    }
                    let key = option.names.last!
                    if CLICommands.multiWordOptions.contains(key) {
                        var list: [String] = []
                        while index + 1 < arguments.count, !arguments[index + 1].hasPrefix("-") {
                            index += 1
                            list.append(arguments[index])
                        }
                        guard !list.isEmpty else { throw HarkError.usage("\(argument) needs at least one word") }
                        lists[key, default: []] += list
                    } else if option.value != nil {
                        index += 1
                        guard index < arguments.count else { throw HarkError.usage("\(argument) needs a value") }
                        values[key] = arguments[index]
                    } else {
                        flags[key] = true
                    }
                } else {
                    words.append(argument)
                }
                index += 1
            }
        }

        func int(_ key: String, default fallback: Int) throws -> Int {
            guard let text = values[key] else { return fallback }
            guard let number = Int(text), number > 0 else { throw HarkError.usage("\(key) needs a positive number") }
            return number
        }
    }

    static func subcommand(_ command: CLICommand, _ arguments: [String]) throws -> Int32 {
        if arguments.contains("-h") || arguments.contains("--help") {
            RawOutput.write(CLICommands.help(for: command).joined(separator: "\n") + "\n")
            return 0
        }
        switch command.name {
        case "version":
            RawOutput.write("hark \(HarkVersion.string)\n")
            return 0
        case "help":
            return help(arguments)
        case "completions":
            guard let shell = arguments.first, let script = CompletionScripts.script(for: shell) else {
                throw HarkError.usage("usage: hark completions bash|zsh|fish")
            }
            RawOutput.write(script)
            return 0
        case "session":
            return try session(arguments)
        case "speak", "transcribe", "listen", "doctor":
            return try voiceSubcommand(command, try Parsed(arguments, command: command))
        default:
            break
        }
        let parsed = try Parsed(arguments, command: command)
        if command.name == "history" || command.name == "search" { return try readHistory(command.name, parsed) }
        let workspace = try Workspace(paths: Paths.fromEnvironment())
        let session = parsed.values["--session"]
        if let session { _ = try workspace.session(named: session) }
        let json = parsed.flags.contains("--json")
        switch command.name {
        case "sessions":
            return try sessions(workspace, names: parsed.flags.contains("--names"), json: json)
        case "export":
            return try export(workspace, parsed: parsed, session: session)
        default:
            throw HarkError.usage("hark \(command.name) is not available")
        }
    }

    /// `hark history` and `hark search` only read: they open the history read-only and skip
    /// the workspace (sessions, backends, the write that registers the current session), which
    /// would cost more than the query itself. The config is read only to check `--session`.
    static func readHistory(_ name: String, _ parsed: Parsed) throws -> Int32 {
        let paths = Paths.fromEnvironment()
        let session = parsed.values["--session"]
        if let session { _ = try ConfigFile.load(paths: paths).existingSession(named: session) }
        let store = try HistoryStore.openForReading(path: paths.historyDatabase, searching: name == "search")
            ?? HistoryStore(path: paths.historyDatabase)
        let json = parsed.flags.contains("--json")
        if name == "history" {
            printMessages(try store.recentMessages(session: session, limit: try parsed.int("-n", default: 20)), json: json)
            return 0
        }
        let query = parsed.words.joined(separator: " ")
        guard !query.isEmpty else { throw HarkError.usage("usage: hark search TEXT") }
        let hits = try store.search(query, session: session, limit: try parsed.int("-n", default: 20))
        var out = ""
        if json {
            let full = parsed.flags.contains("--full")
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
            let ansi = ANSI(enabled: TerminalCapabilities.detect().colors)
            for line in MessageFormatting.searchDocument(hits) { out += ansi.render(line) + "\n" }
        }
        RawOutput.write(out)  // one write, not one per line
        return hits.isEmpty ? 1 : 0
    }

    static func help(_ arguments: [String]) -> Int32 {
        guard let name = arguments.first else {
            RawOutput.write(CLICommands.usage().joined(separator: "\n") + "\n")
            return 0
        }
        if let command = CLICommands.command(named: name) {
            RawOutput.write(CLICommands.help(for: command).joined(separator: "\n") + "\n")
            return 0
        }
        let slash = name.hasPrefix("/") ? String(name.dropFirst()) : name
        let specs = CoreCommands.table().filter { $0.name == slash }
        guard !specs.isEmpty else {
            let names = CLICommands.commands.map(\.name) + CoreCommands.table().map(\.name)
            RawOutput.write("hark: no command \(name)" + (Suggest.closest(to: slash, in: names).map { "; did you mean \($0)?" } ?? "")
                + "\n", to: STDERR_FILENO)
            return HarkError.ExitCode.usage.rawValue
        }
        for spec in specs {
            RawOutput.write("\(spec.usage)\n  \(spec.summary)\n" + (spec.kinds.map { "  for \($0.joined(separator: ", ")) sessions\n" } ?? ""))
        }
        return 0
    }

    static func session(_ arguments: [String]) throws -> Int32 {
        guard let sub = arguments.first, let spec = CLICommands.command(named: "session")?.subcommands.first(where: { $0.name == sub }) else {
            throw HarkError.usage("usage: hark session add|rm|edit …; see hark help session")
        }
        let paths = Paths.fromEnvironment()
        let config = try ConfigFile.load(paths: paths)
        let rest = Array(arguments.dropFirst())
        switch spec.name {
        case "add":
            let added = try SessionEditing.add(arguments: rest, paths: paths, config: config)
            RawOutput.write("added session \(added.name) (\(added.kind)) to \(paths.configFile)\n")
        case "rm":
            guard rest.count == 1 else { throw HarkError.usage("usage: hark session rm NAME") }
            try SessionEditing.remove(name: rest[0], paths: paths, config: config)
            RawOutput.write("removed session \(rest[0]) (its history stays)\n")
        default:
            guard let name = rest.first, rest.count >= 2 else { throw HarkError.usage("usage: hark session edit NAME KEY=VALUE…") }
            let session = try config.existingSession(named: name)
            try SessionEditing.set(Array(rest.dropFirst()), session: session, paths: paths)
            RawOutput.write("updated session \(name)\n")
        }
        return 0
    }

    static func sessions(_ workspace: Workspace, names: Bool, json: Bool) throws -> Int32 {
        if names {
            RawOutput.write(workspace.config.sessionNames.joined(separator: "\n") + "\n")
            return 0
        }
        let unread = try workspace.store.unreadCounts()
        if json {
            for session in workspace.config.sessions {
                var object: [String: JSON] = ["name": .string(session.name), "kind": .string(session.kind),
                                              "default": .bool(session.name == workspace.config.defaultSession),
                                              "unread": .number(Double(unread[session.name] ?? 0))]
                if let url = session.url { object["url"] = .string(Workspace.displayURL(url)) }
                RawOutput.write(JSON.object(object).encoded() + "\n")
            }
            return 0
        }
        let rows: [[Span]] = workspace.config.sessions.map { session in
            [Span(session.name), Span(session.kind), Span(session.url.map(Workspace.displayURL) ?? "-"),
             Span(session.name == workspace.config.defaultSession ? "default" : "")]
        }
        for line in Table.render(rows) { RawOutput.write(line.plainText.trimmingSpaces + "\n") }
        return 0
    }

    static func printMessages(_ messages: [Message], json: Bool) {
        for message in messages {
            if json {
                RawOutput.write(Export.messageJSON(message).encoded() + "\n")
            } else {
                let who = message.role == .user ? "you" : message.session
                let status = message.status == .complete ? "" : " (\(message.status.rawValue))"
                RawOutput.write("\(TimeFormat.format(message.createdAt)) [\(message.session)] \(who)\(status): \(message.text)\n")
            }
        }
    }

    static func export(_ workspace: Workspace, parsed: Parsed, session: String?) throws -> Int32 {
        let format = parsed.values["--format"] ?? "md"
        guard format == "md" || format == "json" else { throw HarkError.usage("--format is md or json") }
        var threads: [ChatThread] = []
        let sessions = session.map { [$0] } ?? workspace.config.sessionNames
        for name in sessions { threads += try workspace.store.threads(session: name) }
        if let reference = parsed.values["--thread"] {
            guard let name = session else { throw HarkError.usage("--thread needs -s SESSION") }
            guard let thread = try workspace.store.findThread(session: name, reference) else { throw HarkError.unknownThread(reference) }
            threads = [thread]
        }
        let contents = try threads.sorted { $0.id < $1.id }.map { ($0, try workspace.store.messages(threadID: $0.id)) }
        let text = format == "json" ? Export.json(threads: contents) : Export.markdown(threads: contents, session: nil)
        if let path = parsed.values["--output"] {
            guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8)) else {
                throw HarkError.io("cannot write \(path)")
            }
        } else {
            RawOutput.write(text)
        }
        return 0
    }
}
