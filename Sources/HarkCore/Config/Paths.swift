import Foundation

/// Where hark keeps things, following the XDG base-directory rules.
public struct Paths: Sendable {
    public var configDirectory: String
    public var dataDirectory: String
    /// Folders searched for shipped prompts and forms, after the user's own config folder.
    public var sharedPromptDirectories: [String]

    public var configFile: String { configDirectory + "/config" }
    public var historyDatabase: String { dataDirectory + "/history.db" }

    public init(configDirectory: String, dataDirectory: String, sharedPromptDirectories: [String] = []) {
        self.configDirectory = configDirectory
        self.dataDirectory = dataDirectory
        self.sharedPromptDirectories = sharedPromptDirectories
    }

    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment,
                                       executable: String = CommandLine.arguments.first ?? "hark") -> Paths {
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        func xdg(_ variable: String, _ fallback: String) -> String {
            // The spec says relative values are invalid and must be ignored.
            if let value = environment[variable], value.hasPrefix("/") { return value }
            return home + "/" + fallback
        }
        return Paths(configDirectory: xdg("XDG_CONFIG_HOME", ".config") + "/hark",
                     dataDirectory: xdg("XDG_DATA_HOME", ".local/share") + "/hark",
                     sharedPromptDirectories: shippedPromptDirectories(executable: executable, environment: environment))
    }

    /// The repository's or the installation's `prompts/`: beside the binary's build folder
    /// (`.build/release/hark` → `prompts/`), or `PREFIX/share/hark/prompts`.
    static func shippedPromptDirectories(executable: String, environment: [String: String]) -> [String] {
        var candidates: [String] = []
        if let override = environment["HARK_PROMPTS"] { candidates.append(override) }
        let resolved = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? executable
        var directory = (resolved as NSString).deletingLastPathComponent
        for _ in 0..<4 {
            candidates.append(directory + "/prompts")
            candidates.append(directory + "/share/hark/prompts")
            directory = (directory as NSString).deletingLastPathComponent
        }
        var seen = Set<String>()
        return candidates.filter { path in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
                && seen.insert((path as NSString).standardizingPath).inserted
        }
    }

    /// A path as the user wrote it: `~/x`, absolute, or relative to the config folder, the
    /// current folder, or the shipped prompts' parent (so `prompts/concise.md` works).
    public func resolve(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        if path.hasPrefix("~/") { return NSHomeDirectory() + String(path.dropFirst(1)) }
        let cwd = FileManager.default.currentDirectoryPath
        var candidates = [configDirectory + "/" + path, cwd + "/" + path]
        for shared in sharedPromptDirectories {
            candidates.append((shared as NSString).deletingLastPathComponent + "/" + path)
            candidates.append(shared + "/" + path)
        }
        return candidates.first { FileManager.default.fileExists(atPath: $0) } ?? cwd + "/" + path
    }
}
