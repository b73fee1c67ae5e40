import FoundationEssentials
import Glibc

/// What the output can show: decided once from isatty, TERM, NO_COLOR and the variables
/// terminals that draw links set.
public struct TerminalCapabilities: Sendable, Equatable {
    public var isTTY: Bool
    public var colors: Bool
    /// Untrusted text is shown with its control sequences as inert marks: always on a
    /// terminal; in a pipe only when asked (`--sanitize`), since a pipe passes what was sent.
    public var sanitizes: Bool
    /// The terminal draws OSC 8 hyperlinks; elsewhere a link's target is written after it.
    public var hyperlinks: Bool

    public init(isTTY: Bool, colors: Bool, sanitizes: Bool? = nil, hyperlinks: Bool = false) {
        self.isTTY = isTTY
        self.colors = colors && isTTY
        self.sanitizes = sanitizes ?? isTTY
        self.hyperlinks = hyperlinks && colors && isTTY
    }

    /// `environment` nil reads the process's own with getenv (building the whole dictionary
    /// costs more than the rest of a `hark search`).
    public static func detect(fd: Int32 = STDOUT_FILENO, environment: [String: String]? = nil,
                              sanitizing: Bool = false) -> TerminalCapabilities {
        func variable(_ name: String) -> String? {
            if let environment { return environment[name] }
            return getenv(name).map { String(cString: $0) }
        }
        let tty = isatty(fd) == 1
        let noColor = variable("NO_COLOR").map { !$0.isEmpty } ?? false
        let dumb = variable("TERM") == "dumb"
        return TerminalCapabilities(isTTY: tty, colors: !noColor && !dumb, sanitizes: tty || sanitizing,
                                    hyperlinks: drawsLinks(variable))
    }

    /// Terminals known to draw OSC 8 links, by what they set; `HARK_HYPERLINKS=1|0` decides
    /// for any other. Inside tmux or screen, no: they pass links on only when configured to.
    static func drawsLinks(_ variable: (String) -> String?) -> Bool {
        if let forced = variable("HARK_HYPERLINKS") { return forced == "1" }
        if variable("TMUX") != nil || variable("STY") != nil { return false }
        let term = variable("TERM") ?? ""
        if term.hasPrefix("screen") || term.hasPrefix("tmux") { return false }
        if ["iTerm.app", "WezTerm", "vscode", "ghostty", "Hyper", "Tabby", "rio"].contains(variable("TERM_PROGRAM") ?? "") { return true }
        if variable("KITTY_WINDOW_ID") != nil || variable("WT_SESSION") != nil || variable("KONSOLE_VERSION") != nil { return true }
        if let vte = variable("VTE_VERSION").flatMap({ Int($0) }), vte >= 5000 { return true }
        return ["xterm-kitty", "foot", "alacritty", "xterm-ghostty", "wezterm"].contains { term.hasPrefix($0) }
    }

    public static let plain = TerminalCapabilities(isTTY: false, colors: false)
}
