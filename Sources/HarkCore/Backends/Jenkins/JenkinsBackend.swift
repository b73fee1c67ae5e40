import FoundationEssentials
import Glibc

/// A Jenkins server as a session: jobs listed with their status, builds started with typed
/// parameters and followed from the queue to the end of their console, which streams
/// inline and is kept in the history like a reply. Typed lines are commands in words
/// (`build app BRANCH=main`); there is nobody to chat with.
public final class JenkinsBackend: Backend, BackendKind, @unchecked Sendable {
    public static let name = "jenkins"
    public static let summary = "a Jenkins server: jobs, builds with parameters, consoles streamed"
    public static let replyIsMarkdown = false
    public static let failingFinishReasons: Set<String> = ["FAILURE", "UNSTABLE", "ABORTED", "NOT_BUILT", "CANCELLED"]
    public static let settings: [SettingSpec] = [
        SettingSpec("url", "the Jenkins root URL, e.g. https://ci.example.com/", required: true),
        SettingSpec("auth", "basic:USER:SECRET with an API token (a password works too; crumbs are then fetched)"),
        SettingSpec("poll_interval", "seconds between polls of the queue and the console (default 1)", type: .seconds),
        SettingSpec("crumb", "auto (default) fetches a CSRF crumb when Jenkins asks; on fetches it first; off never", type: .choice(["auto", "on", "off"])),
        SettingSpec("favourites", "jobs listed first in /jobs, comma-separated (/fav and /unfav change it)"),
    ]

    public static let commands: [CommandSpec] = [
        CommandSpec("jobs", [.optional("FILTER")], "list jobs (folders as team/app) with status and a building mark",
                    group: "jenkins", run: handler(JenkinsBackend.listJobs)),
        CommandSpec("job", [.one("NAME", .dynamic("jobs"))], "show a job: description, parameters, last builds", group: "jenkins",
                    run: handler(JenkinsBackend.showJob)),
        CommandSpec("build", [.one("JOB", .dynamic("jobs")), .any("KEY=VALUE")],
                    "start a build and stream its console (Ctrl-C detaches; the build goes on)", group: "jenkins",
                    run: handler(JenkinsBackend.build)),
        CommandSpec("status", [.optional("JOB", .dynamic("jobs"))], "one line: the job's newest build (the job named last)",
                    group: "jenkins", run: handler(JenkinsBackend.status)),
        CommandSpec("log", [.optional("JOB", .dynamic("jobs")), .optional("#N")],
                    "a build's console (the newest by default; followed while it runs)", group: "jenkins",
                    run: handler(JenkinsBackend.log)),
        CommandSpec("stop-build", [.optional("JOB", .dynamic("jobs")), .optional("#N")],
                    "stop a build, or take it out of the queue", group: "jenkins", run: handler(JenkinsBackend.stopBuild)),
        CommandSpec("queue", "show the build queue", group: "jenkins", run: handler(JenkinsBackend.showQueue)),
        CommandSpec("stages", [.optional("JOB", .dynamic("jobs")), .optional("#N")],
                    "a Pipeline build's stages with their status and time", group: "jenkins", run: handler(JenkinsBackend.stages)),
        CommandSpec("approve", [.optional("JOB", .dynamic("jobs")), .any("#N KEY=VALUE")],
                    "proceed at the input step a paused Pipeline waits on (with its parameters)", group: "jenkins",
                    run: handler(JenkinsBackend.approve)),
        CommandSpec("abort", [.optional("JOB", .dynamic("jobs")), .optional("#N")],
                    "abort a paused Pipeline at the input step it waits on", group: "jenkins",
                    run: handler(JenkinsBackend.abortInput)),
        CommandSpec("artifacts", [.optional("JOB", .dynamic("jobs")), .optional("#N")], "the files a build archived",
                    group: "jenkins", run: handler(JenkinsBackend.artifacts)),
        CommandSpec("download", [.one("ARTIFACT", .dynamic("artifacts")), .optional("PATH", .files)],
                    "save an archived file of the build /artifacts showed", group: "jenkins",
                    run: handler(JenkinsBackend.downloadArtifact)),
        CommandSpec("tests", [.optional("JOB", .dynamic("jobs")), .optional("#N")],
                    "a build's test results: counts and the first failures", group: "jenkins", run: handler(JenkinsBackend.tests)),
        CommandSpec("fav", [.optional("JOB", .dynamic("jobs"))], "make a job a favourite, listed first in /jobs (alone: the favourites)",
                    group: "jenkins", run: handler(JenkinsBackend.favourite)),
        CommandSpec("unfav", [.one("JOB", .dynamic("favourites"))], "a job is no longer a favourite", group: "jenkins",
                    run: handler(JenkinsBackend.unfavourite)),
        CommandSpec("refresh", "forget cached jobs (5 min) and build states (30 s)", group: "jenkins",
                    run: handler(JenkinsBackend.refresh)),
    ]

