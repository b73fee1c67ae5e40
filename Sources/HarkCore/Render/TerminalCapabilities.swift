import FoundationEssentials
import Glibc

/// What the output can show: decided once from isatty, TERM and NO_COLOR.
public struct TerminalCapabilities: Sendable, Equatable {
    public var isTTY: Bool
    public var colors: Bool

    public init(isTTY: Bool, colors: Bool) {
        self.isTTY = isTTY
        self.colors = colors && isTTY
    }

    /// `environment` nil reads the process's own with getenv (building the whole dictionary
    /// costs more than the rest of a `hark search`).
    public static func detect(fd: Int32 = STDOUT_FILENO, environment: [String: String]? = nil) -> TerminalCapabilities {
        func variable(_ name: String) -> String? {
            if let environment { return environment[name] }
            return getenv(name).map { String(cString: $0) }
        }
        let tty = isatty(fd) == 1
        let noColor = variable("NO_COLOR").map { !$0.isEmpty } ?? false
        let dumb = variable("TERM") == "dumb"
        return TerminalCapabilities(isTTY: tty, colors: !noColor && !dumb)
    }

    public static let plain = TerminalCapabilities(isTTY: false, colors: false)
}
