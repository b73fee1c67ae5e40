/// hark's styles as terminal text, and the gate its documents pass on the way: on a terminal
/// each span's text is sanitized (`TerminalSanitizer`: control characters and escape
/// sequences shown as dim marks), then styled from `Theme`. Empty strings when colours are
/// off, so callers never branch; in a pipe the text as it is.
public struct ANSI: Sendable {
    public let enabled: Bool
    /// Untrusted text is shown inert (a terminal, or `--sanitize`).
    public let sanitizing: Bool
    public let hyperlinks: Bool

    public init(enabled: Bool, sanitizing: Bool? = nil, hyperlinks: Bool = false) {
        self.enabled = enabled
        self.sanitizing = sanitizing ?? enabled
        self.hyperlinks = hyperlinks && enabled
    }

    public init(_ capabilities: TerminalCapabilities) {
        self.init(enabled: capabilities.colors, sanitizing: capabilities.sanitizes, hyperlinks: capabilities.hyperlinks)
    }

    public static let reset = "\u{1B}[0m"

    public func start(_ style: Style) -> String {
        let attributes = Theme.attributes(of: style)
        guard enabled, !attributes.isPlain else { return "" }
        var bytes: [UInt8] = []
        attributes.appendSGR(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    public func end(_ style: Style) -> String {
        guard enabled, !Theme.attributes(of: style).isPlain else { return "" }
        return ANSI.reset
    }

    /// `text` in `style`; its control sequences, if any, as dim marks.
    public func wrap(_ text: String, _ style: Style) -> String {
        guard sanitizing, TerminalSanitizer.needsWork(text) else { return start(style) + text + end(style) }
        var out = ""
        for (piece, inert) in TerminalSanitizer.pieces(text) {
            out += inert ? start(.inert) + piece + end(.inert) : start(style) + piece + end(style)
        }
        return out
    }

    /// A styled line as terminal text (no newline). A Markdown block is rendered (to `width`
    /// columns) when colours are on, and shown as written otherwise.
    public func render(_ line: StyledLine, width: Int? = nil) -> String {
        var out = ""
        for span in line.spans {
            guard span.style == .markdownBlock else {
                out += wrap(span.text, span.style)
                continue
            }
            var rendered: String
            if enabled {
                var renderer = MarkdownRenderer(width: width ?? 1 << 20, hyperlinks: hyperlinks)
                rendered = renderer.feed(span.text) + renderer.finish()
            } else if let width, sanitizing {
                var renderer = PlainTextRenderer(width: width, colors: false)
                rendered = renderer.feed(span.text) + renderer.finish()
            } else {
                out += sanitizing ? TerminalSanitizer.visible(span.text) : span.text
                continue
            }
            if rendered.hasSuffix("\n") { rendered.removeLast() }
            out += rendered
        }
        return out
    }
}
