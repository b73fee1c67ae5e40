import FoundationEssentials
import Glibc
import HarkCore

/// What reaches the shell's thread from other threads.
public enum ShellEvent: Sendable {
    case reply(ReplyJob, ReplyEvent)
    case replyEnded(ReplyJob, ReplyOutcome)
    case backgroundEnded(ReplyJob)
    /// Speaking a reply failed (no audio output…): said once.
    case speechFailed(HarkError)
    /// Everything queued for speaking has been heard.
    case speechDone
    /// Dictation's progress: listening, words heard, the end.
    case dictation(DictationEvent)
    /// A reply's task asks the user something (may this tool run?): the watch of a reply
    /// shows it and reads the answer; anywhere else it is dismissed.
    case question(ReplyQuestion)
    /// A reply's task asks a form (an MCP server's question): the watch asks it field by field.
    case form(ReplyForm)
    /// A line for the person watching the reply (the page a server asked to open).
    case tell(String)
    /// Work left running by an earlier hark ended, found by the look at the shell's start.
    case workEnded(WorkWatcher.Recorded)
}

/// The one place hark waits for something to happen, in the shell and in one-shot mode: keys
/// (and the rest of input), signals, and events posted from other threads (a reply's events,
/// a reply ending in the background, speech and dictation), all in one `poll`. Each wait names
/// what it is interested in; the rest stays queued for a later wait that is (keys in the
/// input buffer, signals in their pipe, events held here), so nothing is lost or handled
/// out of turn. Used from one thread at a time: the shell's, or the one a command asks its
/// question on while the shell waits for that command.
public final class EventLoop: @unchecked Sendable {
    /// What a wait is for.
    public struct Interest {
        public var keys: Bool
        public var signals: Bool
        /// The events this wait takes; others are held for a later wait.
        public var events: (ShellEvent) -> Bool
        /// Milliseconds; nil waits until something of interest happens.
        public var timeout: Int32?

        public init(keys: Bool = false, signals: Bool = false, events: @escaping (ShellEvent) -> Bool = { _ in false },
                    timeout: Int32? = nil) {
            self.keys = keys
            self.signals = signals
            self.events = events
            self.timeout = timeout
        }

        /// At the prompt: keys, signals, and every event (a notice to show, or a stale one to drop).
        public static var prompt: Interest { Interest(keys: true, signals: true, events: { _ in true }) }
    }

    /// What happened.
    public struct Wake {
        /// Keys wait in the buffer, or input ended.
        public var keys = false
        public var signals: [Int32] = []
        public var events: [ShellEvent] = []
        public var timedOut = false

        /// Something other than keys woke the wait.
        public var hasNews: Bool { !signals.isEmpty || !events.isEmpty }
        var isEmpty: Bool { !keys && !hasNews && !timedOut }
    }

    public let terminal: Terminal
    /// Other threads post here; the wait wakes.
    public let inbox = Inbox<ShellEvent>()
    /// The terminal's focus, from the reports taken out of the keys.
    public let focus = FocusTracker()
    /// Set while a reply is watched, the only time a reply's question can be answered.
    public let watchingReply = Locked(false)
    private var held: [ShellEvent] = []
    private var heldSignals: [Int32] = []
    private var buffer: [UInt8] = []
    private var bufferStart = 0
    /// Input has ended (a pipe closed, the terminal gone); no key will come.
    public private(set) var inputEnded = false
    /// When hark must be gone, once a signal or a hangup is ending it (monotonic seconds).
    private var endingBy: Double?
    /// How long waits for replies to stop may go on while hark ends: past it, a reply whose
    /// stop is stuck (a tool, a server's stop request) is left as it is.
    static let endingBound = 0.5

    /// hark is ending (SIGTERM, SIGQUIT, SIGHUP, the terminal gone): from now on, waiting for
    /// replies to stop is bounded.
    public func beginEnding() {
        if endingBy == nil { endingBy = Self.monotonicNow() + Self.endingBound }
    }

    /// Seconds left to wait for replies to stop while hark ends; nil while it is not ending.
    public var endingIn: Double? { endingBy.map { $0 - Self.monotonicNow() } }

    /// How long hark's last step (ending its MCP sessions) may take: a moment when nothing is
    /// ending hark, else what is left of the second a signal or a hangup gives it in all.
    static let exitBound = 0.9
    public var serversEndWithin: Double {
        guard Signals.terminating != 0 else { return 2 }
        return max(0.05, (endingIn ?? Self.endingBound) + Self.exitBound - Self.endingBound)
    }

    static func monotonicNow() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    public init(terminal: Terminal) {
        self.terminal = terminal
    }

