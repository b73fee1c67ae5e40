import FoundationEssentials
import Glibc

extension Workspace {
    func listSessions(_ invocation: CommandInvocation) async throws -> CommandOutcome {
        let unread = try store.unreadCounts()
        let rows: [[Span]] = config.sessions.map { session in
            let marker = session.name == currentSession ? Span("›", .accent) : Span(" ")
            var status: [String] = []
            if let count = unread[session.name], count > 0 { status.append("\(count) unread") }
            let running = runningJobs(session: session.name).count
            if running > 0 { status.append("\(running) running") }
            let where_ = session.url.map { HTTPRequest.displayHost(of: $0) } ?? (session.kind == "local" ? "offline" : "")
            return [marker, Span(session.name, .bold), Span(session.kind, .dim), Span(where_, .dim),
                    Span(status.joined(separator: ", "), .accent)]
        }
        return .output(Table.render(rows, gap: 1))
    }

    func sessionCommand(_ invocation: CommandInvocation) async throws -> CommandOutcome {
        guard let first = invocation.arguments.first else {
            return try await listSessions(invocation)
        }
        switch first {
        case "add":
            let added = try SessionEditing.add(arguments: Array(invocation.arguments.dropFirst()), paths: paths, config: config)
            try reloadConfig()
            return .output([StyledLine("added session \(added.name) (\(added.kind)); /session \(added.name) switches to it", .success)])
        case "rm":
            guard invocation.arguments.count == 2 else { throw HarkError.usage("usage: /session rm NAME") }
            let name = invocation.arguments[1]
            try SessionEditing.remove(name: name, paths: paths, config: config)
            try reloadConfig()
            return .output([StyledLine("removed session \(name) from the config (its history stays)", .success)])
        case "edit":
            guard invocation.arguments.count >= 2 else { throw HarkError.usage("usage: /session edit NAME [KEY=VALUE…]") }
            let name = invocation.arguments[1]
            let session = try self.session(named: name)
            let assignments = Array(invocation.arguments.dropFirst(2))
            if assignments.isEmpty {
                return .editConfig
            }
            try SessionEditing.set(assignments, session: session, paths: paths)
            try reloadConfig()
            return .output([StyledLine("updated session \(name)", .success)])
        default:
            return try switchTo(first)
        }
    }

    /// Switches and shows what arrived there since the user last looked.
    func switchTo(_ name: String) throws -> CommandOutcome {
        try switchSession(to: name)
        let arrived = try store.unreadMessages(session: name)
        try store.markRead(session: name)
        var lines: Document = []
        if !arrived.isEmpty {
            lines.append(StyledLine("\(arrived.count) new repl\(arrived.count == 1 ? "y" : "ies") in \(name):", .dim))
            lines += MessageFormatting.document(arrived, session: currentConfig)
        }
        return .output(lines)
    }

    func nextUnread(_ invocation: CommandInvocation) async throws -> CommandOutcome {
        guard let name = try store.oldestUnreadSession(), config.session(named: name) != nil else {
            return .output([StyledLine("nothing unread", .dim)])
        }
        return try switchTo(name)
    }
}

