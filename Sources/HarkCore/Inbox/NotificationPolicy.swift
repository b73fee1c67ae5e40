/// Whether the terminal window has the user's attention, as the terminal reports it (focus
/// reporting, `CSI ? 1004 h`: `CSI I` on focus, `CSI O` when it goes).
public enum TerminalFocus: Sendable, Equatable {
    /// The terminal has not said (it does not report focus, or not yet).
    case unknown
    case focused
    case unfocused
}

/// When something ending deserves a notification: when the terminal is not focused, or it
/// happened outside the session being looked at. A terminal that does not report focus is
/// taken to be looked at: only other sessions notify.
public enum NotificationPolicy {
    /// `watched`: the reply was on the screen as it ended.
    public static func shouldNotify(session: String, current: String, focus: TerminalFocus, watched: Bool) -> Bool {
        if focus == .unfocused { return true }
        if watched { return false }
        return session != current
    }
}
