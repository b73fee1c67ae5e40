import FoundationEssentials
import Glibc
import Dispatch
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
        terminal.writeError(prompt)
        defer { if secret { terminal.writeError("\n") } }
        var bytes: [UInt8] = []
        while true {
            while let byte = loop.takeKey() {
                if byte == 0x0A || byte == 0x0D { return String(decoding: bytes, as: UTF8.self) }
                if byte == 0x03 { return nil }
                bytes.append(byte)
            }
            if loop.inputEnded { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
            let wake = loop.wait(EventLoop.Interest(keys: true, signals: true))
            if wake.signals.contains(where: { [SIGINT, SIGTERM, SIGHUP].contains($0) }) {
                // The question ends; the shell still hears a signal meant to end hark.
                loop.putBack(signals: wake.signals.filter { $0 != SIGINT })
                return nil
            }
        }
    }
}

/// Runs async work from the (non-concurrency) shell thread and waits for it.
func blocking<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
    let semaphore = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var result: Result<T, Error>?
    Task.detached {
        do { result = .success(try await work()) } catch { result = .failure(error) }
        semaphore.signal()
    }
    semaphore.wait()
    return try result!.get()
}
