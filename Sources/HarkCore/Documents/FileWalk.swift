import FoundationEssentials
import Glibc

/// Files as the document library sees them: what is there, and what changed since it was read.
enum FileWalk {
    /// Size and modification time, or nil when the file is gone or not a regular file.
    static func stamp(_ path: String) -> (size: Int, modified: Double)? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return (Int(info.st_size), Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
    }

    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Folders nobody means when they add a project: version control, dependencies, builds.
    static let skipped: Set<String> = ["node_modules", "__pycache__", "venv", "target", "dist"]

    /// Every file under `folder` the library can read, in a stable order; hidden files and
    /// folders (`.git`) and dependency folders are left out.
    static func files(under folder: String) -> [String] {
        var found: [String] = []
        var pending = [folder]
        while let directory = pending.popLast() {
            guard let handle = opendir(directory) else { continue }
            var entries: [(String, Bool)] = []
            while let entry = readdir(handle) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
                }
                guard !name.hasPrefix("."), !skipped.contains(name) else { continue }
                let path = directory == "/" ? "/" + name : directory + "/" + name
                switch Int32(entry.pointee.d_type) {
                case Int32(DT_DIR): entries.append((path, true))
                case Int32(DT_REG): entries.append((path, false))
                default: entries.append((path, isDirectory(path)))
                }
            }
            closedir(handle)
            for (path, directory) in entries.sorted(by: { $0.0 > $1.0 }) {
                if directory {
                    pending.append(path)
                } else if DocumentFormat.of(path) != nil {
                    found.append(path)
                }
            }
        }
        return found.sorted()
    }

    /// An absolute, tidy path for what the user typed.
    static func absolute(_ typed: String) -> String {
        let expanded = typed.expandingTildeInPath
        if expanded.hasPrefix("/") { return expanded.standardizingPath }
        return (FileManager.default.currentDirectoryPath + "/" + expanded).standardizingPath
    }
}
