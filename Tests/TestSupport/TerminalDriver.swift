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
        case tmux(String, String)
        public var description: String {
            switch self {
            case .tmux(let command, let error): return "tmux \(command) failed: \(error)"
            case .tmuxMissing: return "tmux is not installed (scripts/setup.sh --test installs it)"
            case .timeout(let what, let screen): return "timed out waiting for \(what); screen:\n\(screen)"
            }
        }
    }

    public static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux") }

    /// Starts `arguments` in a fresh terminal of the given size. A small shell wrapper prints
    /// `[exited N]` when the program ends (tmux's own pane status was seen to be empty).
    /// `clipboard`: tmux takes what a program copies with OSC 52 into its paste buffer
    /// (`set-clipboard on`), read back by `pasteBuffer()`.
    /// `keep`: variables passed on besides the usual few (`TMUX`, for a program that must know
    /// it runs inside tmux).
    public init(_ arguments: [String], environment: [String: String], columns: Int = 100, rows: Int = 30,
                clipboard: Bool = false, keep: Set<String> = []) throws {
        guard Self.isAvailable else { throw Failure.tmuxMissing }
        socket = "hark-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        var command = ["env", "-i"]
        for (key, value) in environment.sorted(by: { $0.key < $1.key }) where Self.passes(key) || keep.contains(key) {
            command.append("\(key)=\(value)")
        }
        // The wrapper ignores SIGINT itself so that only the program under test handles Ctrl-C.
        command += ["/bin/sh", "-c", "trap '' INT; \"$@\"; echo \"[exited $?]\"", "sh"] + arguments
        // One client call: the pane must keep its screen (and exit status) when the program ends.
        try tmux(["new-session", "-d", "-s", session, "-x", String(columns), "-y", String(rows)]
            + [command.map(Self.quote).joined(separator: " ")]
            + [";", "set-option", "-w", "-t", session, "remain-on-exit", "on"]
            + (clipboard ? [";", "set-option", "-s", "set-clipboard", "on"] : []))
    }

    deinit { _ = try? tmux(["kill-server"]) }

    static func passes(_ key: String) -> Bool {
        ["PATH", "HOME", "LANG", "LC_ALL", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "NO_COLOR", "EDITOR", "VISUAL",
         "EDITRC", "TERM", "PULSE_SERVER", "PULSE_SOURCE"].contains(key) || key.hasPrefix("HARK_")
    }

    static func quote(_ word: String) -> String { "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    /// Runs a tmux command. Only commands that print are captured: the first command forks
    /// the tmux server, which would hold a capture pipe open for as long as it lives.
    @discardableResult
    func tmux(_ arguments: [String], capture: Bool = false) throws -> String {
        let command = ["/usr/bin/tmux", "-L", socket, "-f", "/dev/null"] + arguments
        let result = try Subprocess.run(command, streams: capture ? .captured(input: nil) : .discarded)
        guard result.status == 0 else {
            throw Failure.tmux(arguments.joined(separator: " "), String(decoding: result.stderr, as: UTF8.self))
        }
        return String(decoding: result.stdout, as: UTF8.self)
    }

    /// Types literal text (no Enter).
    /// From now on, appends what the program writes to its terminal, byte for byte (escape
    /// sequences included, before tmux interprets them), to `path` (tmux's pipe-pane).
    public func recordOutput(to path: String) throws {
        try tmux(["pipe-pane", "-O", "-t", session, "cat >> " + Self.quote(path)])
    }

    public func type(_ text: String) throws { try tmux(["send-keys", "-t", session, "-l", text]) }

    /// Types a line and presses Enter.
    public func enter(_ text: String) throws {
        try type(text)
        try press("Enter")
    }

    /// Presses keys by tmux name: "Enter", "C-c", "Tab", "Up", "C-d".
    public func press(_ keys: String...) throws { try tmux(["send-keys", "-t", session] + keys) }

    /// Pastes text the way a terminal does for a bracketed paste.
    public func paste(_ text: String) throws {
        try paste(bytes: Array(text.utf8))
    }

    /// Pastes exactly these bytes (invalid UTF-8 and all). They go through a file: an argument
    /// is limited to 128 KB.
    public func paste(bytes: [UInt8]) throws {
        let file = TemporaryDirectory("hark-paste")
        let path = file.file("paste")
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else { throw Failure.tmux("paste", "cannot write \(path)") }
        try tmux(["load-buffer", "-b", "paste", path])
        try tmux(["paste-buffer", "-p", "-b", "paste", "-t", session])
    }

    /// The terminal goes away, as when its window is closed: tmux ends and closes it.
    public func close() throws { try tmux(["kill-server"]) }

    /// tmux's newest paste buffer: what the program last copied through OSC 52.
    public func pasteBuffer() throws -> String { try tmux(["show-buffer"], capture: true) }

    /// Resizes the window, as a person dragging its edge: the program gets SIGWINCH.
    public func resize(columns: Int, rows: Int) throws {
        try tmux(["resize-window", "-t", session, "-x", String(columns), "-y", String(rows)])
    }

    /// The screen and the lines scrolled off it, soft-wrapped rows joined (`-J`): a line the
    /// terminal had to wrap shows as one line longer than the window. `escapes`: with the SGR
    /// that colours each cell (`-e`).
    public func screen(escapes: Bool = false) throws -> String {
        try tmux(["capture-pane", "-p", "-J"] + (escapes ? ["-e"] : []) + ["-t", session, "-S", "-200"], capture: true)
    }

    /// What the window shows now, without the lines scrolled off its top (or cleared off it).
    public func visibleScreen() throws -> String {
        try tmux(["capture-pane", "-p", "-J", "-t", session], capture: true)
    }

    /// Polls the screen until `condition` holds: a terminal has no event to wait on, so this
    /// reads the screen every 20 ms up to a deadline. Each read runs a tmux client to its end,
    /// so it runs off the concurrency pool: on two cores, a dozen terminal tests polling on the
    /// pool's two threads kept every other test from running.
    @discardableResult
    public func waitFor(_ what: String, seconds: Double = 90, _ condition: (String) -> Bool) async throws -> String {
        let deadline = Date().addingTimeInterval(seconds)
        var screen = ""
        while Date() < deadline {
            screen = try await offThePool { try self.screen() }
            if condition(screen) { return screen }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        // One more look after the deadline: on a loaded run the sleep above can resume long
        // after it was due, so the screen read before it is stale; report (or accept) what the
        // terminal shows now, not what it showed a minute ago.
        screen = try await offThePool { try self.screen() }
        if condition(screen) { return screen }
        let panes = (try? tmux(["list-panes", "-a", "-F", "#{pane_dead} #{pane_dead_status} #{pane_current_command}"], capture: true)) ?? "?"
        throw Failure.timeout(what, screen: screen + "\n[panes: \(panes)]")
    }

    @discardableResult
    public func waitFor(text: String, seconds: Double = 90) async throws -> String {
        try await waitFor("\"\(text)\"", seconds: seconds) { $0.contains(text) }
    }

    /// The program's exit status once it has ended, or nil while it runs.
    public func exitStatus() throws -> Int? {
        let screen = try self.screen()
        guard let range = screen.range(of: "[exited ", options: .backwards) else { return nil }
        return Int(screen[range.upperBound...].prefix(while: { $0.isNumber }))
    }

    /// Waits for the program to end and returns its exit status.
    public func waitForExit(seconds: Double = 90) async throws -> Int {
        try await waitFor("the program to exit", seconds: seconds) { $0.contains("[exited ") }
        return try exitStatus() ?? -1
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

extension TestHome {
    /// The built hark in a real terminal on this home, as the terminal tests start it: TERM
    /// set, an ~/.editrc of its own (empty unless given: the user's bindings must not change
    /// the keys), colours off unless asked for, and `environment` on top of `base` (the home's
    /// own by default; nil removes a variable).
    public func terminal(_ arguments: [String] = [], colors: Bool = false, editrc: String = "",
                         environment extra: [String: String?] = [:], base: [String: String]? = nil,
                         columns: Int = 100, rows: Int = 30, keep: Set<String> = []) throws -> TerminalDriver {
        var environment = base ?? self.environment
        environment["TERM"] = "xterm-256color"
        environment["EDITRC"] = directory.write("editrc", editrc)
        if colors { environment["NO_COLOR"] = nil }
        for (key, value) in extra { environment[key] = value }
        return try TerminalDriver([BuiltProducts.hark] + arguments, environment: environment, columns: columns, rows: rows,
                                  keep: keep)
    }
}
