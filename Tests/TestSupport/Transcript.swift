import Foundation
import HarkCore

/// A private XDG home for one test: its own config file and history database.
public final class TestHome: @unchecked Sendable {
    public let directory = TemporaryDirectory("hark-home")
    public let paths: Paths

    /// `config` is the text of the config file; nil leaves hark to write its default.
    /// `sharedPrompts` are the folders of shipped prompts and forms (none unless asked for:
    /// `[TestHome.shippedPrompts]` is the repository's).
    public init(config: String? = nil, sharedPrompts: [String] = []) {
        paths = Paths(configDirectory: directory.path + "/config/hark", dataDirectory: directory.path + "/data/hark",
                      sharedPromptDirectories: sharedPrompts)
        if let config {
            try? FileManager.default.createDirectory(atPath: paths.configDirectory, withIntermediateDirectories: true)
            _ = FileManager.default.createFile(atPath: paths.configFile, contents: Data(config.utf8),
                                           attributes: [.posixPermissions: 0o600])
        }
    }

    /// The repository's `prompts/` folder: the prompts and forms hark ships.
    public static let shippedPrompts = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("prompts").path

    /// Writes a file under the user's prompts folder (`forms/x.json`, `x.md`).
    @discardableResult
    public func writePrompt(_ relativePath: String, _ text: String) -> String {
        let path = paths.configDirectory + "/prompts/" + relativePath
        try? FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                 withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        return path
    }

    public func workspace(clock: HarkClock = .system) throws -> Workspace {
        try Workspace(paths: paths, clock: clock)
    }

    /// The environment that points a hark process at this home.
    public var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = directory.path + "/config"
        environment["XDG_DATA_HOME"] = directory.path + "/data"
        environment["NO_COLOR"] = "1"
        environment["HARK_PROMPTS"] = paths.sharedPromptDirectories.first
        return environment
    }
}

/// Drives a Workspace with typed lines and records what a user would read, without colours:
/// the golden-transcript harness. Replies are rendered by the same ReplyView the shell uses.
public final class Transcript: @unchecked Sendable {
    public let workspace: Workspace
    public private(set) var text = ""
    private let lock = NSLock()

    private var notices: [String] = []
    /// What the user leaves in the editor when a command opens it (`/edit last`); nil keeps the
    /// text as it was.
    public var editorText: String?

    public init(_ workspace: Workspace) {
        self.workspace = workspace
        workspace.onBackgroundReplyEnded = { [weak self] job in
            guard let self else { return }
            lock.withLock { notices.append(job.endNotice) }
        }
    }

    private func append(_ piece: String) { lock.withLock { text += piece } }

    /// Notices of replies that ended in the background, shown where the shell shows them:
    /// above the next prompt.
    private func flushNotices() {
        lock.withLock {
            for notice in notices { text += notice + "\n" }
            notices.removeAll()
        }
    }

    /// Waits for every reply still running in the background, then shows their notices.
    public func settle() async {
        for job in workspace.runningJobs { _ = await job.wait() }
        // The end is announced just after the waiters are resumed.
        while !workspace.isIdle { await Task.yield() }
        flushNotices()
    }

    /// Types one line and waits until its output (including a streamed reply) is complete.
    /// `whileStreaming` runs once the reply has started, e.g. to stop it.
    @discardableResult
    public func type(_ line: String, whileStreaming: (@Sendable (ReplyJob) async -> Void)? = nil) async -> String {
        flushNotices()
        let before = lock.withLock { text.count }
        append("> \(line)\n")
        do {
            let outcome = try await workspace.execute(line)
            await render(outcome, whileStreaming: whileStreaming)
        } catch {
            append("error: \(error.userMessage)\n")
        }
        return lock.withLock { String(text.dropFirst(before)) }
    }

    func render(_ outcome: CommandOutcome, whileStreaming: (@Sendable (ReplyJob) async -> Void)?) async {
        switch outcome {
        case .none, .events, .summary:
            break
        case .output(let document):
            let ansi = ANSI(enabled: false)
            for line in document { append(ansi.render(line) + "\n") }
        case .reply(let job):
            let view = ReplyView(format: .terminal, capabilities: .plain, output: { [weak self] in self?.append($0) },
                                 errorOutput: { [weak self] in self?.append($0) })
            if job.session != workspace.currentSession { view.header(job.session) }
            let observer = CollectingObserver(view: view)
            job.attach(observer)
            if let whileStreaming { await whileStreaming(job) }
            if !job.isWatched && job.isRunning {
                observer.drain()
                view.aside("[continues in the background]")
                return
            }
            let outcome = await job.wait()
            observer.drain()
            view.end(outcome, messageID: job.replyMessageID)
            if let id = job.replyMessageID { try? workspace.store.markRead(session: job.session, upTo: id) }
            if case .failed(let error, _) = outcome { append("error: \(error.message)\n") }
        case .editDraft(let draft):
            append("[editor opens on: \(draft)]\n")
        case .editConfig:
            append("[editor opens on the config]\n")
        case .editMessage(let text, let then):
            append("[editor opens on: \(text)]\n")
            let edited = editorText ?? text
            append("[editor closes with: \(edited)]\n")
            do {
                await render(try await then(edited), whileStreaming: whileStreaming)
            } catch {
                append("error: \(error.userMessage)\n")
            }
        case .copy(let text, let what):
            append("[clipboard ← \(what)]\n\(text)\n[end of clipboard]\n")
        case .prefill(let line):
            append("[input line: \(line)]\n")
        case .listen:
            append("[listening]\n")
        case .page(let text):
            append(text)
        case .clearScreen:
            append("[screen cleared]\n")
        case .quit:
            append("[quit]\n")
        }
    }
}

/// Renders events in order as they come, on the job's task.
final class CollectingObserver: ReplyObserver, @unchecked Sendable {
    private let view: ReplyView
    private let lock = NSLock()

    init(view: ReplyView) {
        self.view = view
    }

    func reply(_ job: ReplyJob, event: ReplyEvent) { lock.withLock { view.render(event) } }
    func replyEnded(_ job: ReplyJob, outcome: ReplyOutcome) {}
    func drain() { lock.withLock {} }
}
