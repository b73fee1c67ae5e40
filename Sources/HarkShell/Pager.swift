import FoundationEssentials
import Glibc
import HarkCore

/// Long text on a terminal goes through $PAGER (less -R by default); text that fits the
/// screen, or any text when the pager cannot run, is printed as is.
enum Pager {
    static func show(_ text: String, on terminal: Terminal,
                     environment: [String: String] = ProcessInfo.processInfo.environment) {
        let lines = text.reduce(0) { $1 == "\n" ? $0 + 1 : $0 }
        guard terminal.capabilities.isTTY, lines >= terminal.size.rows - 1 else {
            terminal.write(text)
            return
        }
        let pager = environment["PAGER"].flatMap { $0.trimmingSpaces.isEmpty ? nil : $0 } ?? "less -R"
        let path = Paths.temporaryDirectory() + "/hark-page-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).txt"
        guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) else {
            terminal.write(text)
            return
        }
        defer { unlink(path) }
        terminal.setKeyMode(.user)
        // Back to the shell's mode between lines, as after a reply, until libedit reads.
        defer { terminal.setKeyMode(.keys) }
        // "$@" keeps the path intact; the pager string may carry flags.
        let result = try? Subprocess.run(["/bin/sh", "-c", pager + " \"$@\"", "pager", path], streams: .inherited)
        if result?.status != 0 { terminal.write(text) }
    }
}
