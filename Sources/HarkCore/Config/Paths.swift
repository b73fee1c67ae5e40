import FoundationEssentials
import Glibc

/// Where hark keeps things, following the XDG base-directory rules.
public struct Paths: Sendable {
    public var configDirectory: String
    public var dataDirectory: String
    private var explicitPromptDirectories: [String]?

    /// Folders searched for shipped prompts and forms, after the user's own config folder.
    /// Found on first use: most runs never need them, and the search costs file-system calls.
    public var sharedPromptDirectories: [String] {
        get { explicitPromptDirectories ?? Paths.shippedPromptDirectories }
        set { explicitPromptDirectories = newValue }
    }

    public var configFile: String { configDirectory + "/config" }
    public var historyDatabase: String { dataDirectory + "/history.db" }

    public init(configDirectory: String, dataDirectory: String, sharedPromptDirectories: [String]? = nil) {
        self.configDirectory = configDirectory
        self.dataDirectory = dataDirectory
        self.explicitPromptDirectories = sharedPromptDirectories
    }

    /// From HOME, XDG_CONFIG_HOME and XDG_DATA_HOME (read with getenv: building Foundation's
    /// whole environment dictionary is a measurable part of start-up).
    public static func fromEnvironment() -> Paths {
        let home = homeDirectory()
        func xdg(_ name: String, _ fallback: String) -> String {
            // The spec says relative values are invalid and must be ignored.
            if let value = variable(name), value.hasPrefix("/") { return value }
            return home + "/" + fallback
        }
        return Paths(configDirectory: xdg("XDG_CONFIG_HOME", ".config") + "/hark",
                     dataDirectory: xdg("XDG_DATA_HOME", ".local/share") + "/hark")
    }

    /// An environment variable's value, nil when unset or empty.
    static func variable(_ name: String) -> String? {
        guard let value = getenv(name), value.pointee != 0 else { return nil }
        return String(cString: value)
    }

    /// HOME, or the user database's home directory when HOME is unset or empty.
    public static func homeDirectory() -> String {
        if let home = variable("HOME") { return home }
        if let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir { return String(cString: directory) }
        return "/"
    }

    /// TMPDIR, or /tmp.
    public static func temporaryDirectory() -> String {
        if let directory = variable("TMPDIR") { return directory }
        return "/tmp"
    }

    /// This program's file, its symbolic links resolved (/proc/self/exe), or argv[0] where
    /// /proc is not mounted: what finds the repository's folders and starts `hark index`.
    public static let executable: String = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        ?? CommandLine.arguments.first ?? "hark"

    static let shippedPromptDirectories: [String] = shippedPromptDirectories(
        executable: executable, environment: ProcessInfo.processInfo.environment)

    /// The repository's or the installation's `prompts/`: beside the binary's build folder
    /// (`.build/release/hark` → `prompts/`), or `PREFIX/share/hark/prompts`.
    static func shippedPromptDirectories(executable: String, environment: [String: String]) -> [String] {
        var candidates: [String] = []
        if let override = environment["HARK_PROMPTS"] { candidates.append(override) }
        var directory = executable.deletingLastPathComponent
        for _ in 0..<4 {
            candidates.append(directory + "/prompts")
            candidates.append(directory + "/share/hark/prompts")
            directory = directory.deletingLastPathComponent
        }
        var seen = Set<String>()
        return candidates.filter { path in
            var isDirectory = false
            return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory
                && seen.insert(path.standardizingPath).inserted
        }
    }

    /// A path as the user wrote it: `~/x`, absolute, or relative to the config folder, the
    /// current folder, or the shipped prompts' parent (so `prompts/concise.md` works).
    public func resolve(_ path: String) -> String {
        let expanded = path.expandingTildeInPath
        if expanded.hasPrefix("/") { return expanded }
        let cwd = FileManager.default.currentDirectoryPath
        var candidates = [configDirectory + "/" + path, cwd + "/" + path]
        for shared in sharedPromptDirectories {
            candidates.append(shared.deletingLastPathComponent + "/" + path)
            candidates.append(shared + "/" + path)
        }
        return candidates.first { FileManager.default.fileExists(atPath: $0) } ?? cwd + "/" + path
    }
}
