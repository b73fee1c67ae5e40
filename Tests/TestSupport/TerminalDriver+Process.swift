import Foundation
import HarkCore

extension TerminalDriver {
    /// The PID of the program under test (the child of the pane's wrapper shell), for a signal
    /// sent to it as another process would; nil once it has ended.
    public func programPID() throws -> pid_t? {
        let wrapper = try tmux(["display-message", "-p", "#{pane_pid}"], capture: true).trimmed
        guard let children = try? String(contentsOfFile: "/proc/\(wrapper)/task/\(wrapper)/children", encoding: .utf8) else {
            return nil
        }
        return children.split(separator: " ").first.flatMap { pid_t($0) }
    }
}
