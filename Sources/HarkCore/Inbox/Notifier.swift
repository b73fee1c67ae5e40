import FoundationEssentials
import Glibc

/// Something that ended or waits, told to the user who is looking elsewhere: one line of
/// session, what happened and the first words.
public struct HarkNotification: Sendable, Equatable {
    public var session: String
    /// "reply complete", "build ended", "task asks for input", "asks you to choose".
    public var what: String
    public var words: String

    public init(session: String, what: String, words: String) {
        self.session = session
        self.what = what
        self.words = words
    }

    public var title: String { "hark: " + NotificationText.clean(session, limit: 40) }
    public var body: String {
        let words = NotificationText.clean(words, limit: 120)
        return what + (words.isEmpty ? "" : ": " + words)
    }
    /// The whole notification on one line.
    public var line: String { title + " · " + body }

    /// What a reply's end says: complete with its first words, failed with why, stopped.
    public static func replyEnded(session: String, kind: String, outcome: ReplyOutcome, summary: String) -> HarkNotification {
        let noun = InboxItem.kind(ofSession: kind) == "build" ? "build" : (kind == "a2a" ? "task" : "reply")
        switch outcome {
        case .complete: return HarkNotification(session: session, what: noun + (noun == "build" ? " ended" : " complete"), words: summary)
        case .stopped: return HarkNotification(session: session, what: noun + " stopped", words: summary)
        case .failed(let error, _): return HarkNotification(session: session, what: noun + " failed", words: error.message)
        }
    }
}

/// Sends notifications the way the settings say: through the terminal (an OSC, wrapped for
/// tmux or screen), `notify-send`, or the bell. `write` reaches the terminal; nil when there
/// is none (`hark watch` under systemd).
public final class Notifier: Sendable {
    public enum Channel: Sendable, Equatable {
        case terminal(String)
        case desktop([String])
        case bell
    }

    let environment: [String: String]
    let write: (@Sendable (String) -> Void)?
    let now: @Sendable () -> Date
    let run: @Sendable ([String]) -> Void

    public init(environment: [String: String] = ProcessInfo.processInfo.environment,
                write: (@Sendable (String) -> Void)?, now: @escaping @Sendable () -> Date = HarkClock.system.now,
                run: @escaping @Sendable ([String]) -> Void = Notifier.runDetached) {
        self.environment = environment
        self.write = write
        self.now = now
        self.run = run
    }

    /// How this notification goes out with these settings, or nil for none.
    public func channel(for notification: HarkNotification, _ settings: NotifySettings) -> Channel? {
        if settings.mode == .off { return nil }
        if let quiet = settings.quietHours, quiet.contains(now()) { return nil }
        let multiplexer = TerminalNotification.multiplexer(environment)
        let osc = TerminalNotification.sequence(title: notification.title, body: notification.body,
                                                flavour: TerminalNotification.flavour(environment), multiplexer: multiplexer)
        switch settings.mode {
        case .off: return nil
        case .bell: return write == nil ? nil : .bell
        case .terminal: return write == nil ? nil : .terminal(osc)
        case .desktop: return desktopCommand(notification).map(Channel.desktop) ?? (write == nil ? nil : .bell)
        case .auto:
            if write != nil, TerminalNotification.isKnownToShow(environment) || multiplexer != .none { return .terminal(osc) }
            if let command = desktopCommand(notification) { return .desktop(command) }
            return write == nil ? nil : .bell
        }
    }

    /// Sends it; returns how (for `hark watch`'s log and the tests).
    @discardableResult
    public func notify(_ notification: HarkNotification, _ settings: NotifySettings) -> Channel? {
        let channel = channel(for: notification, settings)
        switch channel {
        case .terminal(let sequence)?: write?(sequence)
        case .bell?: write?("\u{7}")
        case .desktop(let command)?: run(command)
        case nil: break
        }
        return channel
    }

    /// `notify-send` when it is installed and a desktop session is there to show it.
    func desktopCommand(_ notification: HarkNotification) -> [String]? {
        guard !(environment["DBUS_SESSION_BUS_ADDRESS"] ?? "").isEmpty,
              let program = ServedModel.findExecutable("notify-send", in: environment["PATH"]) else { return nil }
        return [program, "--app-name=hark", "--", notification.title, notification.body]
    }

    /// Runs the command on a thread of its own and reaps it, so a long `hark watch` leaves no
    /// zombie behind; it is given a few seconds at most.
    public static let runDetached: @Sendable ([String]) -> Void = { command in
        sending.started()
        Threads.start(name: "hark-notify") {
            defer { sending.finished() }
            _ = try? Subprocess.run(command, streams: .captured(input: nil), timeout: 5, outputLimit: 4096)
        }
    }

    /// Waits (at most `seconds`) for the desktop notifications still being sent: a process
    /// about to exit (`hark watch --once`) would take them with it.
    public static func waitUntilSent(seconds: Double = 5) { sending.waitUntilNone(seconds: seconds) }

    private static let sending = InFlight()
}

/// How many things are under way, and a wait for none to be.
final class InFlight: @unchecked Sendable {
    private let condition = Condition()
    private var count = 0

    func started() { condition.withLock { count += 1 } }

    func finished() {
        condition.withLock {
            count -= 1
            condition.broadcast()
        }
    }

    /// Each wake is a finish, and there are only so many: the wait ends soon after `seconds`.
    func waitUntilNone(seconds: Double) {
        condition.lock()
        defer { condition.unlock() }
        while count > 0 {
            guard condition.wait(seconds: seconds) else { return }
        }
    }
}
