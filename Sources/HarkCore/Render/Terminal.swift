import FoundationEssentials
import Glibc

/// What the output can show: decided once from isatty, TERM and NO_COLOR.
public struct TerminalCapabilities: Sendable, Equatable {
    public var isTTY: Bool
    public var colors: Bool

    public init(isTTY: Bool, colors: Bool) {
        self.isTTY = isTTY
        self.colors = colors && isTTY
    }

    /// `environment` nil reads the process's own with getenv (building the whole dictionary
    /// costs more than the rest of a `hark search`).
    public static func detect(fd: Int32 = STDOUT_FILENO, environment: [String: String]? = nil) -> TerminalCapabilities {
        func variable(_ name: String) -> String? {
            if let environment { return environment[name] }
            return getenv(name).map { String(cString: $0) }
        }
        let tty = isatty(fd) == 1
        let noColor = variable("NO_COLOR").map { !$0.isEmpty } ?? false
        let dumb = variable("TERM") == "dumb"
        return TerminalCapabilities(isTTY: tty, colors: !noColor && !dumb)
    }

    public static let plain = TerminalCapabilities(isTTY: false, colors: false)
}

/// ANSI sequences for styles; empty strings when colours are off, so callers never branch.
public struct ANSI: Sendable {
    public let enabled: Bool

    public init(enabled: Bool) { self.enabled = enabled }

    public static let reset = "\u{1B}[0m"

    public func start(_ style: Style) -> String {
        guard enabled else { return "" }
        switch style {
        case .plain, .markdownBlock: return ""
        case .dim: return "\u{1B}[2m"
        case .bold: return "\u{1B}[1m"
        case .italic: return "\u{1B}[3m"
        case .accent: return "\u{1B}[36m"
        case .success: return "\u{1B}[32m"
        case .warning: return "\u{1B}[33m"
        case .error: return "\u{1B}[31m"
        case .code: return "\u{1B}[33m"
        case .heading: return "\u{1B}[1;35m"
        case .user: return "\u{1B}[1;34m"
        }
    }

    public func end(_ style: Style) -> String {
        guard enabled, style != .plain, style != .markdownBlock else { return "" }
        return ANSI.reset
    }

    public func wrap(_ text: String, _ style: Style) -> String { start(style) + text + end(style) }

    /// A styled line as terminal text (no newline). Markdown blocks are rendered when colours
    /// are on and printed as written otherwise.
    public func render(_ line: StyledLine) -> String {
        var out = ""
        for span in line.spans {
            if span.style == .markdownBlock {
                if enabled {
                    var renderer = MarkdownRenderer(ansi: self)
                    out += renderer.feed(span.text) + renderer.finish()
                } else {
                    out += span.text
                }
            } else {
                out += wrap(enabled ? span.text : span.text, span.style)
            }
        }
        return out
    }
}