    let session: SessionConfig
    let server: JenkinsServer
    let pollInterval: Double
    let clock: HarkClock
    let followed = FollowedBuilds()
    /// Runs this session's commands for a message sent from elsewhere.
    let sessions: SessionDirectory
    private let lock = Lock()
    private var lastJobName: String?
    private var listedArtifacts: (job: JobPath, number: Int, files: [String])?

    init(session: SessionConfig, environment: BackendEnvironment) throws {
        self.session = session
        sessions = environment.sessions ?? SessionDirectory()
        let interval = try session.double("poll_interval") ?? 1
        guard interval >= 0 else { throw HarkError.badSetting(session: session.name, problem: "poll_interval must be 0 or more seconds") }
        pollInterval = interval
        clock = environment.clock
        guard let mode = JenkinsClient.CrumbMode(rawValue: (session["crumb"] ?? "auto").lowercased()) else {
            throw HarkError.badSetting(session: session.name, problem: "crumb must be auto, on or off")
        }
        guard let url = session.url, url.hasPrefix("http://") || url.hasPrefix("https://") else {
            throw HarkError.badSetting(session: session.name, problem: "url must start with http:// or https://")
        }
        let client = JenkinsClient(root: url, http: environment.http, auth: try session.authHeaders(),
                                   timeouts: try session.timeouts(), tls: try session.tls(), crumbMode: mode)
        server = JenkinsServer(session: session.name, client: client, cache: JenkinsCache(now: environment.clock.now))
    }

    public static func make(session: SessionConfig, environment: BackendEnvironment) throws -> any Backend {
        try JenkinsBackend(session: session, environment: environment)
    }

    func follower(_ job: JobPath) -> BuildFollower {
        BuildFollower(server: server, job: job, pollInterval: pollInterval, followed: followed, clock: clock)
    }

    /// The job named last, for `/log` and `/stop-build` without one.
    var lastJob: String? {
        get { lock.withLock { lastJobName } }
        set { lock.withLock { lastJobName = newValue } }
    }

    /// The build `/artifacts` showed last, for `/download` and Tab.
    var lastArtifacts: (job: JobPath, number: Int, files: [String])? { lock.withLock { listedArtifacts } }

    func remember(artifactsOf job: JobPath, _ build: BuildInfo) {
        lock.withLock { listedArtifacts = (job, build.number, build.artifacts) }
    }

    // MARK: Typed lines

    public func command(forMessage text: String) async throws -> CommandInvocation? {
        try await TypedCommands.invocation(for: text, jobs: { try await self.server.jobs() }, session: session.name)
    }

    /// A message from elsewhere (`@ci build app`, `/retry`, `/forward`): read like a typed
    /// line, with nobody to ask for a missing parameter.
    public func send(_ request: ChatRequest) -> AsyncThrowingStream<ReplyEvent, Error> {
        ProducedStream.make { [self] emit in
            let text = request.text.trimmed
            var invocation = try CommandInvocation.parse(text)
            if invocation == nil { invocation = try await command(forMessage: text) }
            guard let invocation else { throw HarkError.usage(TypedCommands.explanation) }
            switch try await sessions.runOwnCommand(invocation, session: session.name) {
            case .events(let events, _, let detachOnInterrupt):
                // `@ci build app` from another session detaches on Ctrl-C as
                // `/build app` does in this one.
                if detachOnInterrupt { try await emit(.detachable) }
                for try await event in events { try await emit(event) }
            case .output(let document):
                try await emit(.text(document.map(\.plainText).joined(separator: "\n") + "\n"))
            case .page(let text):
                try await emit(.text(text))
            default:
                break
            }
        }
    }

    // MARK: What the shell asks

    public func info() async -> [(String, String)] {
        var facts: [(String, String)] = []
        do {
            let (user, version) = try await server.whoAmI()
            facts.append(("jenkins", version ?? "version not reported"))
            facts.append(("user", user))
        } catch {
            facts.append(("jenkins", "unreachable: " + error.userMessage))
        }
        let following = followed.all.map(\.label)
        if !following.isEmpty { facts.append(("following", following.joined(separator: ", "))) }
        return facts
    }

    public func completions(for key: String) -> [String] {
        switch key {
        case "jobs": return server.cache.knownJobNames
        case "favourites": return favourites
        case "artifacts": return (lastArtifacts?.files ?? []).flatMap { [$0] + ($0.contains("/") ? [$0.lastPathComponent] : []) }
        default: return []
        }
    }
}
