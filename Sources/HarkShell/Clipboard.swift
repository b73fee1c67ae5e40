import FoundationEssentials
import Glibc
import HarkCore

/// Puts text on the user's clipboard. On a terminal, through OSC 52 (`ESC ] 52 ; c ; BASE64
/// BEL`): the terminal sets its clipboard, which works over SSH, and tmux takes it into its
/// paste buffer (and passes it on) with `set-clipboard on`. Off a terminal, through the first
/// of wl-copy (Wayland), xclip or xsel (X11) that is installed with its display set. Returns
/// the line that says which was used; throws saying what is missing.
enum Clipboard {
    /// `terminal`: writes to the terminal, when on one.
    static func copy(_ text: String, what: String, terminal: ((String) -> Void)?,
                     environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String {
        let size = Self.size(text)
        if let terminal {
            terminal(osc52(text))
            return "copied \(what) (\(size)) to the clipboard through the terminal (OSC 52)"
        }
        guard let (tool, arguments) = tool(environment: environment) else {
            throw HarkError.unavailable("no clipboard here: not on a terminal, and no wl-copy (with WAYLAND_DISPLAY) "
                + "or xclip or xsel (with DISPLAY)", hint: "install one, or run /copy in the shell")
        }
        // The tool's stdout and stderr go to /dev/null: xclip and wl-copy stay behind holding
        // the selection, and would hold a captured pipe open with them.
        let command = "exec \"$0\" \"$@\" >/dev/null 2>&1"
        let result: Subprocess.Result
        do {
            result = try Subprocess.run(["/bin/sh", "-c", command, tool] + arguments,
                                        streams: .captured(input: Data(text.utf8)), timeout: 10)
        } catch {
            throw HarkError.io("\(tool.lastPathComponent) did not take the text: \(error.userMessage)")
        }
        guard result.status == 0 else {
            throw HarkError.io("\(tool.lastPathComponent) exited with status \(result.status); is the display reachable?")
        }
        return "copied \(what) (\(size)) to the clipboard with \(tool.lastPathComponent)"
    }

    /// The escape sequence that hands `text` to the terminal's clipboard.
    static func osc52(_ text: String) -> String {
        "\u{1B}]52;c;" + Data(text.utf8).base64EncodedString() + "\u{7}"
    }

    static func size(_ text: String) -> String {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count
        return lines > 1 ? "\(lines) lines" : "\(text.utf8.count) bytes"
    }

    /// The clipboard program to use and its arguments, by the display that is set.
    static func tool(environment: [String: String]) -> (String, [String])? {
        let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        func find(_ name: String) -> String? {
            path.split(separator: ":").map { String($0) + "/" + name }.first { access($0, X_OK) == 0 }
        }
        let wayland = !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty
        let x11 = !(environment["DISPLAY"] ?? "").isEmpty
        if wayland, let tool = find("wl-copy") { return (tool, []) }
        if x11, let tool = find("xclip") { return (tool, ["-selection", "clipboard"]) }
        if x11, let tool = find("xsel") { return (tool, ["--clipboard", "--input"]) }
        return nil
    }
}
