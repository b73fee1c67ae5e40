import FoundationEssentials
import Glibc

/// The history is the user's alone: its folder 0700, the database and the files SQLite keeps
/// beside it 0600, whatever the umask. SQLite would create the database 0644 (its default,
/// applied past the umask) and gives `-wal` and `-shm` the database's mode, so the database is
/// made here, private, before SQLite opens it; the others follow it. Making private only ever
/// takes bits away: a history its owner made read-only (0444) stays read-only (0400).
enum HistoryFiles {
    static let companions = ["-wal", "-shm", "-journal", "-writers"]

    /// Makes the folder and files private. Returns a note for the user when a folder that was
    /// there already had to be tightened (once: it stays private afterwards).
    static func makePrivate(databasePath path: String) -> String? {
        var note: String?
        let directory = path.deletingLastPathComponent
        if !directory.isEmpty {
            var info = stat()
            if stat(directory, &info) != 0 {
                try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                         attributes: [.posixPermissions: 0o700])
                _ = chmod(directory, 0o700)
            } else if info.st_mode & 0o077 != 0, info.st_uid == geteuid(), chmod(directory, withoutOthers(info.st_mode)) == 0 {
                note = "made \(directory) private (\(octal(withoutOthers(info.st_mode)))): it held the history and others could open it"
            }
        }
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if fd >= 0 {
            _ = fchmod(fd, 0o600)
            close(fd)
        } else {
            // There already: an older hark made it (and its companions) 0644.
            for file in [path] + companions.map({ path + $0 }) { tighten(file) }
        }
        return note
    }

    private static func tighten(_ file: String) {
        var info = stat()
        guard stat(file, &info) == 0, info.st_mode & 0o077 != 0, info.st_uid == geteuid() else { return }
        _ = chmod(file, withoutOthers(info.st_mode))
    }

    /// The permission bits with the group's and others' taken away, the owner's as they were.
    static func withoutOthers(_ mode: mode_t) -> mode_t { mode & 0o7700 }

    static func octal(_ mode: mode_t) -> String { "0" + String(mode & 0o7777, radix: 8) }

    /// Why a history SQLite could open only for reading cannot be written, and what to do.
    static func readOnlyReason(_ path: String) -> String {
        var info = stat()
        let mode = stat(path, &info) == 0 ? " (mode \(octal(info.st_mode)))" : ""
        return "\(path) is read-only\(mode); hark stores every message before it sends it, so it sends nothing: "
            + "make the file writable (chmod u+w) to send, or read it with hark history, search or export"
    }
}