    /// Waits until something of `interest` happens (or its timeout passes). Once input has
    /// ended, a wait no longer wakes for keys (a loop asking for keys would spin): on a
    /// terminal the end is a hangup, reported once as SIGHUP to a wait that takes signals;
    /// a wait for keys alone returns at once, and its caller checks `inputEnded`.
    @discardableResult
    public func wait(_ interest: Interest) -> Wake {
        var wake = Wake()
        let earlier = held
        held = []
        take(earlier, into: &wake, interest)
        if interest.signals {
            wake.signals = heldSignals
            heldSignals = []
        }
        if interest.keys && (hasKeys || (inputEnded && !interest.signals)) { wake.keys = true }
        // Even when something is already at hand, what else is ready is taken too (without
        // waiting): a wait answered from the buffer must not leave the inbox and the signals unread.
        var collecting = !wake.isEmpty
        while wake.isEmpty || collecting {
            var fds = [pollfd(fd: inbox.readFD, events: Int16(POLLIN), revents: 0)]
            let signalFD = interest.signals ? terminal.signalDescriptor : -1
            let inputFD = interest.keys && !inputEnded ? terminal.inputDescriptor : -1
            for fd in [signalFD, inputFD] where fd >= 0 { fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0)) }
            let ready = poll(&fds, nfds_t(fds.count), collecting ? 0 : interest.timeout ?? -1)
            if ready == 0 {
                if !collecting { wake.timedOut = true }
                break
            }
            collecting = false
            if ready < 0 {
                // A signal interrupted the wait: it is in its pipe for the next round.
                if errno == EINTR { continue }
                endInput(&wake, interest)
                break
            }
            for entry in fds where entry.revents != 0 {
                if entry.fd == inbox.readFD {
                    take(inbox.take(), into: &wake, interest)
                } else if entry.fd == signalFD {
                    wake.signals += received(terminal.takeSignals())
                } else if entry.fd == inputFD {
                    let bytes = terminal.readInput(limit: 4096)
                    let keys = focus.filter(bytes)
                    if bytes.isEmpty {
                        endInput(&wake, interest)
                    } else {
                        buffer += keys
                        // A read that held only a focus report brings no key.
                        if !keys.isEmpty { wake.keys = true }
                    }
                }
            }
        }
        return wake
    }

    /// Someone else found the terminal gone (libedit, which checks its modes before reading):
    /// as if this loop had read the end of input.
    public func terminalGone() {
        var wake = Wake()
        endInput(&wake, Interest())
    }

    /// Input ended. The wait that saw it wakes for keys once; a terminal's end is a hangup.
    private func endInput(_ wake: inout Wake, _ interest: Interest) {
        guard !inputEnded else { return }
        inputEnded = true
        wake.keys = interest.keys
        guard terminal.hasKeyboard else { return }
        terminal.hangUp()
        if interest.signals { wake.signals.append(SIGHUP) } else { heldSignals.append(SIGHUP) }
    }

    /// Signals as a wait reports them. SIGCONT (hark continued after a stop) also sets the
    /// terminal's key mode again, whoever waits.
    private func received(_ signals: [Int32]) -> [Int32] {
        if signals.contains(SIGCONT) { terminal.resumed() }
        return signals
    }

    private func take(_ events: [ShellEvent], into wake: inout Wake, _ interest: Interest) {
        for event in events {
            if interest.events(event) { wake.events.append(event) } else { held.append(event) }
        }
    }

    /// Signals a wait took but leaves to a later one (the shell's, after a question).
    public func putBack(signals: [Int32]) {
        heldSignals += signals
    }

    // MARK: Keys

    public var hasKeys: Bool { bufferStart < buffer.count }

    /// The next key already read, if any.
    public func takeKey() -> UInt8? {
        guard hasKeys else { return nil }
        defer {
            bufferStart += 1
            if bufferStart == buffer.count {
                buffer.removeAll(keepingCapacity: true)
                bufferStart = 0
            }
        }
        return buffer[bufferStart]
    }

    /// Every key already read.
    public func takeKeys() -> [UInt8] {
        defer {
            buffer.removeAll(keepingCapacity: true)
            bufferStart = 0
        }
        return Array(buffer[bufferStart...])
    }

    /// Puts keys back, to be read again first (typed ahead while a reply streamed).
    public func unread(_ keys: [UInt8]) {
        guard !keys.isEmpty else { return }
        buffer = keys + buffer[bufferStart...]
        bufferStart = 0
    }

    /// The next key, waiting for keys only (the rest of a character, of a paste); nil at the
    /// end of input.
    public func nextKey() -> UInt8? {
        while !hasKeys && !inputEnded { wait(Interest(keys: true)) }
        return takeKey()
    }

    // MARK: Waiting for speech

    /// Waits until everything queued has been heard; a signal silences it. False when interrupted.
    public func waitForSpeech(_ speaker: SpeechOutput) -> Bool {
        let inbox = self.inbox
        Threads.start(name: "hark-speech-wait") {
            speaker.waitUntilDone()
            inbox.post(.speechDone)
        }
        while true {
            let wake = wait(Interest(signals: true, events: { if case .speechDone = $0 { return true }; return false }))
            if !wake.signals.isEmpty {
                speaker.stop()
                // Told to end (not just to stop speaking): whoever waits next, the shell after
                // `/talk` for one, ends too.
                let ending = wake.signals.filter { $0 == SIGTERM || $0 == SIGHUP }
                if !ending.isEmpty { putBack(signals: ending) }
                return false
            }
            if !wake.events.isEmpty { return true }
        }
    }
}
