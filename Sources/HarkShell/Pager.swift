import FoundationEssentials
import Glibc
import HarkCore

/// Long text on a terminal goes through a pager, as git does: `pager` in `[hark]` (empty
/// turns paging off), else $PAGER, else `less -FRX` (which prints what fits and leaves it on
/// the screen). Text that fits the screen, text in a pipe, or any text when the pager cannot
/// run is printed as is. Replies never come here: they stream.
enum Pager {
    static let standard = "less -FRX"

    /// The command to page with; nil when paging is off.
    static func command(configured: String?, environment: [String: String]) -> String? {
        if let configured { return configured.trimmingSpaces.isEmpty ? nil : configured }
        if let pager = environment["PAGER"] { return pager.trimmingSpaces.isEmpty ? nil : pager }
        return standard
    }

    /// Shows `text` through `command` when it is taller than the screen.
    static func show(_ text: String, on terminal: Terminal, command: String?) {
        guard let command, terminal.capabilities.isTTY, rows(text, columns: terminal.size.columns) >= terminal.size.rows else {
            terminal.write(text)
            return
        }
        let path = Paths.temporaryDirectory() + "/hark-page-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).txt"
        guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) else {
            terminal.write(text)
            return
        }
        defer { unlink(path) }
        terminal.setKeyMode(.user)
        // Back to the shell's mode between lines, as after a reply, until libedit reads.
        defer { terminal.setKeyMode(.keys) }
        // On its stdin, as git gives it (no file name in the pager's prompt); "$1" keeps the
        // path intact, and the pager string may carry flags. Ended by a signal meant to end
        // hark (the run throws), the pager's text is not printed again.
        do {
            let result = try Subprocess.run(["/bin/sh", "-c", command + " < \"$1\"", "pager", path], streams: .inherited)
            if result.status != 0 { terminal.write(text) }
        } catch HarkError.interrupted {
        } catch {
            terminal.write(text)
        }
    }

    /// Rows `text` takes on a screen `columns` wide (escape sequences take none).
    static func rows(_ text: String, columns: Int) -> Int {
        let columns = max(columns, 1)
        var rows = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var cursor = FlowCursor()
            var width = 0
            for piece in line.split(separator: "\r", omittingEmptySubsequences: false) {
                cursor.reset()
                _ = cursor.advance(String(piece), columns: Int.max / 2)
                width = max(width, cursor.column)
            }
            rows += max(1, (width + columns - 1) / columns)
        }
        if text.hasSuffix("\n") { rows -= 1 }
        return rows
    }
}
