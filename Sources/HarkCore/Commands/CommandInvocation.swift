/// A parsed slash-command line.
public struct CommandInvocation: Sendable, Equatable {
    public var name: String
    public var arguments: [String]
    /// Everything after the command name, as typed (for free text such as a title or a query).
    public var rawArguments: String

    public init(name: String, arguments: [String], rawArguments: String) {
        self.name = name
        self.arguments = arguments
        self.rawArguments = rawArguments
    }

    /// Parses `/name args…`; nil when the line is not a command.
    public static func parse(_ line: String) throws -> CommandInvocation? {
        guard line.hasPrefix("/"), !line.hasPrefix("//") else { return nil }
        let body = line.dropFirst()
        let nameEnd = body.firstIndex(where: { $0.isWhitespace }) ?? body.endIndex
        let name = String(body[..<nameEnd])
        guard !name.isEmpty else { throw HarkError.usage("type a command after /, e.g. /help") }
        let raw = body[nameEnd...].trimmingSpaces
        return CommandInvocation(name: name, arguments: try Tokenizer.split(raw), rawArguments: raw)
    }

    /// The raw text after the first `count` arguments.
    public func rawArguments(droppingFirst count: Int) -> String {
        var rest = Substring(rawArguments)
        for _ in 0..<count {
            rest = rest.drop(while: { $0.isWhitespace })
            if rest.first == "\"" || rest.first == "'" {
                let quote = rest.first!
                rest = rest.dropFirst()
                rest = rest.drop(while: { $0 != quote }).dropFirst()
            } else {
                rest = rest.drop(while: { !$0.isWhitespace })
            }
        }
        return rest.trimmingSpaces
    }
}

/// Splits arguments like a shell: whitespace separates, quotes group, backslash escapes.
public enum Tokenizer {
    public static func split(_ text: String) throws -> [String] {
        var words: [String] = []
        var current = ""
        var inWord = false
        var quote: Character?
        var escaping = false
        for character in text {
            if escaping {
                current.append(character)
                escaping = false
                continue
            }
            if character == "\\" && quote != "'" {
                escaping = true
                inWord = true
                continue
            }
            if let open = quote {
                if character == open { quote = nil } else { current.append(character) }
                continue
            }
            if character == "\"" || character == "'" {
                quote = character
                inWord = true
            } else if character.isWhitespace {
                if inWord { words.append(current) }
                current = ""
                inWord = false
            } else {
                current.append(character)
                inWord = true
            }
        }
        if quote != nil {
            // A multi-line paste reaches here as one line: keep the error on one line.
            let shown = String(text.prefix(60).map { $0.isNewline ? " " : $0 })
            throw HarkError.usage("unterminated quote in: \(shown)")
        }
        if escaping { current.append("\\") }
        if inWord { words.append(current) }
        return words
    }
}
