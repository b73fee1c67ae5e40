import FoundationEssentials
import Glibc
import HarkCore

/// `hark -s NAME "message"` and `… | hark -s NAME`: one line through the workspace, the reply
/// on stdout, the exit code telling how it went.
public struct OneShot {
    let workspace: Workspace
    let capabilities: TerminalCapabilities
    let json: Bool
    /// Also read the reply aloud (`--speak`), and wait until it has been heard.
    let speak: Bool

    public init(workspace: Workspace, capabilities: TerminalCapabilities, json: Bool, speak: Bool = false) {
        self.workspace = workspace
        self.capabilities = capabilities
        self.json = json
        self.speak = speak
    }

    public func run(_ line: String) -> Int32 {
        Signals.install([SIGINT, SIGTERM, SIGHUP])
        let workspace = self.workspace
        let outcome: CommandOutcome
        do {
            outcome = try blocking { try await workspace.execute(line) }
        } catch {
            return fail(error)
        }
        switch outcome {
        case .none, .events, .quit:
            return 0
        case .output(let document):
            // Notes on the way ("logged in to …") go to stderr: stdout is the answer alone.
            for note in document where note.isNote { RawOutput.write("hark: " + note.plainText + "\n", to: STDERR_FILENO) }
            let ansi = ANSI(enabled: capabilities.colors)
            let text = document.filter { !$0.isNote }.map { ansi.render($0) }.joined(separator: "\n")
            if !text.isEmpty { RawOutput.write(text + "\n") }
            return 0
        case .prefill(let text):
            RawOutput.write(text + "\n")
            return 0
        case .page(let text):
            RawOutput.write(text)
            return 0
        case .clearScreen:
            return 0
        case .editDraft, .editConfig:
            return fail(HarkError.usage("that command needs the interactive shell"))
        case .listen:
            return fail(HarkError.usage("/listen needs the interactive shell; hark --listen dictates a message from a script"))
        case .reply(let job):
            return watch(job)
        }
    }

    func fail(_ error: Error) -> Int32 {
        if json {
            RawOutput.write(JSON.object(["type": "error", "message": .string(error.userMessage),
                                         "exit_code": .number(Double(error.exitCode.rawValue))]).encoded() + "\n")
        }
        RawOutput.write("hark: " + error.userMessage + "\n", to: STDERR_FILENO)
        return error.exitCode.rawValue
    }

    /// Prints the reply as it arrives. In a pipe the job's own task writes straight to stdout
    /// (no hop through this thread), which keeps up with a fast stream.
    func watch(_ job: ReplyJob) -> Int32 {
        let format: ReplyView.Format = json ? .json : (capabilities.isTTY ? .terminal : .plain)
        let view = ReplyView(format: format, capabilities: capabilities, markdown: BackendRegistry.repliesAreMarkdown(kind: job.kind))
        let ended = Inbox<ShellEvent>()
        var finished = false
        var outcome: ReplyOutcome = .complete
        let observer: ReplyObserver = format == .terminal ? InboxObserver(inbox: ended) : DirectObserver(view: view, done: ended)
        var speaker: ReplySpeaker?
        if speak {
            workspace.voice.onSpeechEvent = { event in
                if case .failed(let error) = event { ended.post(.speechFailed(error)) }
            }
            do {
                let session = try workspace.session(named: job.session)
                speaker = try workspace.voice.replySpeaker(for: session, config: workspace.config, paths: workspace.paths,
                                                           forced: true)
            } catch {
                job.stop()
                return fail(error)
            }
        }
        job.attach(speaker.map { SpeakingObserver(observer, speaker: $0) } ?? observer)
        while !finished {
            var fds = [pollfd(fd: ended.readFD, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: Signals.readFD, events: Int16(POLLIN), revents: 0)]
            _ = poll(&fds, 2, view.wantsSpinner ? 100 : -1)
            if !Signals.drain().isEmpty { job.stop() }
            for event in ended.take() {
                switch event {
                case .reply(_, let replyEvent): view.render(replyEvent)
                case .replyEnded(_, let result):
                    outcome = result
                    finished = true
                case .backgroundEnded: break
                case .speechFailed(let error): RawOutput.write("hark: " + error.userMessage + "\n", to: STDERR_FILENO)
                }
            }
            view.tickSpinner()
        }
        view.end(outcome, messageID: job.replyMessageID)
        if let id = job.replyMessageID { try? workspace.store.markRead(session: job.session, upTo: id) }
        if speaker != nil, outcome != .stopped, !HarkCommandLine.waitForSpeech(workspace.voice.speechOutput()) {
            return HarkError.ExitCode.interrupted.rawValue
        }
        for case .speechFailed(let error) in ended.take() { RawOutput.write("hark: " + error.userMessage + "\n", to: STDERR_FILENO) }
        switch outcome {
        case .complete:
            if let reason = job.finishReason, BackendRegistry.kind(named: job.kind)?.failingFinishReasons.contains(reason) == true {
                return HarkError.ExitCode.backend.rawValue
            }
            return 0
        case .stopped: return HarkError.ExitCode.interrupted.rawValue
        case .failed(let error, _):
            RawOutput.write("hark: " + error.message + "\n", to: STDERR_FILENO)
            return error.exitCode.rawValue
        }
    }
}

/// Renders on the job's own task and only reports the end through the inbox.
final class DirectObserver: ReplyObserver, @unchecked Sendable {
    let view: ReplyView
    let done: Inbox<ShellEvent>

    init(view: ReplyView, done: Inbox<ShellEvent>) {
        self.view = view
        self.done = done
    }

    func reply(_ job: ReplyJob, event: ReplyEvent) { view.render(event) }
    func replyEnded(_ job: ReplyJob, outcome: ReplyOutcome) { done.post(.replyEnded(job, outcome)) }
}
