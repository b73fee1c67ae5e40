/// A prompt file of the library: Markdown with an optional front matter block.
///
///     ---
///     name: translate
///     description: Translate text into another language, keeping its tone
///     variables: text, language=English
///     ---
///     Translate into {{language}}: …
///
/// `variables` lists the placeholders, each `NAME` or `NAME=DEFAULT`; a `{{NAME}}` in the
/// text that the list does not name is a variable too (with no default).
public struct PromptTemplate: Sendable, Equatable {
    public struct Variable: Sendable, Equatable {
        public var name: String
        public var defaultValue: String?
    }

    public var name: String
    public var description: String?
    public var variables: [Variable]
    /// The prompt, without the front matter.
    public var body: String

    public init(name: String, description: String? = nil, variables: [Variable] = [], body: String) {
        self.name = name
        self.description = description
        self.variables = variables
        self.body = body
    }

    /// Reads a prompt file's text; `fallbackName` (the file's name) names it when the front
    /// matter does not.
    public static func parse(_ text: String, fallbackName: String) -> PromptTemplate {
        let (header, body) = split(text)
        var template = PromptTemplate(name: fallbackName, body: body)
        for line in header {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let key = line[..<colon].trimmingSpaces.lowercased()
            let value = unquote(line[line.index(after: colon)...].trimmingSpaces)
            switch key {
            case "name" where !value.isEmpty: template.name = value
            case "description" where !value.isEmpty: template.description = value
            case "variables": template.variables = parseVariables(value)
            default: break
            }
        }
        for placeholder in placeholders(in: body) where !template.variables.contains(where: { $0.name == placeholder }) {
            template.variables.append(Variable(name: placeholder, defaultValue: nil))
        }
        return template
    }

    /// The front matter's lines and the text after it. A file without a closing `---` has no
    /// front matter: all of it is the prompt.
    static func split(_ text: String) -> (header: [Substring], body: String) {
        let lines = text.lineSlices()
        guard lines.first?.trimmingSpaces == "---",
              let close = lines.dropFirst().firstIndex(where: { $0.trimmingSpaces == "---" }) else {
            return ([], text.trimmed)
        }
        return (Array(lines[1..<close]), lines[(close + 1)...].joined(separator: "\n").trimmed)
    }

    /// `a, b=x` or `[a, b=x]`.
    static func parseVariables(_ text: String) -> [Variable] {
        var list = Substring(text)
        if list.hasPrefix("["), list.hasSuffix("]") { list = list.dropFirst().dropLast() }
        return list.split(separator: ",").compactMap { item in
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = parts[0].trimmingSpaces
            guard !name.isEmpty else { return nil }
            return Variable(name: name, defaultValue: parts.count == 2 ? unquote(parts[1].trimmingSpaces) : nil)
        }
    }

    static func unquote(_ text: String) -> String {
        for quote in ["\"", "'"] where text.count >= 2 && text.hasPrefix(quote) && text.hasSuffix(quote) {
            return String(text.dropFirst().dropLast())
        }
        return text
    }

    /// The names inside `{{…}}`, in order of first appearance.
    static func placeholders(in body: String) -> [String] {
        var names: [String] = []
        var rest = Substring(body)
        while let open = rest.range(of: "{{") {
            let after = rest[open.upperBound...]
            guard let close = after.range(of: "}}") else { break }
            let name = after[..<close.lowerBound].trimmingSpaces
            if !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }), !names.contains(name) {
                names.append(name)
            }
            rest = after[close.upperBound...]
        }
        return names
    }

    /// Variables that have no default.
    public var requiredVariables: [String] { variables.filter { $0.defaultValue == nil }.map(\.name) }

    /// The text with every placeholder replaced: by `values`, else by its default. Names of
    /// variables with neither are returned as `missing` and their placeholders left as they are.
    public func filled(_ values: [String: String]) -> (text: String, missing: [String]) {
        var text = body
        var missing: [String] = []
        for variable in variables {
            guard let value = values[variable.name] ?? variable.defaultValue else {
                missing.append(variable.name)
                continue
            }
            text = text.replacingOccurrences(of: "{{\(variable.name)}}", with: value)
                .replacingOccurrences(of: "{{ \(variable.name) }}", with: value)
        }
        return (text, missing)
    }

    /// The usage line: `/prompt translate text=… [language=English]`.
    public var usage: String {
        (["/prompt", name] + variables.map { variable in
            variable.defaultValue.map { "[\(variable.name)=\($0)]" } ?? "\(variable.name)=…"
        }).joined(separator: " ")
    }
}
