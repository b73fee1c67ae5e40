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
