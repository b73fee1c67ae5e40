import FoundationEssentials
import Glibc

/// One `[mcp NAME]` section: an MCP server hark starts (`command`, spoken to over stdio) or
/// reaches (`url`, Streamable HTTP), and which of its tools run without asking (`allow`).
public struct MCPServerConfig: Sendable, Equatable {
    public var name: String
    public var values: [String: String]
    public var line: Int?

    public init(name: String, values: [String: String] = [:], line: Int? = nil) {
        self.name = name
        self.values = values
        self.line = line
    }

    /// Its settings and what each is for (plain pairs, not SettingSpec: the config fuzz target
    /// compiles this file without the backends).
    public static let settings: [(key: String, summary: String)] = [
        ("command", "the server's program and arguments, started over stdio (or url)"),
        ("url", "the server's Streamable HTTP endpoint, e.g. http://127.0.0.1:8000/mcp (or command)"),
        ("env", "NAME=VALUE… for the program; a value may be env:VAR, file:PATH or cmd:COMMAND"),
        ("cwd", "the folder the program starts in"),
        ("auth", "bearer:SECRET or header:NAME:SECRET for a url"),
        ("allow", "tools that run without asking: their names, or * for all of this server's"),
        ("timeout", "seconds a tool call may take (default 120)"),
        ("protocol", "auto (default: 2026-07-28 if the server speaks it, else the handshake; over stdio the handshake first), 2025-11-25 or 2026-07-28"),
        ("description", "a note shown by /tools"),
    ]

    public subscript(key: String) -> String? { values[key].flatMap { $0.isEmpty ? nil : $0 } }

    /// The config's own mistakes, said when the file is read.
    func check(path: String) throws {
        func fail(_ reason: String) -> HarkError { .config(path: path, line: line, reason: "[mcp \(name)] " + reason) }
        switch (self["command"], self["url"]) {
        case (nil, nil): throw fail("needs command = PROGRAM … (stdio) or url = http://… (Streamable HTTP)")
        case (.some, .some): throw fail("has both command and url; keep one")
        default: break
        }
        let known = Set(Self.settings.map(\.key))
        if let unknown = values.keys.sorted().first(where: { !known.contains($0) }) {
            let suggestion = Suggest.closest(to: unknown, in: Array(known)).map { "; did you mean \($0)?" } ?? ""
            throw fail("unknown setting \(MessageLine.name(unknown))\(suggestion)")
        }
        if let text = self["timeout"], Double(text).map({ $0 > 0 }) != true {
            throw fail("timeout must be a number of seconds, not \"\(MessageLine.name(text))\"")
        }
        if let text = self["protocol"], ProtocolChoice(rawValue: text) == nil {
            throw fail("protocol must be " + ProtocolChoice.allCases.map(\.rawValue).joined(separator: ", ")
                + ", not \"\(MessageLine.name(text))\"")
        }
        if self["command"] != nil { _ = try arguments(path: path) }
        _ = try environment(resolving: false)
    }

    /// The program and its arguments, `~` expanded.
    func arguments(path: String? = nil) throws -> [String] {
        let words: [String]
        do { words = try Tokenizer.split(self["command"] ?? "") } catch {
            throw HarkError.config(path: path ?? "config", line: line, reason: "[mcp \(name)] command: \(error.userMessage)")
        }
        return words.map { $0.hasPrefix("~") ? $0.expandingTildeInPath : $0 }
    }

    /// `env = NAME=VALUE …`, each value a secret reference resolved now when `resolving`.
    func environment(resolving: Bool = true) throws -> [String: String] {
        var result: [String: String] = [:]
        for word in try Tokenizer.split(self["env"] ?? "") {
            guard let equals = word.firstIndex(of: "="), equals != word.startIndex else {
                throw HarkError.usage("[mcp \(name)] env: \(MessageLine.name(word)) is not NAME=VALUE")
            }
            let value = String(word[word.index(after: equals)...])
            let reference = SecretReference(value)
            result[String(word[..<equals])] = resolving && !reference.isLiteral ? try reference.resolve() : value
        }
        return result
    }

    /// Which revision hark speaks to the server: `auto` over HTTP asks `server/discover` and
    /// falls back to the `initialize` handshake when the answer is not a 2026-07-28 server's
    /// (the SDK client's `mode="auto"`, mcp/client/_probe.py); over stdio it starts with the
    /// handshake and turns to 2026-07-28 when the server answers that it speaks only that
    /// (-32022). The others pin one, over either transport.
    enum ProtocolChoice: String, Sendable, CaseIterable {
        case auto
        case handshake = "2025-11-25"
        case stateless = "2026-07-28"
    }

    var protocolChoice: ProtocolChoice {
        self["protocol"].flatMap(ProtocolChoice.init(rawValue:)) ?? .auto
    }

    /// Seconds one request may take.
    var timeout: Double { self["timeout"].flatMap(Double.init) ?? 120 }

    /// `allow`: tool names of this server that run without asking (`*`: all of them).
    var allowed: Set<String> { Set((self["allow"] ?? "").split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)) }
}
