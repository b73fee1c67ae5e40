import FoundationEssentials
import Glibc
import Dispatch
import HarkCore

/// What reaches the shell thread from elsewhere.
enum ShellEvent: Sendable {
    case reply(ReplyJob, ReplyEvent)
    case replyEnded(ReplyJob, ReplyOutcome)
    case backgroundEnded(ReplyJob)
    /// Speaking a reply failed (no audio output…): said once, above the prompt.
    case speechFailed(HarkError)
}

/// Forwards a watched reply's events to the shell thread.
final class InboxObserver: ReplyObserver {
    let inbox: Inbox<ShellEvent>

    init(inbox: Inbox<ShellEvent>) {
        self.inbox = inbox
    }

    func reply(_ job: ReplyJob, event: ReplyEvent) { inbox.post(.reply(job, event)) }
    func replyEnded(_ job: ReplyJob, outcome: ReplyOutcome) { inbox.post(.replyEnded(job, outcome)) }
}

/// Questions from commands, answered on the terminal (a password without echo).
struct TerminalInteraction: Interaction {
    var isInteractive: Bool { isatty(STDIN_FILENO) == 1 }

    func ask(_ prompt: String, secret: Bool) async -> String? {
        guard isInteractive else { return nil }
        TerminalModes.restore()
        RawOutput.write(prompt, to: STDERR_FILENO)
        var saved = termios()
        let hide = secret && tcgetattr(STDIN_FILENO, &saved) == 0
        if hide {
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(STDIN_FILENO, TCSANOW, &quiet)
        }
        defer {
            if hide {
                tcsetattr(STDIN_FILENO, TCSANOW, &saved)
                RawOutput.write("\n", to: STDERR_FILENO)
            }
        }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while read(STDIN_FILENO, &byte, 1) == 1 {
            if byte == 0x0A { return String(decoding: bytes, as: UTF8.self) }
            if byte == 0x03 { return nil }
            bytes.append(byte)
        }
        return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
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
