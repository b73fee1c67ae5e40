/// How hark's text looks on a colour terminal, as data: the attributes of each style and of
/// each kind of Markdown and code. Only the terminal's sixteen colours, bold, dim, italic and
/// underline, so it follows the user's palette on a light background as on a dark one; with
/// NO_COLOR (or in a pipe) nothing of it is used.
public struct Theme: Sendable {
    public var headings: [TextAttributes]
    public var bullet: TextAttributes
    public var quoteBar: TextAttributes
    public var rule: TextAttributes
    public var codeSpan: TextAttributes
    public var link: TextAttributes
    public var linkTarget: TextAttributes
    public var codeLabel: TextAttributes
    public var continuation: TextAttributes
    public var tableBorder: TextAttributes
    public var tableHeader: TextAttributes

    static let black: UInt8 = 0, red: UInt8 = 1, green: UInt8 = 2, yellow: UInt8 = 3, blue: UInt8 = 4,
               magenta: UInt8 = 5, cyan: UInt8 = 6

    public static let standard = Theme(
        headings: [TextAttributes([.bold, .underline], foreground: .indexed(magenta)),
                   TextAttributes([.bold], foreground: .indexed(magenta)), TextAttributes([.bold])],
        bullet: TextAttributes([.bold], foreground: .indexed(cyan)),
        quoteBar: TextAttributes(foreground: .indexed(magenta)),
        rule: TextAttributes([.dim]),
        codeSpan: TextAttributes(foreground: .indexed(yellow)),
        link: TextAttributes([.underline], foreground: .indexed(blue)),
        linkTarget: TextAttributes([.dim]),
        codeLabel: TextAttributes([.dim]),
        continuation: TextAttributes([.dim]),
        tableBorder: TextAttributes([.dim]),
        tableHeader: TextAttributes([.bold]))

    public func heading(_ level: Int) -> TextAttributes { headings[min(max(level, 1), headings.count) - 1] }

    /// Each kind of code's look (a switch, not a dictionary: the first hashed collection of a
    /// type costs the runtime a scan of every conformance at its first use).
    public func token(_ kind: TokenKind) -> TextAttributes {
        let theme = Self.self
        switch kind {
        case .plain: return .plain
        case .inert: return .inertMark
        case .keyword: return TextAttributes(foreground: .indexed(theme.magenta))
        case .type, .variable, .hunk: return TextAttributes(foreground: .indexed(theme.cyan))
        case .builtin, .attribute, .key, .tag: return TextAttributes(foreground: .indexed(theme.blue))
        case .literal, .number: return TextAttributes(foreground: .indexed(theme.yellow))
        case .string, .added: return TextAttributes(foreground: .indexed(theme.green))
        case .removed: return TextAttributes(foreground: .indexed(theme.red))
        case .comment: return TextAttributes([.dim, .italic])
        case .header: return TextAttributes([.bold])
        case .heading: return TextAttributes([.bold], foreground: .indexed(theme.magenta))
        }
    }

    /// hark's own styles (status lines, tables of commands, errors).
    public static func attributes(of style: Style) -> TextAttributes {
        switch style {
        case .plain, .markdownBlock: return .plain
        case .dim: return TextAttributes([.dim])
        case .bold: return TextAttributes([.bold])
        case .italic: return TextAttributes([.italic])
        case .accent: return TextAttributes(foreground: .indexed(cyan))
        case .success: return TextAttributes(foreground: .indexed(green))
        case .warning: return TextAttributes(foreground: .indexed(yellow))
        case .error: return TextAttributes(foreground: .indexed(red))
        case .code: return TextAttributes(foreground: .indexed(yellow))
        case .heading: return TextAttributes([.bold], foreground: .indexed(magenta))
        case .user: return TextAttributes([.bold], foreground: .indexed(blue))
        case .inert: return .inertMark
        }
    }
}

/// What a piece of code is, for its colour.
public enum TokenKind: Sendable, Equatable {
    case plain, keyword, type, builtin, literal, number, string, comment, attribute, variable, key, tag
    case added, removed, hunk, header, heading
    /// A control character or escape sequence shown as a mark.
    case inert
}

extension TextAttributes {
    /// How a mark for a control character or sequence looks.
    public static let inertMark: TextAttributes = {
        var attributes = TextAttributes()
        attributes.inert = true
        return attributes
    }()
}
