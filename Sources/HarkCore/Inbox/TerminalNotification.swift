/// A notification as the terminal itself shows it: OSC 777 (`notify;TITLE;BODY`: foot, kitty,
/// ghostty, WezTerm, urxvt's notify extension) or OSC 9 (iTerm2, Windows Terminal, ConEmu),
/// wrapped for tmux or GNU screen when hark runs inside one, so that it reaches the terminal
/// outside. Only text cleaned by `NotificationText` goes in.
public enum TerminalNotification {
    public enum Flavour: Sendable, Equatable {
        case osc777
        case osc9
    }

    public enum Multiplexer: Sendable, Equatable {
        case none
        /// tmux passes `ESC P tmux; … ESC \` with every ESC inside doubled on to the terminal
        /// it runs in (when its `allow-passthrough` option is on, tmux 3.3 and later).
        case tmux
        /// screen passes a DCS string (`ESC P … ESC \`) on as it is.
        case screen
    }

    /// The escape sequence for one notification. The OSC ends with BEL: inside screen's DCS an
    /// ST would end the DCS itself.
    public static func sequence(title: String, body: String, flavour: Flavour, multiplexer: Multiplexer) -> String {
        let title = NotificationText.clean(title, limit: 80)
        let body = NotificationText.clean(body, limit: 200)
        let osc: String
        switch flavour {
        case .osc777: osc = "\u{1B}]777;notify;\(title);\(body)\u{7}"
        case .osc9: osc = "\u{1B}]9;\(title): \(body)\u{7}"
        }
        switch multiplexer {
        case .none: return osc
        case .tmux: return "\u{1B}Ptmux;" + osc.replacingOccurrences(of: "\u{1B}", with: "\u{1B}\u{1B}") + "\u{1B}\\"
        case .screen: return "\u{1B}P" + osc + "\u{1B}\\"
        }
    }

    /// tmux when `TMUX` is set, screen when `STY` is, else none.
    public static func multiplexer(_ environment: [String: String]) -> Multiplexer {
        if !(environment["TMUX"] ?? "").isEmpty { return .tmux }
        if !(environment["STY"] ?? "").isEmpty { return .screen }
        return .none
    }

    /// OSC 9 for the terminals that show it and not 777; 777 otherwise.
    public static func flavour(_ environment: [String: String]) -> Flavour {
        if environment["TERM_PROGRAM"] == "iTerm.app" || environment["LC_TERMINAL"] == "iTerm2"
            || environment["WT_SESSION"] != nil || environment["ConEmuPID"] != nil {
            return .osc9
        }
        return .osc777
    }

    /// Whether the terminal is one known to show these notifications, from what it sets in
    /// the environment (inside tmux or screen only what the terminal passed on is seen).
    public static func isKnownToShow(_ environment: [String: String]) -> Bool {
        if flavour(environment) == .osc9 { return true }
        let program = (environment["TERM_PROGRAM"] ?? "").lowercased()
        if ["wezterm", "ghostty", "kitty"].contains(program) { return true }
        let term = (environment["TERM"] ?? "").lowercased()
        if ["foot", "kitty", "ghostty", "wezterm", "rxvt"].contains(where: { term.contains($0) }) { return true }
        return ["KITTY_WINDOW_ID", "WEZTERM_PANE", "GHOSTTY_RESOURCES_DIR"].contains { environment[$0] != nil }
    }
}
