import Foundation
import HarkCore

/// Drives a program in a real terminal, as a person would: tmux on a private socket gives it
/// a pty; `type` and `press` send keys, `waitFor` reads the screen until something appears.
public final class TerminalDriver: @unchecked Sendable {
    public let socket: String
    private let session = "hark"

    public enum Failure: Error, CustomStringConvertible {
        case tmuxMissing
        case timeout(String, screen: String)
        public var description: String {
            switch self {
            case .tmuxMissing: return "tmux is not installed (scripts/setup.sh --test installs it)"
            case .timeout(let what, let screen): return "timed out waiting for \(what); screen:\n\(screen)"
            }
        }
    }

    public static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux") }

    /// Starts `arguments` in a fresh terminal of the given size.
    public init(_ arguments: [String], environment: [String: String], columns: Int = 100, rows: Int = 30) throws {
        guard Self.isAvailable else { throw Failure.tmuxMissing }
        socket = "hark-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        var command = ["env", "-i"]
        for (key, value) in environment.sorted(by: { $0.key < $1.key }) where Self.passes(key) {
            command.append("\(key)=\(value)")
        }
        command += arguments
        try tmux(["new-session", "-d", "-s", session, "-x", String(columns), "-y", String(rows)]
            + [command.map(Self.quote).joined(separator: " ")])
        try tmux(["set-option", "-t", session, "remain-on-exit", "on"])
    }

    deinit { _ = try? tmux(["kill-server"]) }

    static func passes(_ key: String) -> Bool {
        ["PATH", "HOME", "LANG", "LC_ALL", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "NO_COLOR", "EDITOR", "VISUAL",
         "EDITRC", "TERM"].contains(key) || key.hasPrefix("HARK_")
    }

    static func quote(_ word: String) -> String { "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    /// Runs a tmux command. Only commands that print are captured: the first command forks
    /// the tmux server, which would hold a capture pipe open for as long as it lives.
    @discardableResult
    func tmux(_ arguments: [String], capture: Bool = false) throws -> String {
        let command = ["/usr/bin/tmux", "-L", socket, "-f", "/dev/null"] + arguments
        let result = try Subprocess.run(command, streams: capture ? .captured(input: nil) : .discarded)
        return String(decoding: result.stdout, as: UTF8.self)
    }

    /// Types literal text (no Enter).
    public func type(_ text: String) throws { try tmux(["send-keys", "-t", session, "-l", text]) }

    /// Presses keys by tmux name: "Enter", "C-c", "Tab", "Up", "C-d".
    public func press(_ keys: String...) throws { try tmux(["send-keys", "-t", session] + keys) }

    /// Pastes text the way a terminal does for a bracketed paste.
    public func paste(_ text: String) throws {
        try tmux(["set-buffer", "-b", "paste", text])
        try tmux(["paste-buffer", "-p", "-b", "paste", "-t", session])
    }

    public func screen() throws -> String {
        try tmux(["capture-pane", "-p", "-J", "-t", session, "-S", "-200"], capture: true)
    }

    /// Polls the screen until `condition` holds (tmux has no event to wait on).
    @discardableResult
    public func waitFor(_ what: String, seconds: Double = 20, _ condition: (String) -> Bool) throws -> String {
        let deadline = Date().addingTimeInterval(seconds)
        var screen = ""
        while Date() < deadline {
            screen = try self.screen()
            if condition(screen) { return screen }
            usleep(20_000)
        }
        throw Failure.timeout(what, screen: screen)
    }

    @discardableResult
    public func waitFor(text: String, seconds: Double = 20) throws -> String {
        try waitFor("\"\(text)\"", seconds: seconds) { $0.contains(text) }
    }

    /// The program's exit status once it has ended, or nil while it runs.
    public func exitStatus() throws -> Int? {
        let output = try tmux(["display-message", "-p", "-t", session, "#{pane_dead} #{pane_dead_status}"], capture: true)
        let parts = output.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: " ")
        guard parts.first == "1", parts.count > 1 else { return nil }
        return Int(parts[1])
    }
}

/// Where the freshly built `hark` binary is: beside the test bundle.
public enum BuiltProducts {
    public static var hark: String {
        let runner = (CommandLine.arguments.first ?? "") as NSString
        var directory = runner.deletingLastPathComponent
        for _ in 0..<4 {
            let candidate = directory + "/hark"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory = (directory as NSString).deletingLastPathComponent
        }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return root.path + "/.build/debug/hark"
    }
}
