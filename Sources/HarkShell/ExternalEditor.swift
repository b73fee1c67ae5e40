import FoundationEssentials
import Glibc
import HarkCore

/// Runs $VISUAL or $EDITOR on a file, attached to the terminal.
enum ExternalEditor {
    static func command(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        for name in ["VISUAL", "EDITOR"] {
            if let value = environment[name], !value.trimmingSpaces.isEmpty { return value }
        }
        return "vi"
    }

    /// Whether the user named an editor ($VISUAL or $EDITOR), rather than hark falling back to vi.
    static func isConfigured(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        ["VISUAL", "EDITOR"].contains { !(environment[$0] ?? "").trimmingSpaces.isEmpty }
    }

    /// Opens `path` in the editor; throws with the exit status when the editor fails.
    static func open(path: String) throws {
        let editor = command()
        // "$@" keeps the path intact whatever it contains; the editor string may carry flags.
        let result = try Subprocess.run(["/bin/sh", "-c", editor + " \"$@\"", "editor", path], streams: .inherited)
        guard result.status == 0 else {
            throw HarkError.io("the editor (\(editor)) exited with status \(result.status); set $EDITOR to one that works")
        }
    }

    /// Edits `text` in a private temporary file and returns the result.
    static func edit(_ text: String) throws -> String {
        let path = Paths.temporaryDirectory() + "/hark-draft-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).md"
        guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw HarkError.io("cannot create a temporary file in \(Paths.temporaryDirectory())")
        }
        defer { unlink(path) }
        try open(path: path)
        guard let data = FileManager.default.contents(atPath: path) else {
            throw HarkError.io("the editor removed the draft file")
        }
        var edited = String(decoding: data, as: UTF8.self)
        while edited.hasSuffix("\n") { edited.removeLast() }
        return edited
    }
}
