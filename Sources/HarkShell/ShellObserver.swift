import FoundationEssentials
import Glibc
import HarkCore

/// Forwards a watched reply's events to the shell's thread.
final class InboxObserver: ReplyObserver {
    let inbox: Inbox<ShellEvent>

    init(inbox: Inbox<ShellEvent>) {
        self.inbox = inbox
    }

    func reply(_ job: ReplyJob, event: ReplyEvent) { inbox.post(.reply(job, event)) }
    func replyEnded(_ job: ReplyJob, outcome: ReplyOutcome) { inbox.post(.replyEnded(job, outcome)) }
}

/// Renders on the job's own task and only reports the end through the inbox: the pipe's fast path.
final class DirectObserver: ReplyObserver, @unchecked Sendable {
    let view: ReplyView
    let inbox: Inbox<ShellEvent>

    init(view: ReplyView, inbox: Inbox<ShellEvent>) {
        self.view = view
        self.inbox = inbox
    }

    func reply(_ job: ReplyJob, event: ReplyEvent) { view.render(event) }
    func replyEnded(_ job: ReplyJob, outcome: ReplyOutcome) { inbox.post(.replyEnded(job, outcome)) }
}

/// Questions from commands, answered at the terminal (a password without echo). Asked while
/// the shell's thread waits for the command, so the keys come through the same event loop
/// (keys typed ahead included).
struct TerminalInteraction: Interaction, @unchecked Sendable {
    let terminal: Terminal
    let loop: EventLoop

    var isInteractive: Bool { terminal.hasKeyboard }

    func ask(_ prompt: String, secret: Bool) async -> String? {
        guard isInteractive else { return nil }
        terminal.setKeyMode(secret ? .hidden : .user)
        terminal.writeError(TerminalSanitizer.visible(prompt))
        defer { if secret { terminal.writeError("\n") } }
        var bytes: [UInt8] = []
        while true {
            while let byte = loop.takeKey() {
                if byte == 0x0A || byte == 0x0D { return String(decoding: bytes, as: UTF8.self) }
                // Ctrl-C, or Ctrl-D (in the user's mode the terminal reads it as an end of input).
                if byte == 0x03 || byte == 0x04 { return nil }
                bytes.append(byte)
            }
            // The terminal went away: what was typed was never entered, so it answers nothing.
            if loop.inputEnded { return nil }
            let wake = loop.wait(EventLoop.Interest(keys: true, signals: true))
            if wake.signals.contains(where: { [SIGINT, SIGTERM, SIGHUP].contains($0) }) {
                // The question ends; the shell still hears a signal meant to end hark.
                loop.putBack(signals: wake.signals.filter { $0 != SIGINT })
                return nil
            }
        }
    }
}

extension TerminalInteraction {
    /// Asked from a reply's task (a tool call's approval) while the shell watches that reply:
    /// the watch, which owns the keys then, shows the question and takes one key. Nobody
    /// watching (the reply went on in the background): no answer, so nothing runs.
    func choose(_ prompt: String, options: [Character]) async -> Character? {
        guard isInteractive, loop.watchingReply.read({ $0 }) else { return nil }
        return await withCheckedContinuation { continuation in
            loop.inbox.post(.question(ReplyQuestion(prompt: prompt, options: options, continuation: continuation)))
        }
    }
}

extension TerminalInteraction {
    var asksDuringReply: Bool { isInteractive && loop.watchingReply.read { $0 } }

    /// An agent's form, asked by the watch of the reply field by field in the input line.
    func fill(_ question: QuestionConversation) async -> QuestionOutcome? {
        guard asksDuringReply else { return nil }
        return await withCheckedContinuation { continuation in
            loop.inbox.post(.form(ReplyForm(question, continuation: continuation)))
        }
    }

    func tell(_ line: String) {
        loop.inbox.post(.tell(line))
    }
}

/// An agent's form being asked in the shell: the conversation (used on the shell's thread
/// only) and its outcome, given once; nil when it could not be asked after all.
public final class ReplyForm: @unchecked Sendable {
    var conversation: QuestionConversation
    private let answered: AnsweredOnce<QuestionOutcome?>

    init(_ conversation: QuestionConversation, continuation: CheckedContinuation<QuestionOutcome?, Never>) {
        self.conversation = conversation
        answered = AnsweredOnce(continuation)
    }

    func answer(_ outcome: QuestionOutcome?) { answered.answer(outcome) }
}

/// A reply's question to the user with its one-key options, answered once: an option, or nil
/// when dismissed (Enter, Ctrl-C, the watch ending).
public final class ReplyQuestion: @unchecked Sendable {
    let prompt: String
    let options: [Character]
    private let answered: AnsweredOnce<Character?>

    init(prompt: String, options: [Character], continuation: CheckedContinuation<Character?, Never>) {
        self.prompt = prompt
        self.options = options
        answered = AnsweredOnce(continuation)
    }

    func answer(_ choice: Character?) { answered.answer(choice) }

    /// The option a key chooses, `.some(nil)` for a key that dismisses, nil for one ignored.
    func choice(for key: UInt8) -> Character?? {
        if key == 0x0D || key == 0x0A || key == 0x03 || key == 0x04 { return .some(nil) }
        let typed = Character(Unicode.Scalar(key)).lowercased().first
        return typed.flatMap { options.contains($0) ? .some($0) : nil }
    }
}

/// A waiting task's answer, given once by whichever comes first (the user, Ctrl-C, the watch
/// ending); later answers find nobody waiting and are dropped.
final class AnsweredOnce<Value: Sendable>: @unchecked Sendable {
    private let lock = Lock()
    private var continuation: CheckedContinuation<Value, Never>?

    init(_ continuation: CheckedContinuation<Value, Never>) { self.continuation = continuation }

    func answer(_ value: Value) {
        lock.withLock {
            defer { continuation = nil }
            return continuation
        }?.resume(returning: value)
    }
}

/// Runs async work from the (non-concurrency) shell thread and waits for it. When hark is
/// told to end meanwhile (SIGTERM, SIGQUIT, SIGHUP), the work is cancelled and waited for a
/// moment; work that does not end then (a command stuck on a server) is left behind, and
/// `HarkError.interrupted` thrown, so that hark ends.
func blocking<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
    let done = Inbox<Bool>()
    nonisolated(unsafe) var result: Result<T, Error>?
    let task = Task.detached {
        do { result = .success(try await work()) } catch { result = .failure(error) }
        done.post(true)
    }
    var fds = [pollfd(fd: done.readFD, events: Int16(POLLIN), revents: 0)]
    if Subprocess.terminationDescriptor >= 0 {
        fds.append(pollfd(fd: Subprocess.terminationDescriptor, events: Int16(POLLIN), revents: 0))
    }
    while done.isEmpty {
        if poll(&fds, nfds_t(fds.count), -1) < 0 { continue }
        if fds.count > 1 && fds[1].revents != 0 && done.isEmpty {
            task.cancel()
            var finished = pollfd(fd: done.readFD, events: Int16(POLLIN), revents: 0)
            _ = poll(&finished, 1, Int32(EventLoop.endingBound * 1000))
            guard !done.isEmpty else { throw HarkError.interrupted }
        }
    }
    _ = done.take()
    return try result!.get()
}
