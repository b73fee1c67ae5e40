import FoundationEssentials
import Glibc

/// The terminal's modes while the shell runs. A reply streams with echo and line buffering
/// off, so typed keys neither garble it nor wait for Enter, and Ctrl-C and Ctrl-Z arrive as
/// bytes. Between replies the terminal stays that way until libedit takes over: going back to
/// cooked mode in between would let the kernel swallow a Ctrl-D typed at that moment.
enum TerminalModes {
    nonisolated(unsafe) private static var original: termios?

    /// Remembers the user's terminal settings; call once before changing anything.
    static func capture() {
        guard isatty(STDIN_FILENO) == 1 else { return }
        var settings = termios()
        if tcgetattr(STDIN_FILENO, &settings) == 0 { original = settings }
    }

    static func streaming() {
        guard var settings = original else { return }
        settings.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG | IEXTEN)
        withUnsafeMutableBytes(of: &settings.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        tcsetattr(STDIN_FILENO, TCSANOW, &settings)
    }

    /// The user's own settings: before an editor or a question, and at exit.
    static func restore() {
        guard var settings = original else { return }
        tcsetattr(STDIN_FILENO, TCSANOW, &settings)
    }
}
