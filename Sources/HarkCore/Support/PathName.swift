import FoundationEssentials
import Glibc

// The path operations hark used from NSString, on plain strings with the same results for
// the paths hark meets ("/a/b/" -> "b", "/a" -> "/", "~/x" -> "$HOME/x").
extension String {
    /// The last component: "b" for "/a/b" and "/a/b/", "/" for "/".
    public var lastPathComponent: String {
        let trimmed = trimmingTrailingSlashes
        if trimmed == "/" { return "/" }
        guard let slash = trimmed.lastIndex(of: "/") else { return trimmed }
        return String(trimmed[trimmed.index(after: slash)...])
    }

    /// Everything before the last component: "/a" for "/a/b", "/" for "/a", "" for "a".
    public var deletingLastPathComponent: String {
        let trimmed = trimmingTrailingSlashes
        if trimmed == "/" { return "/" }
        guard let slash = trimmed.lastIndex(of: "/") else { return "" }
        let parent = String(trimmed[..<slash]).trimmingTrailingSlashes
        return parent.isEmpty ? "/" : parent
    }

    /// The extension of the last component without its dot: "txt" for "a/b.txt", "" for
    /// ".bashrc" and "a.d/b".
    public var pathExtension: String {
        let name = lastPathComponent
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return String(name[name.index(after: dot)...])
    }

    /// The path without the last component's extension.
    public var deletingPathExtension: String {
        let suffix = pathExtension
        guard !suffix.isEmpty else { return self }
        let trimmed = trimmingTrailingSlashes
        return String(trimmed.dropLast(suffix.count + 1))
    }

    /// "~" and "~/…" with the home directory in front; "~user/…" with that user's.
    public var expandingTildeInPath: String {
        guard hasPrefix("~") else { return self }
        let slash = firstIndex(of: "/") ?? endIndex
        let user = self[index(after: startIndex)..<slash]
        let home: String
        if user.isEmpty {
            home = Paths.homeDirectory()
        } else if let entry = getpwnam(String(user)), let directory = entry.pointee.pw_dir {
            home = String(cString: directory)
        } else {
            return self
        }
        return home + self[slash...]
    }

    /// Absolute, without "." and ".." components or repeated slashes (symbolic links are not
    /// resolved).
    public var standardizingPath: String {
        let expanded = expandingTildeInPath
        guard expanded.hasPrefix("/") else { return expanded }
        var parts: [Substring] = []
        for part in expanded.split(separator: "/") {
            if part == "." { continue }
            if part == ".." { _ = parts.popLast(); continue }
            parts.append(part)
        }
        return "/" + parts.joined(separator: "/")
    }

    private var trimmingTrailingSlashes: String {
        var result = Substring(self)
        while result.count > 1, result.hasSuffix("/") { result.removeLast() }
        return String(result)
    }
}
