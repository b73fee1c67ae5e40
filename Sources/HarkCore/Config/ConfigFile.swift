import FoundationEssentials
import Glibc

/// Reads and edits the hand-written config file. Format:
///
///     # comment
///     [hark]
///     default = helpdesk
///
///     [session helpdesk]
///     kind = webhook
///     url  = https://n8n.example.com/webhook/4f1c/chat
///     auth = header:X-N8N-Key:env:N8N_KEY
///
/// A value may be double-quoted to keep surrounding spaces or hold `\n`. Edits made by
/// `hark session add|rm|edit` touch only the lines of that session; comments stay.
public enum ConfigFile {
    /// Letters and digits, then also `_ . -`; at most 64 characters.
    public static func isValidSessionName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, name.unicodeScalars.count <= 64 else { return false }
        func isAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
            ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
        }
        return isAlphanumeric(first) && name.unicodeScalars.allSatisfy { isAlphanumeric($0) || "_.-".unicodeScalars.contains($0) }
    }

    // MARK: Reading

    public static func parse(_ text: String, path: String) throws -> Config {
        var global: [String: String] = [:]
        var sessions: [SessionConfig] = []
        var servers: [MCPServerConfig] = []
        enum Section { case none, global, session(Int), mcp(Int) }
        var section = Section.none
        for (offset, rawLine) in text.lineSlices().enumerated() {
            let number = offset + 1
            let line = rawLine.trimmingSpaces
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]") else {
                    throw HarkError.config(path: path, line: number, reason: "a section header must end with ]")
                }
                let words = line.dropFirst().dropLast().split(separator: " ", omittingEmptySubsequences: true)
                if words.count == 1, words[0] == "hark" {
                    section = .global
                } else if words.count == 2, words[0] == "session" {
                    let name = try sectionName(words[1], of: "session", path: path, line: number,
                                               taken: sessions.contains { $0.name == words[1] })
                    sessions.append(SessionConfig(name: name, kind: "", line: number))
                    section = .session(sessions.count - 1)
                } else if words.count == 2, words[0] == "mcp" {
                    let name = try sectionName(words[1], of: "MCP server", path: path, line: number,
                                               taken: servers.contains { $0.name == words[1] })
                    servers.append(MCPServerConfig(name: name, line: number))
                    section = .mcp(servers.count - 1)
                } else {
                    throw HarkError.config(path: path, line: number,
                                           reason: "unknown section \(line); use [hark], [session NAME] or [mcp NAME]")
                }
                continue
            }
            guard let equals = line.firstIndex(of: "=") else {
                throw HarkError.config(path: path, line: number, reason: "expected KEY = VALUE")
            }
            let key = line[..<equals].trimmingSpaces.lowercased()
            guard !key.isEmpty, key.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }) else {
                throw HarkError.config(path: path, line: number, reason: "invalid key \"\(key)\"")
            }
            let value = try unquote(line[line.index(after: equals)...].trimmingSpaces,
                                    path: path, line: number)
            switch section {
            case .none:
                throw HarkError.config(path: path, line: number, reason: "\(key) is outside any section; put it under [hark]")
            case .global:
                global[key] = value
            case .session(let index):
                if key == "kind" {
                    sessions[index].kind = value.lowercased()
                } else {
                    sessions[index].values[key] = value
                    sessions[index].keyLines[key] = number
                }
            case .mcp(let index):
                servers[index].values[key] = value
            }
        }
        for session in sessions where session.kind.isEmpty {
            throw HarkError.config(path: path, line: session.line, reason: "session \"\(session.name)\" has no kind")
        }
        for server in servers { try server.check(path: path) }
        // A company proxy is usually one for everything: `[hark]`'s stands for every session
        // that names none of its own.
        for key in ["proxy", "proxy_auth"] {
            guard let value = global[key], !value.isEmpty else { continue }
            for index in sessions.indices where sessions[index].values[key] == nil { sessions[index].values[key] = value }
        }
        return Config(path: path, global: global, sessions: sessions, mcpServers: servers)
    }

    /// The NAME of a `[session NAME]` or `[mcp NAME]` header, checked: a valid name, not defined before.
    private static func sectionName(_ word: Substring, of what: String, path: String, line: Int, taken: Bool) throws -> String {
        let name = String(word)
        guard isValidSessionName(name) else {
            throw HarkError.config(path: path, line: line,
                                   reason: "\(what) name \"\(MessageLine.name(name))\" may use letters, digits, _ . and - only")
        }
        guard !taken else { throw HarkError.config(path: path, line: line, reason: "\(what) \"\(name)\" is defined twice") }
        return name
    }

    static func unquote(_ value: String, path: String, line: Int) throws -> String {
        guard value.hasPrefix("\"") else { return value }
        guard value.count >= 2, value.hasSuffix("\"") else {
            throw HarkError.config(path: path, line: line, reason: "unterminated quoted value")
        }
        // By scalar: "\r\n" is one Character, and an escape may stand before either half.
        var result = String.UnicodeScalarView()
        var scalars = value.unicodeScalars.dropFirst().dropLast()[...]
        while let scalar = scalars.popFirst() {
            guard scalar == "\\", let escaped = scalars.popFirst() else {
                result.append(scalar)
                continue
            }
            switch escaped {
            case "n": result.append("\n")
            case "r": result.append("\r")
            case "t": result.append("\t")
            case "u":
                // \uXXXX, written by quoteIfNeeded for the other line breaks (U+2028, NEL…).
                let hex = String(String.UnicodeScalarView(scalars.prefix(4)))
                guard hex.count == 4, let code = UInt32(hex, radix: 16), let decoded = Unicode.Scalar(code) else {
                    throw HarkError.config(path: path, line: line, reason: "\\u needs four hex digits, as in \\u2028")
                }
                result.append(decoded)
                scalars = scalars.dropFirst(4)
            default: result.append(escaped)
            }
        }
        return String(result)
    }

    /// The value as written to the file: quoted, with escapes, when it has outer spaces, starts
    /// with a quote, or holds a tab or anything that ends a line (the file is split at every
    /// line break Swift knows: CR, LF, VT, FF, NEL, U+2028, U+2029), which would otherwise
    /// break the line in two.
    static func quoteIfNeeded(_ value: String) -> String {
        let needsQuotes = value.hasPrefix("\"") || value != value.trimmingSpaces
            || value.unicodeScalars.contains { $0 == "\t" || isLineBreak($0) }
        guard needsQuotes else { return value }
        var escaped = String.UnicodeScalarView()
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\\": escaped.append(contentsOf: "\\\\".unicodeScalars)
            case "\"": escaped.append(contentsOf: "\\\"".unicodeScalars)
            case "\n": escaped.append(contentsOf: "\\n".unicodeScalars)
            case "\r": escaped.append(contentsOf: "\\r".unicodeScalars)
            case "\t": escaped.append(contentsOf: "\\t".unicodeScalars)
            case _ where isLineBreak(scalar):
                let hex = String(scalar.value, radix: 16, uppercase: true)
                escaped.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).unicodeScalars)
            default: escaped.append(scalar)
            }
        }
        return "\"" + String(escaped) + "\""
    }

    private static func isLineBreak(_ scalar: Unicode.Scalar) -> Bool { Character(scalar).isNewline }

    /// Loads the config, writing the commented default first if there is none. A literal
    /// secret in a file that group or others can read is refused, as ssh refuses such keys.
    public static func load(paths: Paths) throws -> Config {
        let path = paths.configFile
        let manager = FileManager.default
        if !manager.fileExists(atPath: path) {
            try? manager.createDirectory(atPath: paths.configDirectory, withIntermediateDirectories: true,
                                         attributes: [.posixPermissions: 0o700])
            guard manager.createFile(atPath: path, contents: Data(defaultText.utf8),
                                     attributes: [.posixPermissions: 0o600]) else {
                // A read-only home is no reason not to run: use the defaults in memory.
                return Config(path: path)
            }
        }
        guard let data = manager.contents(atPath: path) else {
            throw HarkError.config(path: path, line: nil, reason: "cannot read the file; check its permissions")
        }
        let config = try parse(String(decoding: data, as: UTF8.self), path: path)
        try checkPermissions(config, path: path)
        return config
    }

    static func checkPermissions(_ config: Config, path: String) throws {
        guard isReadableByOthers(path), let (session, key) = firstLiteralSecret(in: config) else { return }
        throw HarkError.config(path: path, line: session.line, reason: "session \(session.name) has "
            + literalSecretHint(key: key, path: path, doing: "but the file is readable by others"))
    }

    /// Refuses to write a config holding a literal secret over a file that group or others
    /// can read (one the user made by hand, say): hark would then refuse to load it, and the
    /// secret would already be exposed. The mode is the user's to change, not hark's behind
    /// their back; a file hark creates is private (0600) and takes anything.
    public static func checkBeforeWriting(_ config: Config, path: String) throws {
        guard isReadableByOthers(path), let (session, key) = firstLiteralSecret(in: config) else { return }
        throw HarkError.config(path: path, line: nil, reason: "not written: session \(session.name) would have "
            + literalSecretHint(key: key, path: path, doing: "and others can read the file"))
    }

    static func isReadableByOthers(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & 0o044 != 0
    }

    static func firstLiteralSecret(in config: Config) -> (SessionConfig, String)? {
        for session in config.sessions {
            if let key = session.literalSecretKeys.first { return (session, key) }
        }
        // An MCP server's `auth`, as a session's: read as one for the check and its message.
        for server in config.mcpServers {
            let asSession = SessionConfig(name: "mcp " + server.name, kind: "mcp", values: server.values, line: server.line)
            if let key = asSession.literalSecretKeys.first(where: { $0 != "env" }) { return (asSession, key) }
        }
        return nil
    }

    static func literalSecretHint(key: String, path: String, doing: String) -> String {
        if key == "url" {
            return "a password in its url \(doing); put it in auth = basic:USER:env:VAR (or file:PATH, cmd:COMMAND) "
                + "and take it out of the url, or run chmod 600 \(path)"
        }
        return "a literal secret in \(key) \(doing); run chmod 600 \(path) or use env:VAR, file:PATH or cmd:COMMAND"
    }

    // MARK: Editing

    /// The text with a new session block appended.
    public static func adding(_ session: SessionConfig, to text: String) -> String {
        var block = "\n[session \(session.name)]\nkind = \(session.kind)\n"
        for key in session.values.keys.sorted(by: keyOrder) {
            block += "\(key) = \(quoteIfNeeded(session.values[key]!))\n"
        }
        var result = text
        if !result.isEmpty, !result.hasSuffix("\n") { result += "\n" }
        return result + block
    }

    /// Common keys first, in the order people read them; the rest alphabetically.
    static func keyOrder(_ left: String, _ right: String) -> Bool {
        let order = ["url", "auth", "model", "system"]
        let leftRank = order.firstIndex(of: left) ?? order.count
        let rightRank = order.firstIndex(of: right) ?? order.count
        return leftRank != rightRank ? leftRank < rightRank : left < right
    }

    /// The line range of a session block: its header through its last key line.
    static func blockRange(of name: String, in lines: [Substring]) -> Range<Int>? {
        guard let start = lines.firstIndex(where: { sectionName($0) == .session(name) }) else { return nil }
        var end = start + 1
        var lastContent = start
        while end < lines.count, sectionName(lines[end]) == nil {
            let trimmed = lines[end].trimmingSpaces
            if !trimmed.isEmpty && !trimmed.hasPrefix("#") && !trimmed.hasPrefix(";") { lastContent = end }
            end += 1
        }
        return start..<(lastContent + 1)
    }

    enum SectionName: Equatable { case global, session(String) }

    static func sectionName(_ line: Substring) -> SectionName? {
        let trimmed = line.trimmingSpaces
        guard trimmed.hasPrefix("["), trimmed.hasSuffix("]") else { return nil }
        let words = trimmed.dropFirst().dropLast().split(separator: " ")
        if words.count == 1, words[0] == "hark" { return .global }
        if words.count == 2, words[0] == "session" { return .session(String(words[1])) }
        return .global
    }

    /// The text without the session's block, or nil when there is no such block.
    public static func removing(session name: String, from text: String) -> String? {
        var lines = text.lineSlices()
        guard let range = blockRange(of: name, in: lines) else { return nil }
        lines.removeSubrange(range)
        // Do not leave a double blank line where the block was.
        if range.lowerBound > 0, range.lowerBound < lines.count,
           lines[range.lowerBound - 1].trimmingSpaces.isEmpty,
           lines[range.lowerBound].trimmingSpaces.isEmpty {
            lines.remove(at: range.lowerBound)
        }
        return lines.joined(separator: "\n")
    }

    /// The text with keys of one session set (a nil value removes the key). Adds the block when
    /// the session (the built-in `local`) has none yet.
    public static func setting(_ changes: [(key: String, value: String?)], session name: String, kind: String,
                               in text: String) -> String {
        var lines = text.lineSlices()
        guard var range = blockRange(of: name, in: lines) else {
            var values: [String: String] = [:]
            for change in changes { values[change.key] = change.value }
            return adding(SessionConfig(name: name, kind: kind, values: values.compactMapValues { $0 }), to: text)
        }
        for change in changes {
            let matches = range.dropFirst().filter { index in
                let line = lines[index]
                guard let equals = line.firstIndex(of: "=") else { return false }
                return line[..<equals].trimmingSpaces.lowercased() == change.key
            }
            // A key written twice reads as its last value: change that one, remove them all.
            if let existing = matches.last {
                if let value = change.value {
                    lines[existing] = Substring("\(change.key) = \(quoteIfNeeded(value))")
                } else {
                    for index in matches.reversed() { lines.remove(at: index) }
                    range = range.lowerBound..<(range.upperBound - matches.count)
                }
            } else if let value = change.value {
                lines.insert(Substring("\(change.key) = \(quoteIfNeeded(value))"), at: range.upperBound)
                range = range.lowerBound..<(range.upperBound + 1)
            }
        }
        return lines.joined(separator: "\n")
    }

    /// Writes the config atomically, keeping it private.
    public static func write(_ text: String, to path: String) throws {
        let temporary = path + ".tmp-\(getpid())"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(text.utf8),
                                             attributes: [.posixPermissions: 0o600]) else {
            throw HarkError.io("cannot write \(path); check the folder's permissions")
        }
        var info = stat()
        if stat(path, &info) == 0 { chmod(temporary, info.st_mode & 0o777) }
        guard rename(temporary, path) == 0 else {
            unlink(temporary)
            throw HarkError.io("cannot replace \(path): \(String(cString: strerror(errno)))")
        }
    }

    public static let defaultText = """
        # hark configuration: hand-editable. `hark session add|rm` and /session edit change it too.
        # Values may be "quoted" to keep spaces. Secrets are references, never pasted:
        #   env:VAR (environment), file:PATH (first line of a file), cmd:COMMAND (e.g. a password manager)
        # A literal secret is refused unless this file is private (chmod 600).

        [hark]
        # The session `hark` opens on.
        default = local

        # The built-in offline session: notes to self, forms and prompts. Needs nothing.
        [session local]
        kind = local
        # A model's session (below) that reads several form answers out of one free-text answer:
        # llm = llama

        # An n8n agent behind a Chat Trigger node (copy its Chat URL). What n8n sends is set by
        # the trigger's response mode ("Streaming", "When last node finishes", "Using Response
        # Nodes"), not by hark: `stream` only asks (Accept header) and hark reads any of them.
        # [session helpdesk]
        # kind = webhook
        # url  = https://n8n.example.com/webhook/4f1c0000-0000-0000-0000-000000000000/chat
        # auth = header:X-N8N-Key:env:N8N_KEY
        # stream = on

        # Any OpenAI-compatible server: llama.cpp, Ollama, vLLM or a hosted API:
        # [session llama]
        # kind   = openai
        # url    = http://127.0.0.1:8080/v1
        # model  = gemma-3-270m
        # system = @prompts/concise.md
        # auth   = bearer:env:OPENAI_API_KEY

        # A Nyla gateway's workspace or chatbot instance: /login, then /instances and /instance ID:
        # [session acme]
        # kind     = nyla
        # url      = https://nyla.example.com
        # instance = ws1

        """
}