/// Adding, editing and removing sessions in the config file; shared by `/session` and
/// `hark session`.
public enum SessionEditing {
    /// Parses `NAME --kind K [--url U] [--auth A] [--model M] [--system S] [--set K=V]…`.
    public static func add(arguments: [String], paths: Paths, config: Config) throws -> SessionConfig {
        guard let name = arguments.first, !name.hasPrefix("-") else {
            throw HarkError.usage("usage: session add NAME --kind KIND [--url URL] [--auth SPEC] [--set KEY=VALUE]…")
        }
        guard ConfigFile.isValidSessionName(name) else {
            throw HarkError.usage("session name \"\(MessageLine.name(name))\" may use letters, digits, _ . and - only")
        }
        guard config.session(named: name) == nil || (name == "local" && !sessionBlockExists("local", paths: paths)) else {
            throw HarkError.usage("session \(name) exists already; use session edit \(name) KEY=VALUE")
        }
        var session = SessionConfig(name: name, kind: "")
        var index = 1
        func value(_ option: String) throws -> String {
            index += 1
            guard index < arguments.count else { throw HarkError.usage("\(option) needs a value") }
            return arguments[index]
        }
        while index < arguments.count {
            let option = arguments[index]
            switch option {
            case "--kind": session.kind = try value(option).lowercased()
            case "--url": session["url"] = try value(option)
            case "--auth": session["auth"] = try value(option)
            case "--model": session["model"] = try value(option)
            case "--system": session["system"] = try value(option)
            case "--set":
                let (key, setting) = try assignment(try value(option))
                if key == "kind" { session.kind = setting } else { session[key] = setting }
            default:
                if option.contains("="), !option.hasPrefix("-") {
                    let (key, setting) = try assignment(option)
                    session[key] = setting
                } else {
                    throw HarkError.usage("unknown option \(option) for session add; options are --kind --url --auth --model --system --set")
                }
            }
            index += 1
        }
        guard !session.kind.isEmpty else {
            throw HarkError.usage("session add needs --kind (\(BackendRegistry.names.joined(separator: ", ")))")
        }
        _ = try session.auth()
        let problems = try BackendRegistry.validate(session)
        if let problem = problems.first { throw HarkError.usage(problem) }
        let text = currentText(paths)
        let updated = ConfigFile.adding(session, to: text)
        try ConfigFile.checkBeforeWriting(try ConfigFile.parse(updated, path: paths.configFile), path: paths.configFile)
        try ConfigFile.write(updated, to: paths.configFile)
        return session
    }

    static func sessionBlockExists(_ name: String, paths: Paths) -> Bool {
        ConfigFile.blockRange(of: name, in: currentText(paths).lineSlices()) != nil
    }

    static func currentText(_ paths: Paths) -> String {
        FileManager.default.contents(atPath: paths.configFile).map { String(decoding: $0, as: UTF8.self) }
            ?? ConfigFile.defaultText
    }

    static func assignment(_ text: String) throws -> (String, String) {
        guard let equals = text.firstIndex(of: "=") else {
            throw HarkError.usage("expected KEY=VALUE, got \"\(text)\"")
        }
        let key = text[..<equals].trimmingSpaces.lowercased()
        guard !key.isEmpty else { throw HarkError.usage("expected KEY=VALUE, got \"\(text)\"") }
        return (key, String(text[text.index(after: equals)...]))
    }

    public static func remove(name: String, paths: Paths, config: Config) throws {
        _ = try config.existingSession(named: name)
        guard let updated = ConfigFile.removing(session: name, from: currentText(paths)) else {
            throw HarkError.usage("session \(name) is built in and has no block in the config to remove")
        }
        try ConfigFile.write(updated, to: paths.configFile)
    }

    /// Applies `KEY=VALUE` (an empty value removes the key).
    public static func set(_ assignments: [String], session: SessionConfig, paths: Paths) throws {
        var changes: [(key: String, value: String?)] = []
        var edited = session
        for text in assignments {
            let (key, value) = try assignment(text)
            guard key != "kind" else { throw HarkError.usage("a session's kind cannot change; remove it and add it again") }
            changes.append((key, value.isEmpty ? nil : value))
            edited[key] = value.isEmpty ? nil : value
        }
        _ = try edited.auth()
        if let problem = try BackendRegistry.validate(edited).first { throw HarkError.usage(problem) }
        let updated = ConfigFile.setting(changes, session: session.name, kind: session.kind, in: currentText(paths))
        try ConfigFile.checkBeforeWriting(try ConfigFile.parse(updated, path: paths.configFile), path: paths.configFile)
        try ConfigFile.write(updated, to: paths.configFile)
    }
}
