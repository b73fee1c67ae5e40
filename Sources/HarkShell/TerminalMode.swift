import Foundation

/// Terminal settings while a reply streams: no echo and no line buffering, so a typed key
/// neither garbles the reply nor waits for Enter; Ctrl-C and Ctrl-Z arrive as bytes.
struct StreamingTerminalMode {
    private var saved = termios()
    private var active = false

    mutating func enter() {
        guard isatty(STDIN_FILENO) == 1, tcgetattr(STDIN_FILENO, &saved) == 0 else { return }
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG | IEXTEN)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        if tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0 { active = true }
    }

    mutating func leave() {
        guard active else { return }
        tcsetattr(STDIN_FILENO, TCSANOW, &saved)
        active = false
    }
}
